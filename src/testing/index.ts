// The `spanwork/testing` entry point: fixtures, matchers and assertions for tests that
// drive the pure WorkerState, and model-based property tools (random plausible stimuli
// with shrinking, replay and transition coverage; a Worker harness on fast-check's
// scheduler). Runner-agnostic: nothing here imports vitest. fast-check is an optional
// peer dependency, needed by the property tools only.
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
export {
  DEFAULT_STIMULUS_WEIGHTS,
  STIMULUS_KINDS,
  arbitraryStimuli,
  defaultPeer,
  stimuliUniverse,
  type AcquireStimulus,
  type CancelStimulus,
  type ComputeStimulus,
  type ExecuteDoneStimulus,
  type ExecuteOutcome,
  type FindMissingStimulus,
  type FreeStimulus,
  type GatherDoneStimulus,
  type GatherOutcome,
  type Holders,
  type PauseStimulus,
  type RefreshWhoHasStimulus,
  type RemoveReplicasStimulus,
  type RemoveWorkerStimulus,
  type Replica,
  type RetryBusyStimulus,
  type ScatterStimulus,
  type StealStimulus,
  type Stimulus,
  type StimulusKind,
  type StimuliOptions,
  type StimuliUniverse,
} from "./stimuli.js";
export { runStimuli, type RunStimuliOptions, type StimuliRun } from "./run-stimuli.js";
export { ModelViolation } from "./scheduler-model.js";
export { StimulusViolation, formatReplay, type ReplayParameters, type ViolationDetails } from "./violation.js";
export { assertStimuli } from "./assert-stimuli.js";
export {
  TABLE_TRANSITIONS,
  TransitionRecorder,
  transitionCoverage,
  type TransitionCoverage,
  type TransitionRecord,
} from "./coverage.js";
export {
  arbitraryWorkerScenario,
  type ComputeMessage,
  type PeerAnswer,
  type PeerScript,
  type TaskEnd,
  type WorkerMessage,
  type WorkerMessageKind,
  type WorkerScenario,
  type WorkerScenarioOptions,
} from "./worker-scenario.js";
export { runWorkerScenario, type RunWorkerScenarioOptions, type WorkerRun } from "./worker-harness.js";
