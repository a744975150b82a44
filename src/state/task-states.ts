// Names and groupings of the task states (dask's TaskStateState and its set constants).

export type TaskStateName =
  | "cancelled"
  | "constrained"
  | "error"
  | "executing"
  | "fetch"
  | "flight"
  | "forgotten"
  | "long-running"
  | "memory"
  | "missing"
  | "ready"
  | "released"
  | "rescheduled"
  | "resumed"
  | "waiting";

/** States whose task is still to be computed on this worker. */
export const PROCESSING: ReadonlySet<TaskStateName> = new Set<TaskStateName>([
  "waiting",
  "ready",
  "constrained",
  "executing",
  "long-running",
]);

export const READY: ReadonlySet<TaskStateName> = new Set<TaskStateName>(["ready", "constrained"]);

/** States a member of someone's `waitingForData` may be in. */
export const WAITING_FOR_DATA: ReadonlySet<TaskStateName> = new Set<TaskStateName>([
  "constrained",
  "executing",
  "fetch",
  "flight",
  "long-running",
  "missing",
  "ready",
  "resumed",
  "waiting",
]);

/** `previous` of a cancelled/resumed task: which coroutine is still outstanding. */
export type OutstandingState = "executing" | "long-running" | "flight";
/** `next` of a resumed task: where it goes once the coroutine returns. */
export type ResumedTarget = "fetch" | "waiting";
