// The three workloads of /work/shared/bench/dask_wsm_bench.py (README.md beside it), with
// the same events, fields, order, limits and FIFO driver, run against an `Engine`: our
// WorkerState, or the no-state-machine floor (bench/state-floor.ts). Both get the same
// driver and the same count checks; the WorkerState also gets the state checks (every task
// forgotten, nothing queued, 6N transitions, …).
import {
  GatherDepSuccessEvent,
  WorkerState,
  type Instruction,
  type Key,
  type StateMachineEvent,
  type TaskState,
} from "../src/state/index.js";
import { FloorEngine } from "./state-floor.js";
import { computeEvent, EXEC_NBYTES, executeSuccessEvent, freeEvent, record } from "./state-events.js";

export const LOCAL_ADDRESS = "tcp://10.0.0.1:8000";
const remoteAddress = (r: number): string => `tcp://10.0.1.${r}:8000`;
export const NTHREADS = 4;
const TRANSFER_INCOMING_COUNT_LIMIT = 50;
const TRANSFER_MESSAGE_BYTES_LIMIT = 50_000_000;
const TRANSFER_INCOMING_BYTES_LIMIT = Infinity;

/** What the driver needs of the thing it drives. */
export interface Engine {
  handleStimulus(event: StateMachineEvent): readonly Instruction[];
  readonly executingCount: number;
  readonly tasks: ReadonlyMap<Key, TaskState>;
  readonly data: { has(key: Key): boolean; readonly size: number };
}

export type EngineKind = "state" | "floor";

function newEngine(kind: EngineKind): Engine {
  if (kind === "floor") {
    return new FloorEngine({
      nthreads: NTHREADS,
      transferIncomingCountLimit: TRANSFER_INCOMING_COUNT_LIMIT,
      transferMessageBytesLimit: TRANSFER_MESSAGE_BYTES_LIMIT,
      transferIncomingBytesLimit: TRANSFER_INCOMING_BYTES_LIMIT,
    });
  }
  return new WorkerState({
    nthreads: NTHREADS,
    address: LOCAL_ADDRESS,
    validate: false,
    transferIncomingCountLimit: TRANSFER_INCOMING_COUNT_LIMIT,
    transferMessageBytesLimit: TRANSFER_MESSAGE_BYTES_LIMIT,
    transferIncomingBytesLimit: TRANSFER_INCOMING_BYTES_LIMIT,
  });
}

// ---- driver ------------------------------------------------------------------------------

type Answerable = Extract<Instruction, { kind: "Execute" | "GatherDep" | "TaskFinishedMsg" }>;

/**
 * dask_wsm_bench.py's driver: every Execute and GatherDep returned (in W3 also every
 * TaskFinishedMsg) is queued; the front is popped and answered with its event until the
 * queue is empty. Everything else is counted and dropped.
 */
export class Driver {
  events = 0;
  readonly byKind = new Map<string, number>();
  private fifo: Answerable[] = [];
  private head = 0;
  readonly executeOrder: string[] = [];
  readonly gatherSizes: number[] = [];
  maxExecuting = 0;

  constructor(
    readonly engine: Engine,
    private readonly onTaskFinished: ((key: string) => StateMachineEvent | null) | null,
    private readonly onStep: StepObserver | null,
  ) {}

  send(event: StateMachineEvent): void {
    const instructions = this.engine.handleStimulus(event);
    this.events++;
    if (this.onStep !== null) this.onStep(event, instructions);
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
    const executing = this.engine.executingCount;
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

// ---- checks ------------------------------------------------------------------------------

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`bench state: check failed: ${message}`);
}

function checkMemory(engine: Engine, keys: readonly string[]): TaskState[] {
  const refs: TaskState[] = [];
  for (const key of keys) {
    const ts = engine.tasks.get(key);
    check(ts !== undefined && ts.state === "memory", `${key} in memory`);
    check(engine.data.has(key), `${key} in data`);
    refs.push(ts as TaskState);
  }
  check(engine.tasks.size === keys.length, `${engine.tasks.size} tasks, expected ${keys.length}`);
  return refs;
}

