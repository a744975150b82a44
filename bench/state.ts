// `npm run bench -- state [options]`: replays the three workloads of
// /work/shared/bench/dask_wsm_bench.py (README.md beside it) against our WorkerState, with
// the same events, fields, order, limits and FIFO driver, and prints one JSON line per
// workload: workload, n, events, instructions, transitions, seconds, events_per_s (median
// of --repeat runs by seconds), plus peak heap and RSS.
//
// By default each workload runs in a fresh child process (`node` on an esbuild bundle of
// this file, so the numbers are not polluted by earlier workloads nor by tsx's loader
// thread); `--in-process` runs everything here, `--tsx-child` uses `node --import tsx`.
// One untimed warm-up run per workload comes first (`--warmup N`, default 1), so the timed
// runs measure compiled code as a long-running worker runs it; its seconds are reported
// (`warmup_runs_seconds`: the cold-JIT figure), and it alone measures the live heap.
//
//   npm run bench -- state
//   npm run bench -- state --only w1 --w1-n 100000 --repeat 1
//   node --import tsx bench/state.ts --only w2 --w2-n 6 --trace   # every event and its output
//   npm run bench -- state --only w1 --w1-n 100000 --repeat 1 --node-flags=--optimize-for-size
//   npm run bench -- state --warmup 0      # no untimed run first (default 1: JIT warm-up, live heap)
//   npm run bench -- state --only w1,w1-floor   # W1 beside its floor (no state machine: state-floor.ts)
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDepSuccessEvent,
  WorkerState,
  type Instruction,
  type StateMachineEvent,
  type TaskState,
} from "../src/state/index.js";
import { floorIndependent } from "./state-floor.js";
import { computeEvent, EXEC_NBYTES, executeSuccessEvent, freeEvent, record } from "./state-events.js";
import { parseSuiteOptions, runFromCommandLine, type OptionSpecs, type OptionValues } from "./options.js";
import { bundleForChild, collectGarbage, round, runChildJsonLines } from "./support.js";

const LOCAL_ADDRESS = "tcp://10.0.0.1:8000";
const remoteAddress = (r: number): string => `tcp://10.0.1.${r}:8000`;
const NTHREADS = 4;
const TRANSFER_INCOMING_COUNT_LIMIT = 50;
const TRANSFER_MESSAGE_BYTES_LIMIT = 50_000_000;
const TRANSFER_INCOMING_BYTES_LIMIT = Infinity;

/** The three workloads, and `w1-floor`: W1 with no state machine (bench/state-floor.ts). */
const WORKLOADS: readonly string[] = ["w1", "w2", "w3", "w1-floor"];

export const OPTIONS = {
  "w1-n": { kind: "integer", default: 20_000 },
  "w2-n": { kind: "integer", default: 5_000 },
  "w3-n": { kind: "integer", default: 20_000 },
  "w2-k": { kind: "integer", default: 4 },
  "w2-r": { kind: "integer", default: 8 },
  "w2-dep-nbytes": { kind: "integer", default: 1_000_000 },
  repeat: { kind: "integer", default: 3 },
  only: { kind: "list", default: ["w1", "w2", "w3"], choices: WORKLOADS },
  /** Run here, not in a fresh child process per workload (`--child` is what children get). */
  "in-process": { kind: "boolean" },
  child: { kind: "boolean", internal: true },
  "tsx-child": { kind: "boolean" },
  /** Print every event and what it produced (implies --in-process; use a small N). */
  trace: { kind: "boolean" },
  /** Extra flags for the child `node`, space-separated (e.g. "--optimize-for-size"). */
  "node-flags": { kind: "string", default: "" },
  /** Untimed runs of the same workload before the timed ones (JIT warm-up). */
  warmup: { kind: "integer", default: 1, min: 0 },
} as const satisfies OptionSpecs;

interface Options extends Omit<OptionValues<typeof OPTIONS>, "nodeFlags" | "child"> {
  nodeFlags: string[];
}

export function parseOptions(argv: readonly string[]): Options {
  const { child, nodeFlags, ...values } = parseSuiteOptions("state", OPTIONS, argv);
  return {
    ...values,
    inProcess: values.inProcess || child || values.trace,
    nodeFlags: nodeFlags.split(/\s+/).filter((flag) => flag.length > 0),
  };
}

// ---- driver ------------------------------------------------------------------------------

type Answerable = Extract<Instruction, { kind: "Execute" | "GatherDep" | "TaskFinishedMsg" }>;

