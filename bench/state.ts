// `npm run bench -- state [options]`: replays the three workloads of
// /work/shared/bench/dask_wsm_bench.py (README.md beside it) against our WorkerState, with
// the same events, fields, order, limits and FIFO driver (bench/state-workloads.ts), and
// prints one JSON line per workload: workload, n, events, instructions, transitions,
// seconds, events_per_s (median of --repeat runs by seconds), CPU seconds, peak heap and RSS
// — and beside it the workload's floor (bench/state-floor.ts: the same driver, events and
// instructions with no state machine), run in alternation with it in the same process:
// `ratio_to_floor` is the median over rounds of our events/s over the floor's.
//
// By default each workload runs in a fresh child process (`node` on an esbuild bundle of
// this file, so the numbers are not polluted by earlier workloads nor by tsx's loader
// thread); `--in-process` runs everything here, `--tsx-child` uses `node --import tsx`.
// Untimed warm-up runs come first (`--warmup N`, default 1, of each engine), so the timed
// runs measure compiled code as a long-running worker runs it; their seconds are reported
// (`warmup_runs_seconds`: the cold-JIT figure), and they alone measure the live heap.
//
//   npm run bench -- state
//   npm run bench -- state --only w1 --w1-n 100000 --repeat 1 --warmup 0 --engines state   # peak RSS
//   node --import tsx bench/state.ts --only w2 --w2-n 6 --trace   # every event and its output
//   npm run bench -- state --only w1 --w1-n 100000 --repeat 1 --node-flags=--optimize-for-size
//   npm run bench -- state --warmup 0      # no untimed run first (default 1: JIT warm-up, live heap)
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseSuiteOptions, runFromCommandLine, type OptionSpecs, type OptionValues } from "./options.js";
import { bundleForChild, collectGarbage, median, round, runChildJsonLines } from "./support.js";
import { formatEvent, formatInstruction } from "./state-trace.js";
import { cpuNow, runChain, runGather, runIndependent, type EngineKind, type RunOptions, type RunResult, type StepObserver } from "./state-workloads.js";

const WORKLOADS: readonly string[] = ["w1", "w2", "w3"];

export const OPTIONS = {
  "w1-n": { kind: "integer", default: 20_000 },
  "w2-n": { kind: "integer", default: 5_000 },
  "w3-n": { kind: "integer", default: 20_000 },
  "w2-k": { kind: "integer", default: 4 },
  "w2-r": { kind: "integer", default: 8 },
  "w2-dep-nbytes": { kind: "integer", default: 1_000_000 },
  repeat: { kind: "integer", default: 3 },
  only: { kind: "list", default: WORKLOADS, choices: WORKLOADS },
  /** Run here, not in a fresh child process per workload (`--child` is what children get). */
  "in-process": { kind: "boolean" },
  child: { kind: "boolean", internal: true },
  "tsx-child": { kind: "boolean" },
  /** Print every event and what it produced (implies --in-process; use a small N). */
  trace: { kind: "boolean" },
  /** Extra flags for the child `node`, space-separated (e.g. "--optimize-for-size"). */
  "node-flags": { kind: "string", default: "" },
  /** Untimed runs of each engine before the timed ones (JIT warm-up). */
  warmup: { kind: "integer", default: 1, min: 0 },
  /** What to run: the WorkerState, its floor, or both in alternation (ratio_to_floor). */
  engines: { kind: "list", default: ["state", "floor"], choices: ["state", "floor"] },
} as const satisfies OptionSpecs;

interface Options extends Omit<OptionValues<typeof OPTIONS>, "nodeFlags" | "child" | "engines"> {
  nodeFlags: string[];
  engines: EngineKind[];
}

export function parseOptions(argv: readonly string[]): Options {
  const { child, nodeFlags, engines, ...values } = parseSuiteOptions("state", OPTIONS, argv);
  return {
    ...values,
    engines: (["state", "floor"] as const).filter((engine) => engines.includes(engine)),
    inProcess: values.inProcess || child || values.trace,
    nodeFlags: nodeFlags.split(/\s+/).filter((flag) => flag.length > 0),
  };
}

// ---- heap sampling -----------------------------------------------------------------------

let peakHeapUsed = 0;
let peakLiveHeap: number | null = null;
/** Set during the WorkerState's untimed warm-up runs: only they pay for a full collection. */
let measureLiveHeap = false;
/**
 * Heap in use at the end of the compute phase (the peak of live tasks). In warm-up runs,
 * also after a full GC (the live heap): a full collection deoptimizes the code that
 * referenced dead objects (bench/support.ts), so timed runs never do one.
 */
function sampleHeap(): void {
  const used = process.memoryUsage().heapUsed;
  if (used > peakHeapUsed) peakHeapUsed = used;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (measureLiveHeap && gc !== undefined) {
    gc();
    const live = process.memoryUsage().heapUsed;
    if (peakLiveHeap === null || live > peakLiveHeap) peakLiveHeap = live;
  }
}

// ---- runs --------------------------------------------------------------------------------

function runWorkload(name: string, options: Options, engine: EngineKind, onStep: StepObserver | null): RunResult {
  const run: RunOptions = { engine, onStep, afterCompute: sampleHeap };
  switch (name) {
    case "w1":
      return runIndependent(options.w1N, run);
    case "w2":
      return runGather(options.w2N, options.w2K, options.w2R, options.w2DepNbytes, run);
    default:
      return runChain(options.w3N, run);
  }
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`bench state: check failed: ${message}`);
}

const range = (values: readonly number[], digits: number): [number, number] => [
  round(Math.min(...values), digits),
  round(Math.max(...values), digits),
];

