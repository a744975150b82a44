// The `chain` workload: one line of dependent tasks.
import { GraphBuilder } from "../graph.js";
import { Rng } from "../rng.js";
import { draw, lognormal, MB, sizeOf } from "./parameters.js";
import type { BuiltInWorkload, Workload, WorkloadParameters } from "./workload.js";

const DEFAULT_SIZE = 200;
const DESCRIPTION = "size tasks in one line, each needing the previous (default 200)";

function chain(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, DEFAULT_SIZE);
  const rng = Rng.derive(parameters.seed, "workload:chain");
  const builder = new GraphBuilder();
  let previous = -1;
  for (let i = 0; i < n; i++) {
    const id = builder.addTask({
      key: `chain-${i}`,
      prefix: "chain",
      duration: draw(lognormal(0.05, 0.2), rng),
      nbytes: Math.round(draw(lognormal(1 * MB, 0.2), rng)),
    });
    if (previous >= 0) builder.addDependency(id, previous);
    previous = id;
  }
  return { name: "chain", description: DESCRIPTION, graph: builder.build("chain"), faults: [], cluster: {} };
}

export const chainWorkload: BuiltInWorkload = { description: DESCRIPTION, defaultSize: DEFAULT_SIZE, generate: chain };
