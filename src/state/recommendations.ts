// Typed recommendations (dask's `state | (state, *args)`) and the stack they are drained
// from. dask drains an insertion-ordered dict from its most recent entry, merging new
// recommendations with dict "update" semantics: a task already pending keeps its place
// and takes the new value, a new task goes on top. That order decides the order of the
// instructions, so it is kept here explicitly.
import { freeze } from "immer";
import type { TaskState } from "./task-state.js";

export type SimpleFinish =
  | "released"
  | "forgotten"
  | "fetch"
  | "waiting"
  | "ready"
  | "constrained"
  | "executing"
  | "missing"
  | "rescheduled";

export interface SimpleRecommendation {
  readonly finish: SimpleFinish;
}
export interface FlightRecommendation {
  readonly finish: "flight";
  readonly worker: string;
}
export interface MemoryRecommendation {
  readonly finish: "memory";
  readonly value: unknown;
  readonly runId: number;
}
export interface ErrorRecommendation {
  readonly finish: "error";
  readonly exception: unknown;
  readonly traceback: unknown;
  readonly exceptionText: string;
  readonly tracebackText: string;
  readonly runId: number;
}
export interface LongRunningRecommendation {
  readonly finish: "long-running";
  readonly computeDuration: number | null;
}

export type Recommendation =
  | SimpleRecommendation
  | FlightRecommendation
  | MemoryRecommendation
  | ErrorRecommendation
  | LongRunningRecommendation;

export type FinishState = Recommendation["finish"];

/** Shared argument-less recommendations (no allocation per use). */
export const Rec = freeze({
  released: { finish: "released" } as SimpleRecommendation,
  forgotten: { finish: "forgotten" } as SimpleRecommendation,
  fetch: { finish: "fetch" } as SimpleRecommendation,
  waiting: { finish: "waiting" } as SimpleRecommendation,
  ready: { finish: "ready" } as SimpleRecommendation,
  constrained: { finish: "constrained" } as SimpleRecommendation,
  executing: { finish: "executing" } as SimpleRecommendation,
  missing: { finish: "missing" } as SimpleRecommendation,
  rescheduled: { finish: "rescheduled" } as SimpleRecommendation,
  flight(worker: string): FlightRecommendation {
    return { finish: "flight", worker };
  },
  memory(value: unknown, runId: number): MemoryRecommendation {
    return { finish: "memory", value, runId };
  },
  longRunning(computeDuration: number | null): LongRunningRecommendation {
    return { finish: "long-running", computeDuration };
  },
});

export function simpleRecommendation(finish: string): SimpleRecommendation | undefined {
  switch (finish) {
    case "released":
    case "forgotten":
    case "fetch":
    case "waiting":
    case "ready":
    case "constrained":
    case "executing":
    case "missing":
    case "rescheduled":
      return Rec[finish];
    default:
      return undefined;
  }
}

/** Pending recommendations, drained last-in-first-out with dict-update merge semantics. */
export class RecommendationStack {
  private readonly order: TaskState[] = [];
  private readonly pending = new Map<TaskState, Recommendation>();
  /** Every `add` since the last `journalReset`, for the transition log. */
  readonly journalTasks: TaskState[] = [];
  readonly journalRecs: Recommendation[] = [];

  get size(): number {
    return this.pending.size;
  }

  add(ts: TaskState, rec: Recommendation): void {
    if (!this.pending.has(ts)) this.order.push(ts);
    this.pending.set(ts, rec);
    this.journalTasks.push(ts);
    this.journalRecs.push(rec);
  }

  get(ts: TaskState): Recommendation | undefined {
    return this.pending.get(ts);
  }

  /** The most recently inserted pending task; its recommendation is `lastPopped`. */
  pop(): TaskState | undefined {
    const ts = this.order.pop();
    if (ts === undefined) return undefined;
    this.lastPopped = this.pending.get(ts) as Recommendation;
    this.pending.delete(ts);
    return ts;
  }
  lastPopped: Recommendation = Rec.released;

  /** Remove the pending recommendation for `ts`, wherever it sits. */
  take(ts: TaskState): Recommendation | undefined {
    const rec = this.pending.get(ts);
    if (rec === undefined) return undefined;
    this.pending.delete(ts);
    this.order.splice(this.order.lastIndexOf(ts), 1);
    return rec;
  }

  /** Pending entries in insertion order. */
  entries(): [TaskState, Recommendation][] {
    return this.order.map((ts) => [ts, this.pending.get(ts) as Recommendation]);
  }

  journalLength(): number {
    return this.journalTasks.length;
  }

  journalTruncate(length: number): void {
    this.journalTasks.length = length;
    this.journalRecs.length = length;
  }
}
