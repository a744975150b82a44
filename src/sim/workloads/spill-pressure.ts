// The `spill-pressure` workload: 64 MB outputs reduced 4 at a time, memory for a quarter of them.
import { MEMORY_FRACTIONS } from "../../worker/memory-fractions.js";
import { compileSpec } from "../compile.js";
import type { WorkloadSpec } from "../spec.js";
import { lognormal, MB, sizeOf } from "./parameters.js";
import type { BuiltInWorkload, Workload, WorkloadParameters } from "./workload.js";

const DEFAULT_SIZE = 256;
const DESCRIPTION = "size 64 MB outputs (default 256) reduced 4 at a time, with memory for a quarter of them";

function spillPressure(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, DEFAULT_SIZE);
  const spec: WorkloadSpec = {
    name: "spill-pressure",
    tasks: [
      {
        prefix: "produce",
        count: n,
        duration: lognormal(0.2, 0.3),
        outputSize: lognormal(64 * MB, 0.2),
        cpu: 0.7,
        failureProbability: 0,
        dependsOn: { pattern: "none" },
      },
      {
        prefix: "combine",
        count: Math.ceil(n / 4),
        duration: lognormal(0.1, 0.3),
        outputSize: lognormal(64 * MB, 0.2),
        cpu: 1,
        failureProbability: 0,
        dependsOn: { pattern: "reduce", on: "produce", fanIn: 4 },
      },
    ],
    faults: [],
  };
  // Every worker can hold a quarter of its share of the produced data in memory.
  const memoryLimit = Math.round(((n * 64 * MB) / parameters.workers / 4) / MEMORY_FRACTIONS.target);
  return {
    name: "spill-pressure",
    description: DESCRIPTION,
    graph: compileSpec(spec, parameters.seed),
    faults: [],
    cluster: { memoryLimit },
  };
}

export const spillPressureWorkload: BuiltInWorkload = { description: DESCRIPTION, defaultSize: DEFAULT_SIZE, generate: spillPressure };
