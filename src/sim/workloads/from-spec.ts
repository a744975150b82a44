// A workload from a spec file (or object): its graph compiled, its faults and cluster defaults kept.
import { compileSpec } from "../compile.js";
import type { WorkloadSpec } from "../spec.js";
import type { Workload } from "./workload.js";

/** A workload from a validated spec (its faults and cluster defaults included). */
export function workloadFromSpec(spec: WorkloadSpec, seed: number): Workload {
  return {
    name: spec.name ?? "workload",
    description: spec.description ?? "",
    graph: compileSpec(spec, seed),
    faults: spec.faults,
    cluster: spec.cluster ?? {},
  };
}