class Driver {
  events = 0;
  readonly byKind = new Map<string, number>();
  private fifo: Answerable[] = [];
  private head = 0;
  readonly executeOrder: string[] = [];
  readonly gatherSizes: number[] = [];
  maxExecuting = 0;
  readonly trace: string[] | null;

  constructor(
    readonly ws: WorkerState,
    private readonly onTaskFinished: ((key: string) => StateMachineEvent | null) | null = null,
    trace = false,
  ) {
    this.trace = trace ? [] : null;
  }

  send(event: StateMachineEvent): void {
    const instructions = this.ws.handleStimulus(event);
    this.events++;
    if (this.trace !== null) this.trace.push(formatEvent(event), ...instructions.map((i) => `        -> ${formatInstruction(i)}`));
    const byKind = this.byKind;
    // Indexed (like the state machine's hot loops): an array iterator is not always optimised away.
    for (let i = 0; i < instructions.length; i++) {
      const ins = instructions[i] as Instruction;
      byKind.set(ins.kind, (byKind.get(ins.kind) ?? 0) + 1);
      if (ins.kind === "Execute") {
        this.fifo.push(ins);
        this.executeOrder.push(ins.key);
      } else if (ins.kind === "GatherDep") {
        this.fifo.push(ins);
        this.gatherSizes.push(ins.toGather.length);
      } else if (ins.kind === "TaskFinishedMsg" && this.onTaskFinished !== null) {
        this.fifo.push(ins);
      }
    }
    const executing = this.ws.executingCount;
    if (executing > this.maxExecuting) this.maxExecuting = executing;
  }

  drain(): void {
    while (this.head < this.fifo.length) {
      const ins = this.fifo[this.head++] as Answerable;
      if (this.head > 4096 && this.head * 2 > this.fifo.length) {
        this.fifo = this.fifo.slice(this.head);
        this.head = 0;
      }
      if (ins.kind === "Execute") {
        this.send(executeSuccessEvent(ins.key));
      } else if (ins.kind === "GatherDep") {
        const data = record<null>();
        const keys = ins.toGather;
        for (let i = 0; i < keys.length; i++) data[keys[i] as string] = null;
        this.send(
          GatherDepSuccessEvent({
            worker: ins.worker,
            totalNbytes: ins.totalNbytes,
            data,
            stimulusId: `gather-${this.gatherSizes.length}-${ins.worker}`,
          }),
        );
      } else {
        const next = (this.onTaskFinished as (key: string) => StateMachineEvent | null)(ins.key);
        if (next !== null) this.send(next);
      }
    }
  }

  instructions(): number {
    let total = 0;
    for (const [kind, n] of this.byKind) if (kind !== "DigestMetric") total += n;
    return total;
  }
}

function formatEvent(ev: StateMachineEvent): string {
  switch (ev.kind) {
    case "ComputeTaskEvent": {
      const deps = Object.keys(ev.whoHas)
        .sort()
        .map((k) => `${k}@${(ev.whoHas[k] as readonly string[]).join("|")}`)
        .join(",");
      return `${ev.kind} ${ev.key} prio=[${ev.priority.join(", ")}] deps=[${deps}]`;
    }
    case "ExecuteSuccessEvent":
      return `${ev.kind} ${ev.key} nbytes=${ev.nbytes}`;
    case "GatherDepSuccessEvent":
      return `${ev.kind} ${ev.worker} keys=[${Object.keys(ev.data).sort().join(", ")}] total_nbytes=${ev.totalNbytes}`;
    case "FreeKeysEvent":
      return `${ev.kind} keys=[${ev.keys.join(", ")}]`;
    default:
      return ev.kind;
  }
}

function formatInstruction(ins: Instruction): string {
  switch (ins.kind) {
    case "GatherDep":
      return `${ins.kind} ${ins.worker} keys=[${[...ins.toGather].sort().join(", ")}] total_nbytes=${ins.totalNbytes}`;
    case "TaskFinishedMsg":
      return `${ins.kind} ${ins.key} nbytes=${ins.nbytes}`;
    default:
      if ("key" in ins) return `${ins.kind} ${ins.key}`;
      if ("keys" in ins) return `${ins.kind} keys=[${[...ins.keys].sort().join(", ")}]`;
      return ins.kind;
  }
}

// ---- workloads ---------------------------------------------------------------------------

