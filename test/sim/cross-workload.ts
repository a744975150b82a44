// Two joins that fetch in opposite directions at once: x-0 and x-1 (1 s each, their bytes) end
// at 1 s, one per worker of two; j-0 and j-1 each need both and run one per worker (the second
// goes where the first is not, its occupancy being lower), so each worker fetches the other's x.
import { GraphBuilder, type Workload } from "../../src/sim/index.js";

export function crossWorkload(x0Bytes: number, x1Bytes: number): Workload {
  const builder = new GraphBuilder();
  const x0 = builder.addTask({ key: "x-0", prefix: "x", duration: 1, nbytes: x0Bytes });
  const x1 = builder.addTask({ key: "x-1", prefix: "x", duration: 1, nbytes: x1Bytes });
  for (let j = 0; j < 2; j++) {
    const id = builder.addTask({ key: `j-${j}`, prefix: "j", duration: 1, nbytes: 1 });
    builder.addDependency(id, x0);
    builder.addDependency(id, x1);
  }
  return { name: "cross", description: "", graph: builder.build("cross"), faults: [], cluster: {} };
}