function checkAllForgotten(engine: Engine, refs: readonly TaskState[]): void {
  check(engine.tasks.size === 0, `${engine.tasks.size} tasks left after free`);
  check(engine.data.size === 0, `${engine.data.size} data keys left after free`);
  check(
    refs.every((ts) => ts.state === "forgotten"),
    "every task forgotten",
  );
  if (!(engine instanceof WorkerState)) return;
  const ws = engine;
  check(ws.nbytes === 0, `nbytes ${ws.nbytes}`);
  check(ws.executing.size === 0 && ws.ready.size === 0 && ws.waiting.size === 0, "nothing queued");
  check(ws.inFlightTasks.size === 0 && ws.inFlightWorkers.size === 0, "nothing in flight");
}

function checkTransitions(engine: Engine, expected: number, formula: string): void {
  if (engine instanceof WorkerState) check(engine.transitionCounter === expected, `transitions ${engine.transitionCounter} = ${formula}`);
}

function checkCounts(d: Driver, expect: Record<string, number>): void {
  const got: Record<string, number> = {};
  for (const [kind, n] of [...d.byKind].sort()) got[kind] = n;
  const want = Object.fromEntries(Object.entries(expect).sort());
  check(JSON.stringify(got) === JSON.stringify(want), `instructions ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
}

// ---- runs --------------------------------------------------------------------------------

export interface RunResult {
  workload: string;
  engine: EngineKind;
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
  extra: Record<string, number>;
}

const now = (): number => performance.now() / 1000;
export const cpuNow = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

/** Wall and CPU time of the two timed phases (compute, free); the check in between is not timed. */
class PhaseTimer {
  private wall0 = now();
  private cpu0 = cpuNow();
  computeSeconds = 0;
  freeSeconds = 0;
  cpuSeconds = 0;

  endCompute(): void {
    this.computeSeconds = now() - this.wall0;
    this.cpuSeconds = cpuNow() - this.cpu0;
  }

  startFree(): void {
    this.wall0 = now();
    this.cpu0 = cpuNow();
  }

  endFree(): void {
    this.freeSeconds = now() - this.wall0;
    this.cpuSeconds += cpuNow() - this.cpu0;
  }
}

/** Sees every event and the instructions it produced (`--trace`, the floor's tests). */
export type StepObserver = (event: StateMachineEvent, instructions: readonly Instruction[]) => void;

export interface RunOptions {
  readonly engine: EngineKind;
  readonly onStep: StepObserver | null;
  /** Called untimed at the end of the compute phase (the suite samples the heap there). */
  readonly afterCompute: () => void;
}

function result(
  name: string,
  n: number,
  d: Driver,
  timer: PhaseTimer,
  computeTransitions: number,
  options: RunOptions,
  extra: Record<string, number> = {},
): RunResult {
  const seconds = timer.computeSeconds + timer.freeSeconds;
  const byType: Record<string, number> = {};
  for (const [kind, count] of [...d.byKind].sort()) byType[kind] = count;
  return {
    workload: name,
    engine: options.engine,
    n,
    events: d.events,
    instructions: d.instructions(),
    transitions: d.engine instanceof WorkerState ? d.engine.transitionCounter : 0,
    seconds,
    events_per_s: d.events / seconds,
    compute_phase_seconds: timer.computeSeconds,
    free_phase_seconds: timer.freeSeconds,
    cpu_seconds: timer.cpuSeconds,
    compute_phase_transitions: computeTransitions,
    instructions_by_type: byType,
    extra,
  };
}

const transitionsSoFar = (engine: Engine): number => (engine instanceof WorkerState ? engine.transitionCounter : 0);

/** The end of W1 and W3: every task computed once and forgotten, three events and six transitions each. */
function checkedThreeEventsPerTask(
  name: string,
  n: number,
  d: Driver,
  refs: readonly TaskState[],
  timer: PhaseTimer,
  computeTransitions: number,
  options: RunOptions,
): RunResult {
  checkAllForgotten(d.engine, refs);
  checkCounts(d, { Execute: n, TaskFinishedMsg: n, ReleaseWorkerDataMsg: n });
  check(d.events === 3 * n, "events = 3N");
  checkTransitions(d.engine, 6 * n, "6N");
  return result(name, n, d, timer, computeTransitions, options);
}

/** W1: N independent tasks computed, then freed. */
export function runIndependent(n: number, options: RunOptions): RunResult {
  const keys = Array.from({ length: n }, (_, i) => `t-${i}`);
  const timer = new PhaseTimer();
  const engine = newEngine(options.engine);
  const d = new Driver(engine, null, options.onStep);
  for (let i = 0; i < n; i++) d.send(computeEvent(keys[i] as string, i));
  d.drain();
  timer.endCompute();

  options.afterCompute();
  const refs = checkMemory(engine, keys);
  check(d.executeOrder.length === n && d.executeOrder.every((k, i) => k === keys[i]), "executed in index order");
  check(d.maxExecuting <= NTHREADS, "at most nthreads executing");
  const computeTransitions = transitionsSoFar(engine);

  timer.startFree();
  for (const key of keys) d.send(freeEvent(key));
  timer.endFree();

  return checkedThreeEventsPerTask("independent", n, d, refs, timer, computeTransitions, options);
}

/** W2: N tasks with K dependencies each, gathered from R peers, then all freed. */
export function runGather(n: number, k: number, r: number, depNbytes: number, options: RunOptions): RunResult {
  const keys = Array.from({ length: n }, (_, i) => `t-${i}`);
  const depKeys = Array.from({ length: n }, (_, i) => Array.from({ length: k }, (_, j) => `d-${i}-${j}`));
  const workers = Array.from({ length: r }, (_, x) => remoteAddress(x));
  const timer = new PhaseTimer();
  const engine = newEngine(options.engine);
  const d = new Driver(engine, null, options.onStep);
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
  timer.endCompute();

  options.afterCompute();
  const allDepKeys = depKeys.flat();
  const refs = checkMemory(engine, [...keys, ...allDepKeys]);
  check(JSON.stringify([...d.executeOrder].sort()) === JSON.stringify([...keys].sort()), "every task executed once");
  check(d.maxExecuting <= NTHREADS, "at most nthreads executing");
  const gathered = d.gatherSizes.reduce((a, b) => a + b, 0);
  check(gathered === n * k, `gathered ${gathered} keys`);
  check(Math.max(...d.gatherSizes) <= Math.max(1, Math.floor(TRANSFER_MESSAGE_BYTES_LIMIT / depNbytes)), "message limit");
  const computeTransitions = transitionsSoFar(engine);

  timer.startFree();
  for (const key of keys) d.send(freeEvent(key));
  for (const key of allDepKeys) d.send(freeEvent(key));
  timer.endFree();

  checkAllForgotten(engine, refs);
  const g = d.gatherSizes.length;
  checkCounts(d, {
    GatherDep: g,
    AddKeysMsg: n * k,
    Execute: n,
    TaskFinishedMsg: n,
    ReleaseWorkerDataMsg: n + n * k,
  });
  check(d.events === n + g + n + n + n * k, "events = N + G + N + N + N·K");
  checkTransitions(engine, 6 * n + 5 * n * k, "6N + 5N·K");
  return result("gather", n, d, timer, computeTransitions, options, {
    k,
    r,
    dep_nbytes: depNbytes,
    gather_deps: g,
    gather_keys_max: Math.max(...d.gatherSizes),
    gather_keys_mean: Math.round((gathered / g) * 1000) / 1000,
  });
}

/** W3: a chain, each task computed when its predecessor's TaskFinishedMsg is popped; freed in reverse. */
export function runChain(n: number, options: RunOptions): RunResult {
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
  const timer = new PhaseTimer();
  const engine = newEngine(options.engine);
  const d = new Driver(engine, onFinished, options.onStep);
  d.send(computeEvent(keys[0] as string, 0));
  d.drain();
  timer.endCompute();

  options.afterCompute();
  const refs = checkMemory(engine, keys);
  check(d.executeOrder.length === n && d.executeOrder.every((k, i) => k === keys[i]), "executed in chain order");
  check(d.maxExecuting === 1, "one task executing at a time");
  const computeTransitions = transitionsSoFar(engine);

  timer.startFree();
  for (let i = n - 1; i >= 0; i--) d.send(freeEvent(keys[i] as string));
  timer.endFree();

  return checkedThreeEventsPerTask("chain", n, d, refs, timer, computeTransitions, options);
}
