// What a simulated workload is: a task graph with the faults and cluster settings that come
// with it, and the shape of a built-in workload of the registry (registry.ts).
import type { RegistryEntry } from "../../util/registry.js";
import type { TaskGraph } from "../graph.js";
import type { ClusterSpec } from "../cluster-spec.js";
import type { FaultSpec } from "../spec.js";

/** Cluster settings a workload suggests (a spec's `cluster` section); a profile and run options override them. */
export type ClusterDefaults = ClusterSpec;

/** A graph ready to simulate, with the faults and cluster settings that come with it. */
export interface Workload {
  readonly name: string;
  readonly description: string;
  readonly graph: TaskGraph;
  readonly faults: readonly FaultSpec[];
  readonly cluster: ClusterDefaults;
}

export interface WorkloadParameters {
  /** Size of the workload (what it counts is in each description); default per workload. */
  size?: number;
  seed: number;
  /** Cluster shape, for workloads that size their memory limit to their data. */
  workers: number;
  threads: number;
}

/** A built-in workload: one line for `spanwork list` (`description`), its default size and its generator. */
export interface BuiltInWorkload extends RegistryEntry {
  readonly defaultSize: number;
  generate(parameters: WorkloadParameters): Workload;
}