function newState(): WorkerState {
  return new WorkerState({
    nthreads: NTHREADS,
    address: LOCAL_ADDRESS,
    validate: false,
    transferIncomingCountLimit: TRANSFER_INCOMING_COUNT_LIMIT,
    transferMessageBytesLimit: TRANSFER_MESSAGE_BYTES_LIMIT,
    transferIncomingBytesLimit: TRANSFER_INCOMING_BYTES_LIMIT,
  });
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`bench state: check failed: ${message}`);
}

function checkMemory(ws: WorkerState, keys: readonly string[]): TaskState[] {
  const refs: TaskState[] = [];
  for (const key of keys) {
    const ts = ws.tasks.get(key);
    check(ts !== undefined && ts.state === "memory", `${key} in memory`);
    check(ws.data.has(key), `${key} in data`);
    refs.push(ts as TaskState);
  }
  check(ws.tasks.size === keys.length, `${ws.tasks.size} tasks, expected ${keys.length}`);
  return refs;
}

function checkAllForgotten(ws: WorkerState, refs: readonly TaskState[]): void {
  check(ws.tasks.size === 0, `${ws.tasks.size} tasks left after free`);
  check(ws.data.size === 0, `${ws.data.size} data keys left after free`);
  check(
    refs.every((ts) => ts.state === "forgotten"),
    "every task forgotten",
  );
  check(ws.nbytes === 0, `nbytes ${ws.nbytes}`);
  check(ws.executing.size === 0 && ws.ready.size === 0 && ws.waiting.size === 0, "nothing queued");
  check(ws.inFlightTasks.size === 0 && ws.inFlightWorkers.size === 0, "nothing in flight");
}

