// The `spanwork/testing` entry point: fixtures, matchers and assertions for tests that
// drive the pure WorkerState. Runner-agnostic: nothing here imports vitest.
export { deepEqual, formatValue, isAsymmetricMatcher, type AsymmetricMatcherLike } from "./equality.js";
export {
  InstructionMatcher,
  assertInstructions,
  formatInstruction,
  match,
  type KindFactory,
  type Kinded,
} from "./match.js";
export {
  assertStory,
  formatStory,
  type AssertStoryOptions,
  type ExpectedStoryEntry,
  type StoryElementExpectation,
} from "./story.js";
export {
  LOCAL_ADDRESS,
  PEER,
  describeState,
  freshWorkerState,
  requireTask,
  taskInState,
  workerWithRunningTask,
  type ReachableState,
  type RunningTask,
  type RunningTaskOptions,
  type StateEvent,
  type TaskInStateOptions,
  type TaskInStateResult,
  type WorkerStateOptions,
} from "./fixtures.js";
