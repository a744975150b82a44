// The simulator's scheduler (docs/sim.md, "Scheduling"): the core and the policy contract,
// the built-in policies and the loading of user policies.
export { SchedulerCore, type SchedulerHost, type SchedulerOptions } from "./core.js";
export { TaskStatus, TASK_STATUS_NAMES } from "./lifecycle.js";
export { ClusterState, UNKNOWN_TASK_DURATION, DEFAULT_BANDWIDTH_ESTIMATE, DEFAULT_TASK_DURATIONS } from "./cluster.js";
export { PolicyError } from "./policy-error.js";
export type { StealCounts, StealEvent } from "./steals.js";
export {
  NO_WORKER,
  QUEUE,
  type ClusterView,
  type DecisionOrigin,
  type PolicyContext,
  type PolicyEntry,
  type PolicyFactory,
  type PolicyOptionSpec,
  type PolicyOptionValue,
  type PolicyOptions,
  type ProcessingExit,
  type QueueView,
  type SchedulerPolicy,
  type StealOutcome,
  type Stimulus,
  type WorkerStatus,
  type WorkerView,
} from "./policy.js";
export {
  SCHEDULER_POLICIES,
  SCHEDULER_POLICY_NAMES,
  DEFAULT_SCHEDULER_POLICY,
  PolicySelectionError,
  isPolicyPath,
  isSchedulerPolicyName,
  parsePolicySelection,
  resolvePolicy,
  type PolicySelection,
  type ResolvedPolicy,
  type SchedulerPolicyName,
} from "./registry.js";
export { loadPolicy } from "./user-policy.js";
export { bottomLevels, plan as blevelPlan } from "./policies/blevel.js";
