// Built-in workloads: generators of task graphs with a size parameter and defaults small
// enough that `spanwork run <name>` takes a few seconds of wall time.
import { compileSpec } from "./compile.js";
import { sample } from "./distributions.js";
import { GraphBuilder, type TaskGraph } from "./graph.js";
import { formatLimit, LIMITS } from "./limits.js";
import { Rng } from "./rng.js";
import type { Distribution, FaultSpec, WorkloadSpec } from "./spec.js";

/** Cluster settings a workload suggests; run options override them. */
export interface ClusterDefaults {
  workers?: number;
  threads?: number;
  memoryLimit?: number | null;
  network?: "instant" | "latency-bandwidth" | "max-min";
  latency?: number;
  bandwidth?: number;
}

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

export interface BuiltInWorkload {
  /** One line for `spanwork list`. */
  readonly description: string;
  readonly defaultSize: number;
  generate(parameters: WorkloadParameters): Workload;
}

const MB = 1e6;

function lognormal(mean: number, sigma: number): Distribution {
  return { dist: "lognormal", mean, sigma };
}

function draw(distribution: Distribution, rng: Rng): number {
  return sample(distribution, rng);
}

function sizeOf(parameters: WorkloadParameters, fallback: number): number {
  const size = parameters.size ?? fallback;
  if (!Number.isInteger(size) || size < 1 || size > LIMITS.size) {
    throw new RangeError(`workload size must be an integer from 1 to ${formatLimit(LIMITS.size)}, got ${size}`);
  }
  return size;
}

function map(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, 2000);
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
  return { name: "map", description: BUILT_IN.map!.description, graph: builder.build("map"), faults: [], cluster: {} };
}

function treeReduce(parameters: WorkloadParameters): Workload {
  const leaves = sizeOf(parameters, 1024);
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
    description: BUILT_IN["tree-reduce"]!.description,
    graph: builder.build("tree-reduce"),
    faults: [],
    cluster: {},
  };
}

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
  const { partitions, stages } = shuffleShape(sizeOf(parameters, 2000), radix);
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
    description: BUILT_IN.shuffle!.description,
    graph: builder.build("shuffle"),
    faults: [],
    cluster: { memoryLimit },
  };
}

function chain(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, 200);
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
  return { name: "chain", description: BUILT_IN.chain!.description, graph: builder.build("chain"), faults: [], cluster: {} };
}

function randomDag(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, 1000);
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
    description: BUILT_IN["random-dag"]!.description,
    graph: builder.build("random-dag"),
    faults: [],
    cluster: {},
  };
}

function spillPressure(parameters: WorkloadParameters): Workload {
  const n = sizeOf(parameters, 256);
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
  const memoryLimit = Math.round(((n * 64 * MB) / parameters.workers / 4) / 0.6);
  return {
    name: "spill-pressure",
    description: BUILT_IN["spill-pressure"]!.description,
    graph: compileSpec(spec, parameters.seed),
    faults: [],
    cluster: { memoryLimit },
  };
}

const BUILT_IN: Record<string, BuiltInWorkload> = {
  map: { description: "embarrassingly parallel: size independent tasks (default 2000)", defaultSize: 2000, generate: map },
  "tree-reduce": {
    description: "size leaves (default 1024) reduced 8 at a time to one result",
    defaultSize: 1024,
    generate: treeReduce,
  },
  shuffle: {
    description: "all-to-all staged shuffle (radix 8) of about size tasks (default 2000); transfer- and spill-heavy",
    defaultSize: 2000,
    generate: shuffle,
  },
  chain: { description: "size tasks in one line, each needing the previous (default 200)", defaultSize: 200, generate: chain },
  "random-dag": {
    description: "size tasks (default 1000), each needing 0-3 random recent ones",
    defaultSize: 1000,
    generate: randomDag,
  },
  "spill-pressure": {
    description: "size 64 MB outputs (default 256) reduced 4 at a time, with memory for a quarter of them",
    defaultSize: 256,
    generate: spillPressure,
  },
};

/** Built-in workloads by name, in `spanwork list` order. */
export const builtInWorkloads: Readonly<Record<string, BuiltInWorkload>> = Object.freeze(BUILT_IN);

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
  return {
    name: spec.name ?? "workload",
    description: spec.description ?? "",
    graph: compileSpec(spec, seed),
    faults: spec.faults,
    cluster,
  };
}
