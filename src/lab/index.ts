// The experiment lab (src/lab): sweeps of many simulations over workloads, options and seeds on
// a pool of worker threads, their results as JSON lines, and comparisons between
// configurations. Above src/sim, below src/cli (whose `sweep` and `compare` commands use it).
export {
  expandPlan,
  planSeeds,
  runKey,
  shardOf,
  PlanError,
  MAX_RUNS,
  type SweepPlan,
  type SweepAxes,
  type AxisOptions,
  type SweepWorkload,
  type SweepRun,
  type AxisValue,
  type AxisLabel,
} from "./plan.js";
export { sweep, runSweep, defaultJobs, type SweepOptions, type RunSweepOptions, type SweepOutcome, type SweepProgress } from "./sweep.js";
export { runSweepTask, type SweepTask } from "./run-task.js";
export { resultFromReport, failedResult, isFailed, type SweepResult, type ActivityTotal } from "./result.js";
export { mergeResults, type MergeOutcome } from "./merge.js";
export {
  compare,
  configurationLabel,
  MIN_PAIRED_SEEDS,
  type Comparison,
  type CompareOptions,
  type WorkloadComparison,
  type ConfigurationComparison,
  type BaselineComparison,
  type Verdict,
} from "./compare.js";
export { spreadOf, type Spread } from "./stats.js";
