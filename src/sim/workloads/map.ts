// The `map` workload: independent tasks, lognormal 0.2 s and 1 MB each.
import { GraphBuilder } from "../graph.js";
import { Rng } from "../rng.js";
import { draw, lognormal, MB, sizeOf } from "./parameters.js";
import type { BuiltInWorkload, Workload, WorkloadParameters } from "./workload.js";

const DEFAULT_SIZE = 2000;
const DESCRIPTION = "embarrassingly parallel: size independent tasks (default 2000)";

function map(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, DEFAULT_SIZE);
  const rng = Rng.derive(parameters.seed, "workload:map");
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) {
    builder.addTask({
      key: `map-${i}`,
      prefix: "map",
      duration: draw(lognormal(0.2, 0.5), rng),
      nbytes: Math.round(draw(lognormal(1 * MB, 0.5), rng)),
      cpuShare: 0.9,
    });
  }
  return { name: "map", description: DESCRIPTION, graph: builder.build("map"), faults: [], cluster: {} };
}

export const mapWorkload: BuiltInWorkload = { description: DESCRIPTION, defaultSize: DEFAULT_SIZE, generate: map };
