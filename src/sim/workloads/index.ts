// Workloads (src/sim/workloads): what a simulated workload is, the built-in ones (one file
// each, listed in registry.ts) and workloads from specs.
export { BUILT_IN_WORKLOADS, BUILT_IN_WORKLOAD_NAMES, builtInWorkloads, type BuiltInWorkloadName } from "./registry.js";
export { workloadFromSpec } from "./from-spec.js";
export { shuffleShape } from "./shuffle.js";
export type { BuiltInWorkload, ClusterDefaults, Workload, WorkloadParameters } from "./workload.js";