function checkCounts(d: Driver, expect: Record<string, number>): void {
  const got: Record<string, number> = {};
  for (const [kind, n] of [...d.byKind].sort()) got[kind] = n;
  const want = Object.fromEntries(Object.entries(expect).sort());
  check(JSON.stringify(got) === JSON.stringify(want), `instructions ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
}

interface RunResult {
  workload: string;
  n: number;
  events: number;
  instructions: number;
  transitions: number;
  seconds: number;
  events_per_s: number;
  compute_phase_seconds: number;
  free_phase_seconds: number;
  /** CPU time of the process (all threads, GC helpers included) over the timed region. */
  cpu_seconds: number;
  compute_phase_transitions: number;
  instructions_by_type: Record<string, number>;
  peak_heap_used_bytes: number;
  extra: Record<string, number>;
  trace?: string[];
}

let peakHeapUsed = 0;
let peakLiveHeap: number | null = null;
/** Set during the untimed warm-up runs: only they pay for a full collection (see below). */
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

function result(
  name: string,
  n: number,
  d: Driver,
  ws: WorkerState,
  tCompute: number,
  tFree: number,
  cpuSeconds: number,
  computeTransitions: number,
  extra: Record<string, number> = {},
): RunResult {
  const seconds = tCompute + tFree;
  const byType: Record<string, number> = {};
  for (const [kind, count] of [...d.byKind].sort()) byType[kind] = count;
  return {
    workload: name,
    n,
    events: d.events,
    instructions: d.instructions(),
    transitions: ws.transitionCounter,
    seconds,
    events_per_s: d.events / seconds,
    compute_phase_seconds: tCompute,
    free_phase_seconds: tFree,
    cpu_seconds: cpuSeconds,
    compute_phase_transitions: computeTransitions,
    instructions_by_type: byType,
    peak_heap_used_bytes: peakHeapUsed,
    extra,
    ...(d.trace === null ? {} : { trace: d.trace }),
  };
}

const now = (): number => performance.now() / 1000;
const cpuNow = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

function workloadIndependent(n: number, trace: boolean): RunResult {
  const keys = Array.from({ length: n }, (_, i) => `t-${i}`);
  const tStart = now();
  const cpuStart = cpuNow();
  const ws = newState();
  const d = new Driver(ws, null, trace);
  for (let i = 0; i < n; i++) d.send(computeEvent(keys[i] as string, i));
  d.drain();
  const tCompute = now() - tStart;
  const cpuCompute = cpuNow() - cpuStart;

  sampleHeap();
  const refs = checkMemory(ws, keys);
  check(d.executeOrder.length === n && d.executeOrder.every((k, i) => k === keys[i]), "executed in index order");
  check(d.maxExecuting <= NTHREADS, "at most nthreads executing");
  const computeTransitions = ws.transitionCounter;

  const t1 = now();
  const cpu1 = cpuNow();
  for (const key of keys) d.send(freeEvent(key));
  const tFree = now() - t1;
  const cpuSeconds = cpuCompute + cpuNow() - cpu1;

  checkAllForgotten(ws, refs);
  checkCounts(d, { Execute: n, TaskFinishedMsg: n, ReleaseWorkerDataMsg: n });
  check(d.events === 3 * n, "events = 3N");
  check(ws.transitionCounter === 6 * n, `transitions ${ws.transitionCounter} = 6N`);
  return result("independent", n, d, ws, tCompute, tFree, cpuSeconds, computeTransitions);
}

function workloadGather(n: number, k: number, r: number, depNbytes: number, trace: boolean): RunResult {
  const keys = Array.from({ length: n }, (_, i) => `t-${i}`);
  const depKeys = Array.from({ length: n }, (_, i) => Array.from({ length: k }, (_, j) => `d-${i}-${j}`));
  const workers = Array.from({ length: r }, (_, x) => remoteAddress(x));
  const tStart = now();
  const cpuStart = cpuNow();
  const ws = newState();
  const d = new Driver(ws, null, trace);
  for (let i = 0; i < n; i++) {
    const deps = depKeys[i] as string[];
    const whoHas = record<string[]>();
    const nbytes = record<number>();
    for (let j = 0; j < k; j++) {
      whoHas[deps[j] as string] = [workers[(i * k + j) % r] as string];
      nbytes[deps[j] as string] = depNbytes;
    }
    d.send(computeEvent(keys[i] as string, i, whoHas, nbytes));
  }
  d.drain();
  const tCompute = now() - tStart;
  const cpuCompute = cpuNow() - cpuStart;

  sampleHeap();
  const allDepKeys = depKeys.flat();
  const refs = checkMemory(ws, [...keys, ...allDepKeys]);
  check(JSON.stringify([...d.executeOrder].sort()) === JSON.stringify([...keys].sort()), "every task executed once");
  check(d.maxExecuting <= NTHREADS, "at most nthreads executing");
  const gathered = d.gatherSizes.reduce((a, b) => a + b, 0);
  check(gathered === n * k, `gathered ${gathered} keys`);
  check(Math.max(...d.gatherSizes) <= Math.max(1, Math.floor(TRANSFER_MESSAGE_BYTES_LIMIT / depNbytes)), "message limit");
  const computeTransitions = ws.transitionCounter;

  const t1 = now();
  const cpu1 = cpuNow();
  for (const key of keys) d.send(freeEvent(key));
  for (const key of allDepKeys) d.send(freeEvent(key));
  const tFree = now() - t1;
  const cpuSeconds = cpuCompute + cpuNow() - cpu1;

  checkAllForgotten(ws, refs);
  const g = d.gatherSizes.length;
  checkCounts(d, {
    GatherDep: g,
    AddKeysMsg: n * k,
    Execute: n,
    TaskFinishedMsg: n,
    ReleaseWorkerDataMsg: n + n * k,
  });
  check(d.events === n + g + n + n + n * k, "events = N + G + N + N + N·K");
  check(ws.transitionCounter === 6 * n + 5 * n * k, `transitions ${ws.transitionCounter} = 6N + 5N·K`);
  return result("gather", n, d, ws, tCompute, tFree, cpuSeconds, computeTransitions, {
    k,
    r,
    dep_nbytes: depNbytes,
    gather_deps: g,
    gather_keys_max: Math.max(...d.gatherSizes),
    gather_keys_mean: Math.round((gathered / g) * 1000) / 1000,
  });
}

function workloadChain(n: number, trace: boolean): RunResult {
  const keys = Array.from({ length: n }, (_, i) => `t-${i}`);
  const onFinished = (key: string): StateMachineEvent | null => {
    const i = Number(key.slice(2)) + 1;
    if (i >= n) return null;
    const dep = keys[i - 1] as string;
    const whoHas = record<string[]>();
    whoHas[dep] = [LOCAL_ADDRESS];
    const nbytes = record<number>();
    nbytes[dep] = EXEC_NBYTES;
    return computeEvent(keys[i] as string, i, whoHas, nbytes);
  };
  const tStart = now();
  const cpuStart = cpuNow();
  const ws = newState();
  const d = new Driver(ws, onFinished, trace);
  d.send(computeEvent(keys[0] as string, 0));
  d.drain();
  const tCompute = now() - tStart;
  const cpuCompute = cpuNow() - cpuStart;

  sampleHeap();
  const refs = checkMemory(ws, keys);
  check(d.executeOrder.length === n && d.executeOrder.every((k, i) => k === keys[i]), "executed in chain order");
  check(d.maxExecuting === 1, "one task executing at a time");
  const computeTransitions = ws.transitionCounter;

  const t1 = now();
  const cpu1 = cpuNow();
  for (let i = n - 1; i >= 0; i--) {
    const key = keys[i] as string;
    d.send(freeEvent(key));
  }
  const tFree = now() - t1;
  const cpuSeconds = cpuCompute + cpuNow() - cpu1;

  checkAllForgotten(ws, refs);
  checkCounts(d, { Execute: n, TaskFinishedMsg: n, ReleaseWorkerDataMsg: n });
  check(d.events === 3 * n, "events = 3N");
  check(ws.transitionCounter === 6 * n, `transitions ${ws.transitionCounter} = 6N`);
  return result("chain", n, d, ws, tCompute, tFree, cpuSeconds, computeTransitions);
}

function floorResult(n: number): RunResult {
  const run = floorIndependent(n, sampleHeap);
  const seconds = run.computeSeconds + run.freeSeconds;
  return {
    workload: "independent-floor",
    n,
    events: run.events,
    instructions: run.instructions,
    transitions: 0,
    seconds,
    events_per_s: run.events / seconds,
    compute_phase_seconds: run.computeSeconds,
    free_phase_seconds: run.freeSeconds,
    cpu_seconds: run.cpuSeconds,
    compute_phase_transitions: 0,
    instructions_by_type: run.instructionsByType,
    peak_heap_used_bytes: peakHeapUsed,
    extra: {},
  };
}

function runWorkload(name: string, options: Options): RunResult {
  switch (name) {
    case "w1":
      return workloadIndependent(options.w1N, options.trace);
    case "w1-floor":
      return floorResult(options.w1N);
    case "w2":
      return workloadGather(options.w2N, options.w2K, options.w2R, options.w2DepNbytes, options.trace);
    default:
      return workloadChain(options.w3N, options.trace);
  }
}

/** Runs `repeat` times in this process; the median run (by seconds) as one JSON object. */
function runRepeated(name: string, options: Options): Record<string, unknown> {
  const warmupSeconds: number[] = [];
  for (let i = 0; i < options.warmup; i++) {
    collectGarbage();
    measureLiveHeap = true;
    warmupSeconds.push(round(runWorkload(name, options).seconds, 4));
    measureLiveHeap = false;
  }
  const runs: RunResult[] = [];
  for (let i = 0; i < options.repeat; i++) {
    collectGarbage();
    const cpu0 = cpuNow();
    const run = runWorkload(name, options);
    run.extra["process_cpu_seconds_incl_checks"] = round(cpuNow() - cpu0, 4);
    runs.push(run);
  }
  for (const field of ["events", "instructions", "transitions"] as const) {
    check(
      runs.every((r) => r[field] === (runs[0] as RunResult)[field]),
      `${field} differ between repeats`,
    );
  }
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const median = sorted[sorted.length >> 1] as RunResult;
  const { extra, trace, ...fields } = median;
  const memory = process.memoryUsage();
  return {
    ...fields,
    seconds: round(median.seconds, 4),
    events_per_s: round(median.events_per_s, 1),
    compute_phase_seconds: round(median.compute_phase_seconds, 4),
    free_phase_seconds: round(median.free_phase_seconds, 4),
    cpu_seconds: round(median.cpu_seconds, 4),
    cpu_seconds_min: round(Math.min(...runs.map((r) => r.cpu_seconds)), 4),
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
    impl: name === "w1-floor" ? `floor (no state machine: bench/state-floor.ts) / node ${process.version}` : `spanwork WorkerState / node ${process.version}`,
    ...(trace === undefined ? {} : { trace }),
  };
}

// ---- child processes ---------------------------------------------------------------------

const SELF = fileURLToPath(import.meta.url);

function childArgs(options: Options, workload: string): string[] {
  return [
    "--child",
    "--only",
    workload,
    "--w1-n",
    String(options.w1N),
    "--w2-n",
    String(options.w2N),
    "--w3-n",
    String(options.w3N),
    "--w2-k",
    String(options.w2K),
    "--w2-r",
    String(options.w2R),
    "--w2-dep-nbytes",
    String(options.w2DepNbytes),
    "--repeat",
    String(options.repeat),
    "--warmup",
    String(options.warmup),
  ];
}

export async function run(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  if (options.inProcess) {
    for (const name of options.only) {
      const res = runRepeated(name, options);
      if (options.trace) {
        for (const line of (res["trace"] as string[] | undefined) ?? []) console.log(line);
        delete res["trace"];
      }
      console.log(JSON.stringify({ ...res, process: "in-process" }));
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
