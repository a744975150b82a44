// The scheduler's knowledge of the cluster, shared by the core (which changes it) and the
// policy (which reads it through ClusterView): per worker its processing tasks, stored data
// and occupancy; per task its holders and size; per prefix the learnt duration; the
// bandwidth estimate. Occupancy follows dask 2022.12.1 (scheduler.md §4): counted per prefix,
// so a new duration estimate moves every worker's occupancy at once, plus the bytes of
// dependencies a worker still has to fetch (`needsWhat`) over the bandwidth estimate.
import type { TaskGraph } from "../graph.js";
import type { ClusterView, WorkerStatus, WorkerView } from "./policy.js";

/** dask's `distributed.scheduler.unknown-task-duration`. */
export const UNKNOWN_TASK_DURATION = 0.5;
/** dask's `distributed.scheduler.bandwidth`: the initial estimate, bytes/s. */
export const DEFAULT_BANDWIDTH_ESTIMATE = 100e6;
/** dask's `distributed.scheduler.default-task-durations` (2022.12.1). */
export const DEFAULT_TASK_DURATIONS: Readonly<Record<string, number>> = Object.freeze({ "rechunk-split": 1e-6, "split-shuffle": 1e-6 });

export class WorkerRecord implements WorkerView {
  status: WorkerStatus = "running";
  readonly processing = new Set<number>();
  readonly longRunning = new Set<number>();
  readonly hasWhat = new Set<number>();
  nbytes = 0;
  /** Processing, not long-running tasks per prefix id (zero counts deleted, as dask does). */
  readonly prefixCount = new Map<number, number>();
  /** Dependencies of its processing tasks it did not hold at assignment → how many need them. */
  readonly needsWhat = new Map<number, number>();
  networkOccupancy = 0;
  /** dask's `Worker.bandwidth`: the worker's own transfer-throughput estimate, sent with heartbeats. */
  transferBandwidth = DEFAULT_BANDWIDTH_ESTIMATE;

  constructor(
    readonly index: number,
    readonly address: string,
    readonly nthreads: number,
    private readonly cluster: ClusterState,
  ) {}

  get occupancy(): number {
    return this.cluster.occupancyOf(this.prefixCount, this.networkOccupancy);
  }
}

export class ClusterState implements ClusterView {
  readonly workers: WorkerRecord[];
  readonly byAddress: readonly number[];
  totalThreads = 0;
  workerCount = 0;
  runningCount = 0;
  bandwidth = DEFAULT_BANDWIDTH_ESTIMATE;
  assignments = 0;
  /** Per task: worker processing it, or -1. */
  readonly processingWorker: Int32Array;
  /** Per task: holders in arrival order, null when none. */
  private readonly holders: Array<number[] | null>;
  /** Tasks with two holders or more, in the order they got their second (dask's replicated_tasks). */
  readonly replicated = new Set<number>();
  /** Frozen address lists of the holders, built on demand and dropped when holders change. */
  private readonly holderAddresses: Array<readonly string[] | null>;
  readonly taskBytes: Float64Array;
  readonly prefixIds: Int32Array;
  readonly prefixNames: string[] = [];
  private readonly averages: number[] = [];
  private readonly maxExecTimes: number[] = [];
  private readonly globalPrefixCount = new Map<number, number>();
  private globalNetworkOccupancy = 0;
  private clockNow: () => number = () => 0;

  constructor(
    readonly graph: TaskGraph,
    workers: ReadonlyArray<{ address: string; nthreads: number }>,
  ) {
    const n = graph.size;
    this.workers = workers.map((w, i) => new WorkerRecord(i, w.address, w.nthreads, this));
    this.byAddress = this.workers
      .map((w) => w.index)
      .sort((a, b) => (this.workers[a]!.address < this.workers[b]!.address ? -1 : this.workers[a]!.address > this.workers[b]!.address ? 1 : a - b));
    for (const w of this.workers) this.totalThreads += w.nthreads;
    this.workerCount = this.workers.length;
    this.runningCount = this.workers.length;
    this.processingWorker = new Int32Array(n).fill(-1);
    this.holders = new Array<number[] | null>(n).fill(null);
    this.holderAddresses = new Array<readonly string[] | null>(n).fill(null);
    this.taskBytes = Float64Array.from(graph.nbytes);
    this.prefixIds = new Int32Array(n);
    const ids = new Map<string, number>();
    let last = "";
    let lastId = -1;
    for (let id = 0; id < n; id++) {
      const name = graph.prefix[id]!;
      // Consecutive tasks mostly share a prefix: skip the Map then.
      if (name !== last || lastId < 0) {
        let p = ids.get(name);
        if (p === undefined) {
          p = this.prefixNames.length;
          ids.set(name, p);
          this.prefixNames.push(name);
          this.averages.push(Object.hasOwn(DEFAULT_TASK_DURATIONS, name) ? DEFAULT_TASK_DURATIONS[name]! : -1);
          this.maxExecTimes.push(-1);
        }
        last = name;
        lastId = p;
      }
      this.prefixIds[id] = lastId;
    }
  }

