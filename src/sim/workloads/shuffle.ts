// The `shuffle` workload: dask's tasks-based shuffle, simplified (staged, radix 8).
import { GraphBuilder } from "../graph.js";
import { Rng } from "../rng.js";
import { draw, lognormal, MB, sizeOf } from "./parameters.js";
import type { BuiltInWorkload, Workload, WorkloadParameters } from "./workload.js";

const DEFAULT_SIZE = 2000;
const DESCRIPTION = "all-to-all staged shuffle (radix 8) of about size tasks (default 2000); transfer- and spill-heavy";

/** Partitions and stages of a radix-k staged shuffle with about `tasks` tasks in all. */
export function shuffleShape(tasks: number, radix: number): { partitions: number; stages: number } {
  for (let stages = 1; ; stages++) {
    const partitions = Math.max(2, Math.floor(tasks / (1 + stages * (radix + 1))));
    if (radix ** stages >= partitions) return { partitions, stages };
  }
}

/**
 * dask's tasks-based shuffle, simplified: `partitions` inputs, then `stages` rounds in which
 * every partition is split in `radix` pieces (cheap, local) and every output partition joins
 * the `radix` pieces destined to it (a transfer each). After log_radix(partitions) rounds every
 * input has reached every output: all-to-all through radix-sized groups.
 */
function shuffle(parameters: WorkloadParameters): Workload {
  const radix = 8;
  const { partitions, stages } = shuffleShape(sizeOf(parameters, DEFAULT_SIZE), radix);
  const rng = Rng.derive(parameters.seed, "workload:shuffle");
  const partitionBytes = lognormal(8 * MB, 0.2);
  const builder = new GraphBuilder();
  let previous: number[] = [];
  let totalBytes = 0;
  for (let p = 0; p < partitions; p++) {
    const nbytes = Math.round(draw(partitionBytes, rng));
    totalBytes += nbytes;
    previous.push(
      builder.addTask({ key: `shuffle-input-${p}`, prefix: "shuffle-input", duration: draw(lognormal(0.2, 0.3), rng), nbytes, cpuShare: 0.6 }),
    );
  }
  const digit = (p: number, stage: number): number => Math.floor(p / radix ** stage) % radix;
  const withDigit = (p: number, stage: number, d: number): number => p + (d - digit(p, stage)) * radix ** stage;
  for (let stage = 0; stage < stages; stage++) {
    // split[p][d]: the part of partition p that goes to the partition whose digit `stage` is d.
    const splits: Array<Array<number | undefined>> = [];
    for (let p = 0; p < partitions; p++) {
      const row: Array<number | undefined> = [];
      const pieceBytes = Math.round(builder.nbytesOf(previous[p]!) / radix);
      for (let d = 0; d < radix; d++) {
        if (withDigit(p, stage, d) >= partitions) {
          row.push(undefined);
          continue;
        }
        const id = builder.addTask({
          key: `shuffle-split-${stage}-${p}-${d}`,
          prefix: "shuffle-split",
          group: `shuffle-split-${stage}`,
          duration: 0.002,
          nbytes: pieceBytes,
        });
        builder.addDependency(id, previous[p]!);
        row.push(id);
      }
      splits.push(row);
    }
    const joins: number[] = [];
    for (let p = 0; p < partitions; p++) {
      const id = builder.addTask({
        key: `shuffle-join-${stage}-${p}`,
        prefix: "shuffle-join",
        group: `shuffle-join-${stage}`,
        duration: draw(lognormal(0.05, 0.3), rng),
        nbytes: 0,
        cpuShare: 0.8,
      });
      let bytes = 0;
      for (let d = 0; d < radix; d++) {
        const source = withDigit(p, stage, d);
        if (source >= partitions) continue;
        const split = splits[source]![digit(p, stage)];
        if (split === undefined) continue;
        builder.addDependency(id, split);
        bytes += builder.nbytesOf(split);
      }
      builder.setNbytes(id, bytes);
      joins.push(id);
    }
    previous = joins;
  }
  // Inputs, splits and joins of one stage coexist: about twice the data at the peak. Give
  // each worker room for 1.2× its share, so the SpillBuffer (target 0.6) has to spill.
  const memoryLimit = Math.round((1.2 * totalBytes) / parameters.workers);
  return {
    name: "shuffle",
    description: DESCRIPTION,
    graph: builder.build("shuffle"),
    faults: [],
    cluster: { memoryLimit },
  };
}

export const shuffleWorkload: BuiltInWorkload = { description: DESCRIPTION, defaultSize: DEFAULT_SIZE, generate: shuffle };
