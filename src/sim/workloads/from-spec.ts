// A workload from a spec file (or object): its graph compiled, its faults and cluster defaults kept.
import { compileSpec } from "../compile.js";
import type { WorkloadSpec } from "../spec.js";
import type { ClusterDefaults, Workload } from "./workload.js";

/** A workload from a validated spec (its faults and cluster defaults included). */
export function workloadFromSpec(spec: WorkloadSpec, seed: number): Workload {
  const cluster: ClusterDefaults = {};
  const c = spec.cluster;
  if (c?.workers !== undefined) cluster.workers = c.workers;
  if (c?.threads !== undefined) cluster.threads = c.threads;
  if (c?.memoryLimit !== undefined) cluster.memoryLimit = c.memoryLimit;
  if (c?.network !== undefined) cluster.network = c.network;
  if (c?.latency !== undefined) cluster.latency = c.latency;
  if (c?.bandwidth !== undefined) cluster.bandwidth = c.bandwidth;
  if (c?.scheduler !== undefined) cluster.scheduler = c.scheduler;
  return {
    name: spec.name ?? "workload",
    description: spec.description ?? "",
    graph: compileSpec(spec, seed),
    faults: spec.faults,
    cluster,
  };
}