  /** The simulated clock (for `now`); the default reads 0. */
  setClock(now: () => number): void {
    this.clockNow = now;
  }

  get now(): number {
    return this.clockNow();
  }

  get totalOccupancy(): number {
    return this.occupancyOf(this.globalPrefixCount, this.globalNetworkOccupancy);
  }

  // ---- ClusterView queries ----

  processingOn(task: number): number {
    return this.processingWorker[task]!;
  }

  whoHas(task: number): readonly number[] {
    return this.holders[task] ?? EMPTY;
  }

  nbytes(task: number): number {
    return this.taskBytes[task]!;
  }

  prefixOf(task: number): number {
    return this.prefixIds[task]!;
  }

  durationAverage(prefix: number): number {
    return this.averages[prefix]!;
  }

  maxExecTime(prefix: number): number {
    return this.maxExecTimes[prefix]!;
  }

  prefixDuration(prefix: number): number {
    const average = this.averages[prefix]!;
    if (average >= 0) return average;
    const max = this.maxExecTimes[prefix]!;
    return max > 0 ? 2 * max : UNKNOWN_TASK_DURATION;
  }

  missingBytes(task: number, worker: number): number {
    const g = this.graph;
    const has = this.workers[worker]!.hasWhat;
    let bytes = 0;
    for (let e = g.depStart[task]!; e < g.depStart[task + 1]!; e++) {
      const dep = g.deps[e]!;
      if (!has.has(dep)) bytes += this.taskBytes[dep]!;
    }
    return bytes;
  }

  commCost(task: number, worker: number): number {
    return this.missingBytes(task, worker) / this.bandwidth;
  }

  occupancyOf(prefixCount: ReadonlyMap<number, number>, networkOccupancy: number): number {
    let seconds = 0;
    for (const [prefix, count] of prefixCount) seconds += this.prefixDuration(prefix) * count;
    return seconds + networkOccupancy / this.bandwidth;
  }

  /** Holder addresses of a task, frozen and cached (what ComputeTaskEvent.whoHas carries). */
  addressesOf(task: number): readonly string[] {
    const cached = this.holderAddresses[task];
    if (cached !== null) return cached;
    const holders = this.holders[task];
    const addresses = Object.freeze(holders === null ? [] : holders.map((w) => this.workers[w]!.address));
    this.holderAddresses[task] = addresses;
    return addresses;
  }

  // ---- changes (the core's) ----

  /** dask's WorkerState.add_to_processing, plus `processing_on`. */
  addToProcessing(task: number, worker: number): void {
    const ws = this.workers[worker]!;
    const prefix = this.prefixIds[task]!;
    ws.prefixCount.set(prefix, (ws.prefixCount.get(prefix) ?? 0) + 1);
    this.globalPrefixCount.set(prefix, (this.globalPrefixCount.get(prefix) ?? 0) + 1);
    ws.processing.add(task);
    this.processingWorker[task] = worker;
    const g = this.graph;
    for (let e = g.depStart[task]!; e < g.depStart[task + 1]!; e++) {
      const dep = g.deps[e]!;
      if (ws.hasWhat.has(dep)) continue;
      const needs = ws.needsWhat.get(dep);
      if (needs === undefined) {
        ws.needsWhat.set(dep, 1);
        ws.networkOccupancy += this.taskBytes[dep]!;
        this.globalNetworkOccupancy += this.taskBytes[dep]!;
      } else {
        ws.needsWhat.set(dep, needs + 1);
      }
    }
  }

  /** dask's WorkerState.remove_from_processing; returns the worker it was on, or -1. */
  removeFromProcessing(task: number): number {
    const worker = this.processingWorker[task]!;
    if (worker < 0) return -1;
    const ws = this.workers[worker]!;
    if (!ws.longRunning.delete(task)) this.dropPrefixCount(ws, task);
    ws.processing.delete(task);
    this.processingWorker[task] = -1;
    const g = this.graph;
    for (let e = g.depStart[task]!; e < g.depStart[task + 1]!; e++) {
      const dep = g.deps[e]!;
      const needs = ws.needsWhat.get(dep);
      if (needs === undefined) continue;
      if (needs > 1) {
        ws.needsWhat.set(dep, needs - 1);
      } else {
        ws.needsWhat.delete(dep);
        ws.networkOccupancy -= this.taskBytes[dep]!;
        this.globalNetworkOccupancy -= this.taskBytes[dep]!;
      }
    }
    return worker;
  }

  /** dask's WorkerState.add_to_long_running: out of the prefix counts, still processing. */
  addToLongRunning(task: number): boolean {
    const worker = this.processingWorker[task]!;
    if (worker < 0) return false;
    const ws = this.workers[worker]!;
    if (ws.longRunning.has(task)) return false;
    this.dropPrefixCount(ws, task);
    ws.longRunning.add(task);
    return true;
  }

