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

/** Every state, in the order of `stateIndex`. */
export const TASK_STATE_NAMES: readonly TaskStateName[] = Object.freeze([
  "cancelled",
  "constrained",
  "error",
  "executing",
  "fetch",
  "flight",
  "forgotten",
  "long-running",
  "memory",
  "missing",
  "ready",
  "released",
  "rescheduled",
  "resumed",
  "waiting",
]);

/**
 * The position of `state` in TASK_STATE_NAMES, for tables indexed by state (the transition
 * dispatch). A switch over the names compares interned strings by reference; a hashed
 * lookup per transition cost more (two Map lookups per transition were 12 per W1 task).
 * A state added to TaskStateName without a case here fails to compile.
 */
export function stateIndex(state: TaskStateName): number {
  switch (state) {
    case "cancelled":
      return 0;
    case "constrained":
      return 1;
    case "error":
      return 2;
    case "executing":
      return 3;
    case "fetch":
      return 4;
    case "flight":
      return 5;
    case "forgotten":
      return 6;
    case "long-running":
      return 7;
    case "memory":
      return 8;
    case "missing":
      return 9;
    case "ready":
      return 10;
    case "released":
      return 11;
    case "rescheduled":
      return 12;
    case "resumed":
      return 13;
    case "waiting":
      return 14;
    default:
      return unknownState(state);
  }
}

function unknownState(state: never): never {
  throw new Error(`unknown task state ${JSON.stringify(state)}`);
}

/** dask's PROCESSING: the task is, or may still be, computed or gathered here. */
export const PROCESSING: ReadonlySet<TaskStateName> = new Set<TaskStateName>([
  "waiting",
  "ready",
  "constrained",
  "executing",
  "long-running",
  "cancelled",
  "resumed",
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
