// The simulator (src/sim): whole task graphs on N simulated workers — each the real Worker
// shell with the real WorkerState and SpillBuffer — on a virtual clock. See docs/sim.md.
export { simulate, SimulationError, workerAddress, DEFAULT_SEED, DEFAULT_WORKERS, DEFAULT_THREADS, DEFAULT_NETWORK_KIND, type SimInput } from "./simulate.js";
export * from "./report.js";
export { builtInWorkloads, BUILT_IN_WORKLOADS, BUILT_IN_WORKLOAD_NAMES, type BuiltInWorkloadName, workloadFromSpec, shuffleShape, type BuiltInWorkload, type ClusterDefaults, type Workload, type WorkloadParameters } from "./workloads/index.js";
export {
  validateSpec,
  loadWorkloadFile,
  formatPath,
  SpecError,
  workloadSchema,
  faultSchema,
  type WorkloadSpec,
  type WorkloadSpecInput,
  type TaskGroupSpec,
  type DependencyPattern,
  type Distribution,
  type FaultSpec,
} from "./spec.js";
export { compileSpec } from "./compile.js";
export { checkTaskTable, compileTaskTable, taskTableSchema, TASK_TABLE_FIELD, type TaskRow, type TaskRowInput } from "./task-table.js";
export { GraphBuilder, GraphError, type TaskGraph, type TaskInit } from "./graph.js";
export { Rng, hashString } from "./rng.js";
export { sample, meanOf } from "./distributions.js";
export { parseSize, formatBytes } from "./units.js";
export { Scheduler, TaskStatus, TASK_STATUS_NAMES, type SchedulerHost, type SchedulerOptions } from "./scheduler.js";
export {
  SCHEDULER_POLICIES,
  SCHEDULER_POLICY_NAMES,
  DEFAULT_SCHEDULER_POLICY,
  NO_WORKER,
  QUEUE,
  PolicyError,
  PolicySelectionError,
  loadPolicy,
  resolvePolicy,
  parsePolicySelection,
  type ClusterView,
  type WorkerView,
  type QueueView,
  type SchedulerPolicy,
  type PolicyContext,
  type PolicyFactory,
  type PolicyEntry,
  type PolicyOptionValue,
  type PolicySelection,
  type DecisionOrigin,
  type Stimulus,
  type StealOutcome,
} from "./scheduler/index.js";
export {
  createNetwork,
  InstantNetwork,
  LatencyBandwidthNetwork as SimLatencyBandwidthNetwork,
  MaxMinNetwork,
  maxMinFairRates,
  maxMinFairRatesOver,
  DEFAULT_NETWORK,
  DEFAULT_LOOP_BANDWIDTH,
  DESERIALIZE_BANDWIDTH,
  wireCapacity,
  NETWORK_MODELS,
  NETWORK_KINDS,
  type NetworkKind,
  type NetworkModelEntry,
  type NetworkParameters,
  type EndpointCapacity,
  type SimNetwork,
  type MaxMinParameters,
} from "./network/index.js";
export { VirtualDisk, ModelledBytes, simulatedDataSerializer, DEFAULT_DISK, type DiskParameters } from "./disk.js";
export { HostDisk } from "./host-disk.js";
export { MEMORY_FRACTIONS, DEFAULT_MEMORY_MODEL, MemoryMonitor, type MemoryModel, type MemoryCheck } from "./memory.js";
export { DEFAULT_OVERHEADS, NO_OVERHEADS, type Overheads } from "./overheads.js";
export { BatchedLink, SerialLoop } from "./control-plane.js";
export { resolveCluster, stackClusterLayer, ClusterLayoutError, type ResolvedCluster, type WorkerShape, type ClusterOptions } from "./cluster.js";
export {
  clusterSchema,
  clusterProfileSchema,
  validateClusterProfile,
  type ClusterSpec,
  type ClusterSpecInput,
  type ClusterProfile,
  type ClusterProfileInput,
  type WorkerGroupSpec,
  type MemoryModelSpec,
  type OverheadsSpec,
} from "./cluster-spec.js";
export { loadClusterProfile } from "./profile-file.js";
export { resolveFaults, FaultDice, type FaultPlan } from "./faults.js";
export {
  SimulatedExecutor,
  TaskModelFailure,
  isTaskModel,
  validateTaskModel,
  type TaskModel,
} from "./simulated-executor.js";
export { SimulatedData, isSimulatedData, workerSizeof } from "./simulated-data.js";