  private dropPrefixCount(ws: WorkerRecord, task: number): void {
    const prefix = this.prefixIds[task]!;
    const count = ws.prefixCount.get(prefix)!;
    if (count > 1) ws.prefixCount.set(prefix, count - 1);
    else ws.prefixCount.delete(prefix);
    const global = this.globalPrefixCount.get(prefix)!;
    if (global > 1) this.globalPrefixCount.set(prefix, global - 1);
    else this.globalPrefixCount.delete(prefix);
  }

  /** dask's add_replica: false when the worker already had it. */
  addReplica(task: number, worker: number): boolean {
    const ws = this.workers[worker]!;
    if (ws.hasWhat.has(task)) return false;
    const bytes = this.taskBytes[task]!;
    if (ws.needsWhat.delete(task)) {
      ws.networkOccupancy -= bytes;
      this.globalNetworkOccupancy -= bytes;
    }
    ws.hasWhat.add(task);
    ws.nbytes += bytes;
    this.holderAddresses[task] = null;
    const holders = this.holders[task];
    if (holders === null) this.holders[task] = [worker];
    else if (holders.push(worker) === 2) this.replicated.add(task);
    return true;
  }

  /** dask's remove_replica: false when the worker did not have it. */
  dropReplica(task: number, worker: number): boolean {
    const ws = this.workers[worker]!;
    if (!ws.hasWhat.delete(task)) return false;
    ws.nbytes -= this.taskBytes[task]!;
    this.holderAddresses[task] = null;
    const holders = this.holders[task]!;
    holders.splice(holders.indexOf(worker), 1);
    if (holders.length === 1) this.replicated.delete(task);
    else if (holders.length === 0) this.holders[task] = null;
    return true;
  }

  /** Forgets every holder of a released task (the workers are told separately). */
  dropAllReplicas(task: number): readonly number[] {
    const holders = this.holders[task];
    if (holders === null) return EMPTY;
    const bytes = this.taskBytes[task]!;
    for (const w of holders) {
      const ws = this.workers[w]!;
      ws.hasWhat.delete(task);
      ws.nbytes -= bytes;
    }
    this.holders[task] = null;
    this.holderAddresses[task] = null;
    this.replicated.delete(task);
    return holders;
  }

  /** A task-finished message's size. Its holders' stored bytes follow (dask's set_nbytes). */
  setNbytes(task: number, bytes: number): void {
    const diff = bytes - this.taskBytes[task]!;
    if (diff === 0) return;
    const holders = this.holders[task];
    if (holders !== null) for (const w of holders) this.workers[w]!.nbytes += diff;
    this.taskBytes[task] = bytes;
  }

  setStatus(worker: number, status: WorkerStatus): void {
    const ws = this.workers[worker]!;
    if (ws.status === status) return;
    if (ws.status === "running") this.runningCount--;
    if (status === "running") this.runningCount++;
    if (status === "closed") {
      this.workerCount--;
      this.totalThreads -= ws.nthreads;
    }
    ws.status = status;
  }

  // ---- learning (scheduler.md §2, §3) ----

  /** TaskPrefix.add_duration for one startstop of a task-finished message. */
  addDuration(prefix: number, action: string, start: number, stop: number): void {
    if (action !== "compute") return;
    const duration = stop - start;
    const old = this.averages[prefix]!;
    this.averages[prefix] = old < 0 ? duration : 0.5 * duration + 0.5 * old;
  }

  /** TaskPrefix.add_exec_time, from a heartbeat: a straggler makes the average unknown again. */
  addExecTime(prefix: number, runningFor: number): void {
    this.maxExecTimes[prefix] = Math.max(runningFor, this.maxExecTimes[prefix]!);
    if (runningFor > 2 * this.averages[prefix]!) this.averages[prefix] = -1;
  }

  /** handle_long_running's update from the seceded task's compute time so far. */
  addSecededDuration(prefix: number, computeDuration: number): void {
    const old = this.averages[prefix]!;
    this.averages[prefix] = old < 0 ? computeDuration : (old + computeDuration) / 2;
  }

  /** Worker.\_update_metrics_received_data: transfers over 1 MB move the worker's own estimate. */
  observeTransfer(worker: number, bytes: number, seconds: number): void {
    if (bytes <= 1_000_000) return;
    const ws = this.workers[worker]!;
    const duration = seconds || 0.01;
    ws.transferBandwidth = 0.95 * ws.transferBandwidth + (0.05 * bytes) / duration;
  }

  /** heartbeat_worker: the cluster estimate moves 1/N of the way to the worker's. */
  heartbeatBandwidth(worker: number): void {
    const fraction = 1 / this.workerCount;
    this.bandwidth = this.bandwidth * (1 - fraction) + this.workers[worker]!.transferBandwidth * fraction;
  }
}

const EMPTY: readonly number[] = Object.freeze([]);
