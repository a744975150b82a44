// Simulator benchmarks: `npm run bench -- sim [--only shuffle|map] [--shuffle-size N]
// [--map-sizes 10000,100000,1000000] [--workers N] [--in-process]`, or alone:
// `node --import tsx bench/sim.ts`. One JSON line per measurement on stdout.
//
// Each part (shuffle, map) runs in a fresh child process on an esbuild bundle of this file
// (plain `node --expose-gc`, as the state suite does): no tsx loader thread nor source-mapped
// stack traces in the timed region, and no heap left over from the other part.
//
// - shuffle: the built-in staged shuffle at 100,000 tasks on 16 workers (target ≤ 20 s wall
//   on a 2-core machine) under the default policy, dask with work stealing: wall and CPU seconds,
//   tasks per second, peak RSS and heap, the policy and its confirmed steals.
// - map: the cost per simulated task of the built-in `map` at 10k, 100k and 1M tasks (target:
//   constant within 30%). The client releases each result as it arrives (keepOutputs false)
//   and the report keeps 10,000 task records, so memory stays flat and the figure is the
//   per-task cost of scheduling, executing and metering.
import { fileURLToPath, pathToFileURL } from "node:url";
import { getHeapStatistics } from "node:v8";
import { simulate, type SimOptions } from "../src/sim/index.js";
import { parseSuiteOptions, runFromCommandLine, type OptionSpecs, type OptionValues } from "./options.js";
import { bundleForChild, collectGarbage, round, runChildJsonLines } from "./support.js";

interface Measurement {
  suite: "sim";
  name: string;
  tasks: number;
  workers: number;
  threads: number;
  wallSeconds: number;
  cpuSeconds: number;
  tasksPerSecond: number;
  microsecondsPerTask: number;
  simulatedSeconds: number;
  complete: boolean;
  /** The placement policy that ran (the default: dask with work stealing) and its confirmed steals. */
  scheduler: string;
  stealsConfirmed: number;
  peakRssMiB: number;
  peakHeapMiB: number;
}

// The heap figure of process.memoryUsage() without its RSS read (which costs ~0.5 ms here).
function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

export const OPTIONS = {
  only: { kind: "string", choices: ["shuffle", "map"] },
  "shuffle-size": { kind: "integer", default: 100_000 },
  "map-sizes": { kind: "integers", default: [10_000, 100_000, 1_000_000] },
  workers: { kind: "integer", default: 16 },
  "in-process": { kind: "boolean" },
  child: { kind: "boolean", internal: true },
} as const satisfies OptionSpecs;

type Options = OptionValues<typeof OPTIONS>;

export function parse(argv: readonly string[]): Options {
  return parseSuiteOptions("sim", OPTIONS, argv);
}

async function measure(name: string, workload: string, options: SimOptions): Promise<Measurement> {
  collectGarbage();
  let peakHeap = heapUsed();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const { report } = await simulate(workload, {
    ...options,
    onProgress: () => {
      const heap = heapUsed();
      if (heap > peakHeap) peakHeap = heap;
    },
  });
  const wallSeconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const heap = heapUsed();
  if (heap > peakHeap) peakHeap = heap;
  const tasks = report.tasks.total;
  return {
    suite: "sim",
    name,
    tasks,
    workers: report.workers,
    threads: report.threadsPerWorker,
    wallSeconds: round(wallSeconds, 3),
    cpuSeconds: round((cpu.user + cpu.system) / 1e6, 3),
    tasksPerSecond: Math.round(tasks / wallSeconds),
    microsecondsPerTask: round((wallSeconds * 1e6) / tasks, 1),
    simulatedSeconds: round(report.makespan, 3),
    complete: report.complete,
    scheduler: report.scheduler.policy,
    stealsConfirmed: report.scheduler.steals.confirmed,
    // maxRSS is the process's peak so far (KiB), so later measurements include earlier peaks.
    peakRssMiB: round(process.resourceUsage().maxRSS / 1024, 1),
    peakHeapMiB: round(peakHeap / 2 ** 20, 1),
  };
}


const SELF = fileURLToPath(import.meta.url);
const PARTS = ["shuffle", "map"] as const;

export async function run(argv: string[]): Promise<void> {
  const options = parse(argv);
  if (options.inProcess || options.child) {
    await measureParts(options);
    return;
  }
  const bundle = await bundleForChild(SELF, "sim");
  try {
    const rest = [`--shuffle-size=${options.shuffleSize}`, `--map-sizes=${options.mapSizes.join(",")}`, `--workers=${options.workers}`];
    for (const part of options.only === undefined ? PARTS : [options.only]) runChildJsonLines("sim", SELF, bundle, ["--child", `--only=${part}`, ...rest]);
  } finally {
    bundle?.cleanup();
  }
}

async function measureParts(options: Options): Promise<void> {
  const { only, workers } = options;
  if (only === undefined || only === "shuffle") {
    const size = options.shuffleSize;
    const result = await measure(`shuffle-${size}`, "shuffle", { size, workers, threads: 2, maxTaskRecords: 10_000, seed: 1 });
    console.log(JSON.stringify(result));
  }
  if (only === undefined || only === "map") {
    const sizes = options.mapSizes;
    // Warm-up so the first size does not pay for the JIT.
    await simulate("map", { size: 10_000, workers, keepOutputs: false, maxTaskRecords: 0 });
    for (const size of sizes) {
      const result = await measure(`map-${size}`, "map", { size, workers, threads: 2, keepOutputs: false, maxTaskRecords: 10_000, seed: 1 });
      console.log(JSON.stringify(result));
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runFromCommandLine(run);