/**
 * Warm-up, then `repeat` rounds of the chosen engines (the WorkerState and its floor by
 * default, alternating which goes first); the median run (by seconds) of the first engine
 * as one JSON object, with the floor's median and the per-round ratios when both ran.
 */
function runRepeated(name: string, options: Options): Record<string, unknown> {
  const engines = options.engines;
  const primary = engines[0] as EngineKind;
  const warmupSeconds: number[] = [];
  for (let i = 0; i < options.warmup; i++) {
    for (const engine of engines) {
      collectGarbage();
      measureLiveHeap = engine === primary;
      const seconds = runWorkload(name, options, engine, null).seconds;
      if (engine === primary) warmupSeconds.push(round(seconds, 4));
      measureLiveHeap = false;
    }
  }
  const runsOf: Record<EngineKind, RunResult[]> = { state: [], floor: [] };
  for (let i = 0; i < options.repeat; i++) {
    for (const engine of i % 2 === 0 ? engines : [...engines].reverse()) {
      collectGarbage();
      const cpu0 = cpuNow();
      const run = runWorkload(name, options, engine, null);
      run.extra["process_cpu_seconds_incl_checks"] = round(cpuNow() - cpu0, 4);
      runsOf[engine].push(run);
    }
  }
  const runs = runsOf[primary];
  const first = runs[0] as RunResult;
  for (const field of ["events", "instructions", "transitions"] as const) {
    check(
      runs.every((r) => r[field] === first[field]),
      `${field} differ between repeats`,
    );
  }
  const both = engines.length === 2;
  const floors = runsOf.floor;
  for (const floor of both ? floors : []) {
    check(floor.events === first.events, `the floor handled ${floor.events} events, the WorkerState ${first.events}`);
    check(JSON.stringify(floor.instructions_by_type) === JSON.stringify(first.instructions_by_type), "the floor's instructions differ");
  }
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const mid = sorted[sorted.length >> 1] as RunResult;
  const { extra, ...fields } = mid;
  const memory = process.memoryUsage();
  const floorFields: Record<string, unknown> = {};
  if (both) {
    const ratios = runs.map((r, i) => r.events_per_s / (floors[i] as RunResult).events_per_s);
    const cpuRatios = runs.map((r, i) => (floors[i] as RunResult).cpu_seconds / r.cpu_seconds);
    Object.assign(floorFields, {
      ratio_to_floor: round(median(ratios), 3),
      ratio_to_floor_range: range(ratios, 3),
      ratio_to_floor_cpu: round(median(cpuRatios), 3),
      ratio_to_floor_cpu_range: range(cpuRatios, 3),
      floor_events_per_s: round(median(floors.map((f) => f.events_per_s)), 1),
      floor_cpu_seconds: round(median(floors.map((f) => f.cpu_seconds)), 4),
    });
  }
  return {
    ...fields,
    seconds: round(mid.seconds, 4),
    events_per_s: round(mid.events_per_s, 1),
    compute_phase_seconds: round(mid.compute_phase_seconds, 4),
    free_phase_seconds: round(mid.free_phase_seconds, 4),
    cpu_seconds: round(mid.cpu_seconds, 4),
    cpu_seconds_min: round(Math.min(...runs.map((r) => r.cpu_seconds)), 4),
    ...floorFields,
    ...extra,
    seconds_all_runs: sorted.map((r) => round(r.seconds, 4)),
    seconds_min: round((sorted[0] as RunResult).seconds, 4),
    events_per_s_max: round((sorted[0] as RunResult).events_per_s, 1),
    repeat: options.repeat,
    warmup_runs_seconds: warmupSeconds,
    peak_heap_used_bytes: peakHeapUsed,
    live_heap_after_compute_bytes: peakLiveHeap,
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    heap_total_bytes_at_end: memory.heapTotal,
    impl: `${engines.map((e) => (e === "state" ? "spanwork WorkerState" : "its floor (bench/state-floor.ts)")).join(" and ")} / node ${process.version}`,
  };
}

/** `--trace`: one run of the WorkerState, every event and its instructions. */
function traceLines(name: string, options: Options): string[] {
  const lines: string[] = [];
  runWorkload(name, options, "state", (event, instructions) => {
    lines.push(formatEvent(event));
    for (const ins of instructions) lines.push(`        -> ${formatInstruction(ins)}`);
  });
  return lines;
}

// ---- child processes ---------------------------------------------------------------------

const SELF = fileURLToPath(import.meta.url);

function childArgs(options: Options, workload: string): string[] {
  const args = [
    "--child",
    `--only=${workload}`,
    `--w1-n=${options.w1N}`,
    `--w2-n=${options.w2N}`,
    `--w3-n=${options.w3N}`,
    `--w2-k=${options.w2K}`,
    `--w2-r=${options.w2R}`,
    `--w2-dep-nbytes=${options.w2DepNbytes}`,
    `--repeat=${options.repeat}`,
    `--warmup=${options.warmup}`,
  ];
  args.push(`--engines=${options.engines.join(",")}`);
  return args;
}

export async function run(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  if (options.inProcess) {
    for (const name of options.only) {
      if (options.trace) for (const line of traceLines(name, options)) console.log(line);
      console.log(JSON.stringify({ ...runRepeated(name, options), process: "in-process" }));
    }
    return;
  }
  const bundle = options.tsxChild ? null : await bundleForChild(SELF, "state");
  try {
    for (const name of options.only) runChildJsonLines("state", SELF, bundle, childArgs(options, name), options.nodeFlags);
  } finally {
    bundle?.cleanup();
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) await runFromCommandLine(run);
