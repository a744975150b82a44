// The pure worker state machine (CONTRACT §1–2).
export * from "./events.js";
export * from "./instructions.js";
export { keySplit } from "./key-split.js";
export { WorkerState, type DataStore, type WorkerStateOptions } from "./worker-state.js";
export { TaskState, DEFAULT_DATA_SIZE, RUN_ID_SENTINEL } from "./task-state.js";
export type { TaskStateName, OutstandingState, ResumedTarget } from "./task-states.js";
export { PROCESSING, READY, WAITING_FOR_DATA } from "./task-states.js";
export {
  InvalidTaskState,
  InvalidTransition,
  RecommendationsConflict,
  StateInvariantError,
  TransitionCounterMaxExceeded,
} from "./errors.js";
export { PrioritySet, type ReadonlyPrioritySet } from "./priority-set.js";
export { comparePriority } from "./priority-entries.js";
export { SharedSlotPrioritySet, SlotPrioritySet, type QueueSlot } from "./slot-priority-set.js";
export type { LogEntry } from "./log.js";
export { DEFAULT_LOG_LENGTH } from "./log.js";
export { TRANSITIONS, TRANSITION_COUNT } from "./transitions/table.js";
export type { Recommendation, FinishState } from "./recommendations.js";
