// The `random-dag` workload: each task needs 0-3 of the 64 previous ones.
import { GraphBuilder } from "../graph.js";
import { Rng } from "../rng.js";
import { draw, lognormal, MB, sizeOf } from "./parameters.js";
import type { BuiltInWorkload, Workload, WorkloadParameters } from "./workload.js";

const DEFAULT_SIZE = 1000;
const DESCRIPTION = "size tasks (default 1000), each needing 0-3 random recent ones";

function randomDag(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, DEFAULT_SIZE);
  const window = 64;
  const rng = Rng.derive(parameters.seed, "workload:random-dag");
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) {
    const fanIn = i === 0 ? 0 : Math.min(i, rng.int(4));
    const deps = new Set<number>();
    while (deps.size < fanIn) deps.add(i - 1 - rng.int(Math.min(i, window)));
    const prefix = fanIn === 0 ? "load" : fanIn === 1 ? "transform" : "combine";
    const id = builder.addTask({
      key: `${prefix}-${i}`,
      prefix,
      duration: draw({ dist: "exponential", mean: 0.1 }, rng),
      nbytes: Math.round(draw(lognormal(4 * MB, 1), rng)),
      cpuShare: 0.8,
    });
    for (const dep of [...deps].sort((a, b) => a - b)) builder.addDependency(id, dep);
  }
  return {
    name: "random-dag",
    description: DESCRIPTION,
    graph: builder.build("random-dag"),
    faults: [],
    cluster: {},
  };
}

export const randomDagWorkload: BuiltInWorkload = { description: DESCRIPTION, defaultSize: DEFAULT_SIZE, generate: randomDag };
