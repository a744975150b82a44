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

type RecommendationByFinish = { readonly [F in SimpleFinish]: SimpleRecommendation } & {
  readonly flight: FlightRecommendation;
  readonly memory: MemoryRecommendation;
  readonly error: ErrorRecommendation;
  readonly "long-running": LongRunningRecommendation;
};

/** The recommendation for finish `F` (a union for a union of finishes). */
export type RecommendationFor<F extends FinishState> = RecommendationByFinish[F];

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
  /** The error a failure event reports (an ExecuteFailureEvent, a GatherDepFailureEvent), for attempt `runId`. */
  error(failure: Omit<ErrorRecommendation, "finish" | "runId">, runId: number): ErrorRecommendation {
    return {
      finish: "error",
      exception: failure.exception,
      traceback: failure.traceback,
      exceptionText: failure.exceptionText,
      tracebackText: failure.tracebackText,
      runId,
    };
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

/**
 * Pending recommendations, drained last-in-first-out with dict-update merge semantics.
 *
 * The main stack of a WorkerState keeps each pending recommendation on the task itself
 * (`_pendingRec`; a task belongs to one WorkerState, which has one main stack): no
 * hashing on the hot path. Secondary stacks (the
 * via-released path, rare) use a Map, so a task may be pending in both at once.
 */
export class RecommendationStack {
  private readonly order: TaskState[] = [];
  private readonly pending: Map<TaskState, Recommendation> | null;
  private count = 0;
  /** Every `add` since the last truncation, for the transition log. */
  readonly journalTasks: TaskState[] = [];
  readonly journalRecs: Recommendation[] = [];
  private journalSize = 0;
  /** The recommendation of the task last returned by `pop`. */
  lastPopped: Recommendation = Rec.released;

  constructor(onTasks = false) {
    this.pending = onTasks ? null : new Map();
  }

  get size(): number {
    return this.count;
  }

  add(ts: TaskState, rec: Recommendation): void {
    const pending = this.pending;
    if (pending === null) {
      if (ts._pendingRec === null) {
        this.order.push(ts);
        this.count++;
      }
      ts._pendingRec = rec;
    } else {
      if (!pending.has(ts)) {
        this.order.push(ts);
        this.count++;
      }
      pending.set(ts, rec);
    }
    const j = this.journalSize++;
    this.journalTasks[j] = ts;
    this.journalRecs[j] = rec;
  }

  get(ts: TaskState): Recommendation | undefined {
    if (this.pending !== null) return this.pending.get(ts);
    return ts._pendingRec === null ? undefined : (ts._pendingRec as Recommendation);
  }

  /** The most recently inserted pending task; its recommendation is `lastPopped`. */
  pop(): TaskState | undefined {
    const ts = this.order.pop();
    if (ts === undefined) return undefined;
    this.count--;
    const pending = this.pending;
    if (pending === null) {
      this.lastPopped = ts._pendingRec as Recommendation;
      ts._pendingRec = null;
    } else {
      this.lastPopped = pending.get(ts) as Recommendation;
      pending.delete(ts);
    }
    return ts;
  }

  /** Remove the pending recommendation for `ts`, wherever it sits. */
  take(ts: TaskState): Recommendation | undefined {
    const rec = this.get(ts);
    if (rec === undefined) return undefined;
    if (this.pending === null) {
      ts._pendingRec = null;
    } else {
      this.pending.delete(ts);
    }
    this.order.splice(this.order.lastIndexOf(ts), 1);
    this.count--;
    return rec;
  }

  /** Pending entries in insertion order. */
  entries(): [TaskState, Recommendation][] {
    return this.order.map((ts) => [ts, this.get(ts) as Recommendation]);
  }

  journalLength(): number {
    return this.journalSize;
  }

  journalTruncate(length: number): void {
    this.journalSize = length;
  }

  /** Forget everything pending (after a transition threw). */
  clear(): void {
    while (this.pop() !== undefined);
    this.journalSize = 0;
    this.journalTasks.length = 0;
    this.journalRecs.length = 0;
  }
}
