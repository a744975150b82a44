// The steal transactions in flight (stealing.py's `in_flight`, the core's part of it: who asked
// whom, under which stimulus id) and what became of each request, for the report. The costs a
// policy attaches to a steal (in-flight occupancy) are the policy's own.
import type { StealOutcome } from "./policy.js";

/** One steal request and how it ended (victim and thief are worker ids). */
export interface StealEvent {
  time: number;
  task: number;
  victim: number;
  thief: number;
  outcome: StealOutcome;
}

/** Requests made, and how each ended: requested = the four outcomes + those still unanswered. */
export interface StealCounts {
  requested: number;
  confirmed: number;
  rejected: number;
  rescheduled: number;
  aborted: number;
}

interface InFlight {
  victim: number;
  thief: number;
  stimulusId: string;
}

/** Worker states in a steal-response that mean: not started, it may move (stealing.py). */
const CONFIRM = new Set<string>(["ready", "constrained", "waiting"]);
/** …that mean: started or done, it stays. */
const REJECT = new Set<string>(["memory", "executing", "long-running", "cancelled", "resumed"]);

/** What to do with a steal-response, by the state the victim answered. */
export function stealVerdict(state: string | null, thiefAlive: boolean): "confirm" | "reject" | "reschedule" | "unexpected" {
  if (state === null || state === "released") return "reschedule";
  if (CONFIRM.has(state)) return thiefAlive ? "confirm" : "reschedule";
  if (REJECT.has(state)) return "reject";
  return "unexpected";
}

export class StealLedger {
  private readonly inFlight = new Map<number, InFlight>();
  private counter = 0;
  readonly counts: StealCounts = { requested: 0, confirmed: 0, rejected: 0, rescheduled: 0, aborted: 0 };
  readonly events: StealEvent[] = [];
  dropped = 0;

  constructor(private readonly maxEvents: number) {}

  /** Requests still waiting for their answer (at the end of a run: never answered). */
  get unanswered(): number {
    return this.inFlight.size;
  }

  has(task: number): boolean {
    return this.inFlight.has(task);
  }

  /** Registers a request; returns its stimulus id. */
  open(task: number, victim: number, thief: number): string {
    const stimulusId = `steal-${this.counter++}`;
    this.inFlight.set(task, { victim, thief, stimulusId });
    this.counts.requested++;
    return stimulusId;
  }

  /** The transaction a response answers, removed from flight; null when stale or already aborted. */
  answer(task: number, stimulusId: string): InFlight | null {
    const info = this.inFlight.get(task);
    if (info === undefined || info.stimulusId !== stimulusId) return null;
    this.inFlight.delete(task);
    return info;
  }

  /** The task left processing while its steal was in flight; null when none was. */
  abort(task: number): InFlight | null {
    const info = this.inFlight.get(task);
    if (info === undefined) return null;
    this.inFlight.delete(task);
    return info;
  }

  record(time: number, task: number, victim: number, thief: number, outcome: StealOutcome): void {
    this.counts[outcome]++;
    if (this.events.length >= this.maxEvents) {
      this.dropped++;
      return;
    }
    this.events.push({ time, task, victim, thief, outcome });
  }
}
