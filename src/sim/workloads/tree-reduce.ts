// The `tree-reduce` workload: leaves of 8 MB reduced 8 at a time to one result.
import { GraphBuilder } from "../graph.js";
import { Rng } from "../rng.js";
import { draw, lognormal, MB, sizeOf } from "./parameters.js";
import type { BuiltInWorkload, Workload, WorkloadParameters } from "./workload.js";

const DEFAULT_SIZE = 1024;
const DESCRIPTION = "size leaves (default 1024) reduced 8 at a time to one result";

function treeReduce(parameters: WorkloadParameters): Workload {
  const leaves = sizeOf(parameters, DEFAULT_SIZE);
  const fanIn = 8;
  const rng = Rng.derive(parameters.seed, "workload:tree-reduce");
  const builder = new GraphBuilder();
  let level: number[] = [];
  for (let i = 0; i < leaves; i++) {
    level.push(
      builder.addTask({
        key: `load-${i}`,
        prefix: "load",
        duration: draw(lognormal(0.3, 0.3), rng),
        nbytes: Math.round(draw(lognormal(8 * MB, 0.3), rng)),
        cpuShare: 0.5,
      }),
    );
  }
  for (let depth = 1; level.length > 1; depth++) {
    const next: number[] = [];
    for (let i = 0; i * fanIn < level.length; i++) {
      const id = builder.addTask({
        key: `reduce-${depth}-${i}`,
        prefix: "reduce",
        group: `reduce-${depth}`,
        duration: draw(lognormal(0.1, 0.3), rng),
        nbytes: Math.round(draw(lognormal(8 * MB, 0.3), rng)),
      });
      for (const dep of level.slice(i * fanIn, (i + 1) * fanIn)) builder.addDependency(id, dep);
      next.push(id);
    }
    level = next;
  }
  return {
    name: "tree-reduce",
    description: DESCRIPTION,
    graph: builder.build("tree-reduce"),
    faults: [],
    cluster: {},
  };
}

export const treeReduceWorkload: BuiltInWorkload = { description: DESCRIPTION, defaultSize: DEFAULT_SIZE, generate: treeReduce };
