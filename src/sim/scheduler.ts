// A small but real dask-style scheduler for the simulator. It owns the cluster-wide view of
// every task (waiting, queued, processing, in memory, erred, released) and talks to the
// workers only through the contract's events (ComputeTaskEvent, FreeKeysEvent, …) and the
// messages their WorkerState emits (task-finished, task-erred, add-keys, …).
//
// Policies, after dask's scheduler with its defaults:
// - a task is sent once all its dependencies are in memory somewhere;
// - root-ish tasks (a group larger than 2 × the cluster's threads whose dependency groups
//   hold fewer than 5 tasks) wait in a scheduler-side queue, in priority order, and go to
//   the least busy worker with a free slot; a worker has ceil(1.1 × nthreads) slots
//   (worker-saturation 1.1), long-running tasks excluded;
// - other tasks go at once to the worker holding most of their dependency bytes, ties and
//   dependency-free tasks to the least loaded worker; paused and dead workers get nothing;
// - a key is freed (FreeKeysEvent to every holder) once no dependent needs it, except the
//   graph's outputs, which the client keeps;
// - an erred task errs its dependents; data lost with a dead worker is recomputed, and a
//   task whose worker died under it more than `allowedFailures` times errs (KilledWorker).
import {
  ComputeTaskEvent,
  FreeKeysEvent,
  RefreshWhoHasEvent,
  RemoveReplicasEvent,
  RemoveWorkerEvent,
  type Key,
  type SendMessageToScheduler,
  type StateMachineEvent,
} from "../state/index.js";
import type { TaskGraph } from "./graph.js";

/** Scheduler-side state of a task (the values index TASK_STATUS_NAMES). */
export const TaskStatus = {
  /** Some dependency is not in memory yet. */
  Waiting: 0,
  /** Root-ish and ready, waiting in the scheduler's queue for a worker slot. */
  Queued: 1,
  /** Ready, but no running worker can take it (all paused or dead). */
  NoWorker: 2,
  Processing: 3,
  Memory: 4,
  Erred: 5,
  /** Computed, then released because nothing needs it any more. */
  Released: 6,
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

export const TASK_STATUS_NAMES = ["waiting", "queued", "no-worker", "processing", "memory", "erred", "released"] as const;

export interface SchedulerOptions {
  /** dask's `distributed.scheduler.worker-saturation` (default 1.1). */
  workerSaturation?: number;
  /** dask's `distributed.scheduler.allowed-failures` (default 3). */
  allowedFailures?: number;
}

export interface SchedulerHost {
  /** Hands a batch of events to a worker's state machine (in order). */
  deliver(worker: number, events: StateMachineEvent[]): void;
  /** The scheduler has outgoing events: call `flush()` soon (same simulated time). */
  requestFlush(): void;
  /** The runSpec of one execution attempt of task `id` (decides e.g. a modelled failure). */
  runSpec(id: number, runId: number): unknown;
  /** A task reached memory or erred (progress). */
  onProgress?(): void;
}

interface WorkerView {
  readonly address: string;
  readonly nthreads: number;
  alive: boolean;
  paused: boolean;
  readonly processing: Set<number>;
  readonly longRunning: Set<number>;
  readonly hasWhat: Set<number>;
  /** Outgoing events in order; consecutive frees are merged into one key list. */
  outbox: Array<StateMachineEvent | Key[]>;
  /** Last outbox entry, when it is a mergeable free-keys list. */
  openFree: Key[] | null;
}

/** Binary min-heap of task ids by priority rank (lazy deletion: entries whose task left the queue are skipped). */
class PriorityQueue {
  private readonly heap: number[] = [];
  constructor(private readonly order: Int32Array) {}

  get length(): number {
    return this.heap.length;
  }

  push(id: number): void {
    const heap = this.heap;
    const order = this.order;
    heap.push(id);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (order[heap[parent]!]! <= order[id]!) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = id;
  }

  pop(): number | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      const order = this.order;
      const n = heap.length;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && order[heap[right]!]! < order[heap[left]!]! ? right : left;
        if (order[heap[child]!]! >= order[last]!) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}

export class Scheduler {
  readonly status: Uint8Array;
  /** Per task: number of dependencies not in memory (meaningful while Waiting). */
  private readonly waitingOn: Int32Array;
  /** Per task: dependents that still need it (not computed, not erred). */
  private readonly pendingDependents: Int32Array;
  private readonly processingOn: Int32Array;
  private readonly runIds: Int32Array;
  private readonly deaths: Uint8Array;
  private readonly holders: Array<number[] | null>;
  /** Frozen address lists of the holders, built on demand and dropped when holders change. */
  private readonly holderAddresses: Array<readonly string[] | null>;
  /** Output sizes as reported by the workers. */
  readonly nbytes: Float64Array;
  readonly exceptionText = new Map<number, string>();
  private readonly queue: PriorityQueue;
  private readonly noWorker = new Set<number>();
  private readonly workers: WorkerView[];
  private nextRunId = 0;
  private stimulusCounter = 0;
  private flushRequested = false;
  private unfinishedCount: number;
  private erredCount = 0;
  private readonly saturation: number;
  private readonly allowedFailures: number;
  /** Scratch per worker for placement: dependency bytes held. */
  private readonly heldBytes: Float64Array;

  constructor(
    private readonly graph: TaskGraph,
    workers: ReadonlyArray<{ address: string; nthreads: number }>,
    private readonly host: SchedulerHost,
    options: SchedulerOptions = {},
  ) {
    const n = graph.size;
    this.status = new Uint8Array(n);
    this.waitingOn = new Int32Array(n);
    this.pendingDependents = new Int32Array(n);
    this.processingOn = new Int32Array(n).fill(-1);
    this.runIds = new Int32Array(n);
    this.deaths = new Uint8Array(n);
    this.holders = new Array<number[] | null>(n).fill(null);
    this.holderAddresses = new Array<readonly string[] | null>(n).fill(null);
    this.nbytes = Float64Array.from(graph.nbytes);
    this.queue = new PriorityQueue(graph.order);
    this.unfinishedCount = n;
    this.saturation = options.workerSaturation ?? 1.1;
    this.allowedFailures = options.allowedFailures ?? 3;
    this.workers = workers.map((w) => ({
      address: w.address,
      nthreads: w.nthreads,
      alive: true,
      paused: false,
      processing: new Set<number>(),
      longRunning: new Set<number>(),
      hasWhat: new Set<number>(),
      outbox: [],
      openFree: null,
    }));
    this.heldBytes = new Float64Array(workers.length);
  }

  // ---- queries ----

  /** Tasks not yet in memory, released after computing, or erred. */
  get unfinished(): number {
    return this.unfinishedCount;
  }

  get erred(): number {
    return this.erredCount;
  }

  get done(): boolean {
    return this.unfinishedCount === 0;
  }

  statusName(id: number): string {
    return TASK_STATUS_NAMES[this.status[id]!]!;
  }

  /** Worker index processing task `id`, or -1. */
  workerOf(id: number): number {
    return this.processingOn[id]!;
  }

  isAlive(worker: number): boolean {
    return this.workers[worker]!.alive;
  }

  /** Unfinished tasks in id order (for the stuck report), at most `limit`. */
  unfinishedTasks(limit: number): number[] {
    const out: number[] = [];
    for (let id = 0; id < this.graph.size && out.length < limit; id++) {
      const s = this.status[id]!;
      if (s !== TaskStatus.Memory && s !== TaskStatus.Released && s !== TaskStatus.Erred) out.push(id);
    }
    return out;
  }

  // ---- driving ----

  /** Makes every dependency-free task ready, in priority order. */
  start(): void {
    const graph = this.graph;
    const n = graph.size;
    const byRank = new Int32Array(n);
    for (let id = 0; id < n; id++) {
      this.waitingOn[id] = graph.depStart[id + 1]! - graph.depStart[id]!;
      this.pendingDependents[id] = graph.dependentStart[id + 1]! - graph.dependentStart[id]!;
      byRank[graph.order[id]!] = id;
    }
    for (let rank = 0; rank < n; rank++) {
      const id = byRank[rank]!;
      if (this.waitingOn[id] === 0) this.makeReady(id);
    }
    this.fillQueue();
  }

  /** One message a worker's state machine sent to the scheduler. */
  handleMessage(worker: number, message: SendMessageToScheduler): void {
    if (!this.workers[worker]!.alive) return; // a dead worker's last words
    switch (message.op) {
      case "task-finished":
        this.taskFinished(worker, message.key, message.runId, message.nbytes);
        break;
      case "task-erred":
        this.taskErred(worker, message.key, message.runId, message.exceptionText);
        break;
      case "add-keys":
        for (const key of message.keys) this.addKeys(worker, key);
        break;
      case "release-worker-data":
        this.releaseWorkerData(worker, message.key);
        break;
      case "long-running":
        this.longRunning(worker, message.key);
        break;
      case "reschedule":
        this.rescheduled(worker, message.key);
        break;
      case "request-refresh-who-has":
        this.refreshWhoHas(worker, message.keys);
        break;
      case "steal-response":
        this.stealResponse(worker, message.key, message.state);
        break;
    }
    this.fillQueue();
  }

  /** A worker died: peers forget it, its data is lost, its tasks go elsewhere. */
  removeWorker(worker: number): void {
    const view = this.workers[worker]!;
    if (!view.alive) return;
    view.alive = false;
    view.outbox = [];
    view.openFree = null;
    // Peers forget the dead worker before anything else they hear.
    for (let w = 0; w < this.workers.length; w++) {
      if (w !== worker && this.workers[w]!.alive) {
        this.enqueue(w, RemoveWorkerEvent({ worker: view.address, stimulusId: this.stimulus("remove-worker") }));
      }
    }
    const processing = [...view.processing];
    for (const id of processing) {
      this.dropProcessing(id);
      this.status[id] = TaskStatus.Waiting;
      this.deaths[id]!++;
    }
    for (const id of [...view.hasWhat]) {
      this.dropReplica(id, worker);
      if (this.status[id] === TaskStatus.Memory && this.holders[id] === null) this.lost(id);
    }
    for (const id of processing) {
      if (this.status[id] !== TaskStatus.Waiting) continue; // already placed again by a recompute
      if (this.deaths[id]! > this.allowedFailures) {
        this.err(id, `KilledWorker: ${this.graph.keys[id]} was running on ${this.deaths[id]} workers that died`);
      } else {
        this.recountWaiting(id);
      }
    }
    this.retryNoWorker();
    this.fillQueue();
  }

  setPaused(worker: number, paused: boolean): void {
    const view = this.workers[worker]!;
    if (!view.alive || view.paused === paused) return;
    view.paused = paused;
    if (!paused) {
      this.retryNoWorker();
      this.fillQueue();
    }
  }

  /** Delivers every worker's pending events, in worker order. */
  flush(): void {
    this.flushRequested = false;
    for (let w = 0; w < this.workers.length; w++) {
      const view = this.workers[w]!;
      if (view.outbox.length === 0) continue;
      const batch = view.outbox;
      view.outbox = [];
      view.openFree = null;
      if (!view.alive) continue;
      const events: StateMachineEvent[] = batch.map((entry) =>
        Array.isArray(entry) ? FreeKeysEvent({ keys: entry, stimulusId: this.stimulus("free-keys") }) : entry,
      );
      this.host.deliver(w, events);
    }
  }

  // ---- message handlers ----

  private taskFinished(worker: number, key: Key, runId: number, nbytes: number | null): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    const status = this.status[id]!;
    if (status === TaskStatus.Processing && this.processingOn[id] === worker) {
      if (this.runIds[id] !== runId) return; // an answer to an earlier attempt
      this.dropProcessing(id);
      if (nbytes !== null) this.nbytes[id] = nbytes;
      this.status[id] = TaskStatus.Memory;
      this.addReplica(id, worker);
      this.completed(id);
    } else if (status === TaskStatus.Memory) {
      this.addReplica(id, worker);
    } else {
      this.free(worker, key);
    }
  }

  private taskErred(worker: number, key: Key, runId: number, text: string): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    if (this.status[id] !== TaskStatus.Processing || this.processingOn[id] !== worker || this.runIds[id] !== runId) return;
    this.dropProcessing(id);
    this.err(id, text);
  }

  private addKeys(worker: number, key: Key): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    if (this.status[id] === TaskStatus.Memory) {
      this.addReplica(id, worker);
      return;
    }
    // The worker holds a copy we no longer want. Leave it while a dependent runs there:
    // RemoveReplicasEvent refuses keys whose dependents are executing.
    const g = this.graph;
    for (let e = g.dependentStart[id]!; e < g.dependentStart[id + 1]!; e++) {
      if (this.processingOn[g.dependents[e]!] === worker) return;
    }
    this.enqueue(worker, RemoveReplicasEvent({ keys: [key], stimulusId: this.stimulus("remove-replicas") }));
  }

  private releaseWorkerData(worker: number, key: Key): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    this.dropReplica(id, worker);
    if (this.status[id] === TaskStatus.Memory && this.holders[id] === null) this.lost(id);
  }

  private longRunning(worker: number, key: Key): void {
    const id = this.graph.idOf(key);
    if (id === undefined || this.processingOn[id] !== worker) return;
    this.workers[worker]!.longRunning.add(id);
  }

  private rescheduled(worker: number, key: Key): void {
    const id = this.graph.idOf(key);
    if (id === undefined || this.status[id] !== TaskStatus.Processing || this.processingOn[id] !== worker) return;
    this.dropProcessing(id);
    this.status[id] = TaskStatus.Waiting;
    this.recountWaiting(id);
  }

  private refreshWhoHas(worker: number, keys: readonly Key[]): void {
    const whoHas = Object.create(null) as Record<Key, readonly string[]>;
    for (const key of keys) {
      const id = this.graph.idOf(key);
      whoHas[key] = id === undefined ? [] : this.addressesOf(id);
    }
    this.enqueue(worker, RefreshWhoHasEvent({ whoHas, stimulusId: this.stimulus("refresh-who-has") }));
  }

  /** The simulator never asks to steal; a stray answer is reconciled like dask's failed steal. */
  private stealResponse(worker: number, key: Key, state: string | null): void {
    const id = this.graph.idOf(key);
    if (id === undefined || this.processingOn[id] !== worker) return;
    if (state === "waiting" || state === "ready" || state === "constrained" || state === null) {
      // The worker let go of it: place it again.
      this.dropProcessing(id);
      this.status[id] = TaskStatus.Waiting;
      this.recountWaiting(id);
    }
  }

  // ---- transitions ----

  private makeReady(id: number): void {
    if (this.isRootish(id)) {
      this.status[id] = TaskStatus.Queued;
      this.queue.push(id);
      return;
    }
    const worker = this.decideWorker(id);
    if (worker < 0) {
      this.status[id] = TaskStatus.NoWorker;
      this.noWorker.add(id);
    } else {
      this.assign(id, worker);
    }
  }

  private isRootish(id: number): boolean {
    return this.graph.groupSize[id]! > 2 * this.totalThreads() && this.graph.groupDependencyTasks[id]! < 5;
  }

  private totalThreads(): number {
    let total = 0;
    for (const view of this.workers) if (view.alive) total += view.nthreads;
    return total;
  }

  /** Worker holding most dependency bytes; else (or on ties) the least loaded; -1 if none runs. */
  private decideWorker(id: number): number {
    const g = this.graph;
    const held = this.heldBytes;
    held.fill(0);
    let any = false;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
      const dep = g.deps[e]!;
      const holders = this.holders[dep];
      if (holders === null) continue;
      for (const w of holders) {
        held[w]! += this.nbytes[dep]!;
        any = true;
      }
    }
    let best = -1;
    for (let w = 0; w < this.workers.length; w++) {
      const view = this.workers[w]!;
      if (!view.alive || view.paused) continue;
      if (best < 0) {
        best = w;
        continue;
      }
      if (any && held[w]! !== held[best]!) {
        if (held[w]! > held[best]!) best = w;
        continue;
      }
      if (this.load(w) < this.load(best)) best = w;
    }
    return best;
  }

  private load(worker: number): number {
    const view = this.workers[worker]!;
    return (view.processing.size - view.longRunning.size) / view.nthreads;
  }

  /** Sends queued root-ish tasks to workers with free slots, least busy first. */
  private fillQueue(): void {
    while (this.queue.length > 0) {
      const worker = this.rootishWorker();
      if (worker < 0) return;
      let id = this.queue.pop();
      while (id !== undefined && this.status[id] !== TaskStatus.Queued) id = this.queue.pop();
      if (id === undefined) return;
      this.assign(id, worker);
    }
  }

  private rootishWorker(): number {
    let best = -1;
    let bestLoad = Number.POSITIVE_INFINITY;
    for (let w = 0; w < this.workers.length; w++) {
      const view = this.workers[w]!;
      if (!view.alive || view.paused) continue;
      const busy = view.processing.size - view.longRunning.size;
      const slots = Math.max(Math.ceil(this.saturation * view.nthreads), 1) - busy;
      if (slots <= 0) continue;
      const load = busy / view.nthreads;
      if (load < bestLoad) {
        best = w;
        bestLoad = load;
      }
    }
    return best;
  }

  private retryNoWorker(): void {
    if (this.noWorker.size === 0) return;
    const ids = [...this.noWorker].sort((a, b) => this.graph.order[a]! - this.graph.order[b]!);
    this.noWorker.clear();
    for (const id of ids) if (this.status[id] === TaskStatus.NoWorker) this.makeReady(id);
  }

  private assign(id: number, worker: number): void {
    const g = this.graph;
    const view = this.workers[worker]!;
    this.status[id] = TaskStatus.Processing;
    this.processingOn[id] = worker;
    view.processing.add(id);
    const runId = ++this.nextRunId;
    this.runIds[id] = runId;
    // Null-prototype records: V8 keeps them as hash tables, whereas `{}` grows a hidden-class
    // transition per distinct key name, which costs microseconds per key on large graphs.
    const whoHas = Object.create(null) as Record<Key, readonly string[]>;
    const nbytes = Object.create(null) as Record<Key, number>;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
      const dep = g.deps[e]!;
      const key = g.keys[dep]!;
      whoHas[key] = this.addressesOf(dep);
      nbytes[key] = this.nbytes[dep]!;
    }
    this.enqueue(
      worker,
      ComputeTaskEvent({
        key: g.keys[id]!,
        runId,
        whoHas,
        nbytes,
        priority: [g.order[id]!],
        duration: g.duration[id]!,
        runSpec: this.host.runSpec(id, runId),
        stimulusId: `compute-task-${runId}`,
      }),
    );
  }

  /** Task `id` reached memory: dependents may start, dependencies may be freed. */
  private completed(id: number): void {
    const g = this.graph;
    this.unfinishedCount--;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
      const dep = g.deps[e]!;
      this.pendingDependents[dep]!--;
      this.maybeFree(dep);
    }
    for (let e = g.dependentStart[id]!; e < g.dependentStart[id + 1]!; e++) {
      const dependent = g.dependents[e]!;
      if (this.status[dependent] === TaskStatus.Waiting && --this.waitingOn[dependent]! === 0) this.makeReady(dependent);
    }
    this.maybeFree(id);
    this.host.onProgress?.();
  }

  private maybeFree(id: number): void {
    if (this.status[id] !== TaskStatus.Memory || this.pendingDependents[id]! > 0 || this.graph.isOutput[id] === 1) return;
    this.status[id] = TaskStatus.Released;
    const holders = this.holders[id];
    this.holders[id] = null;
    this.holderAddresses[id] = null;
    if (holders === null) return;
    const key = this.graph.keys[id]!;
    for (const w of holders) {
      this.workers[w]!.hasWhat.delete(id);
      this.free(w, key);
    }
  }

  /** Task `id` erred: so does every dependent that has not finished. */
  private err(first: number, text: string): void {
    const g = this.graph;
    const stack = [first];
    this.exceptionText.set(first, text);
    while (stack.length > 0) {
      const id = stack.pop()!;
      const status = this.status[id]!;
      if (status === TaskStatus.Memory || status === TaskStatus.Released || status === TaskStatus.Erred) continue;
      if (status === TaskStatus.Processing) {
        const worker = this.processingOn[id]!;
        this.dropProcessing(id);
        if (worker >= 0) this.free(worker, g.keys[id]!);
      }
      this.noWorker.delete(id);
      this.status[id] = TaskStatus.Erred;
      this.unfinishedCount--;
      this.erredCount++;
      if (id !== first) this.exceptionText.set(id, `dependency ${g.keys[first]} erred`);
      for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
        const dep = g.deps[e]!;
        this.pendingDependents[dep]!--;
        this.maybeFree(dep);
      }
      for (let e = g.dependentStart[id]!; e < g.dependentStart[id + 1]!; e++) stack.push(g.dependents[e]!);
    }
    this.host.onProgress?.();
  }

  /** Task `id` was in memory and its last copy is gone. */
  private lost(id: number): void {
    if (this.pendingDependents[id] === 0 && this.graph.isOutput[id] === 0) {
      this.status[id] = TaskStatus.Released;
      return;
    }
    this.recompute(id);
  }

  /**
   * A computed task (in memory without copies, or released) is needed again: it and every
   * released dependency it needs go back to waiting; dependents that were placed counting on
   * its data are taken back. Waiting counts are then recomputed from scratch for every task
   * touched, so nothing is counted twice.
   */
  private recompute(first: number): void {
    const g = this.graph;
    const undone: number[] = [];
    const stack = [first];
    while (stack.length > 0) {
      const id = stack.pop()!;
      const status = this.status[id]!;
      if (status !== TaskStatus.Memory && status !== TaskStatus.Released) continue;
      this.status[id] = TaskStatus.Waiting;
      this.unfinishedCount++;
      undone.push(id);
      for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
        const dep = g.deps[e]!;
        this.pendingDependents[dep]!++;
        if (this.status[dep] === TaskStatus.Released) stack.push(dep);
      }
    }
    const touched = new Set<number>(undone);
    for (const id of undone) {
      for (let e = g.dependentStart[id]!; e < g.dependentStart[id + 1]!; e++) {
        const dependent = g.dependents[e]!;
        const s = this.status[dependent]!;
        if (s === TaskStatus.Processing) {
          const worker = this.processingOn[dependent]!;
          this.dropProcessing(dependent);
          if (worker >= 0) this.free(worker, g.keys[dependent]!);
          this.status[dependent] = TaskStatus.Waiting;
          touched.add(dependent);
        } else if (s === TaskStatus.Queued || s === TaskStatus.NoWorker) {
          this.noWorker.delete(dependent);
          this.status[dependent] = TaskStatus.Waiting;
          touched.add(dependent);
        } else if (s === TaskStatus.Waiting) {
          touched.add(dependent);
        }
      }
    }
    for (const id of touched) this.settleWaiting(id);
  }

  /** A task back in Waiting: recomputes released dependencies it needs, then counts what it waits for. */
  private recountWaiting(id: number): void {
    const g = this.graph;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
      const dep = g.deps[e]!;
      if (this.status[dep] === TaskStatus.Released) this.recompute(dep);
    }
    this.settleWaiting(id);
  }

  /** Sets waitingOn of a Waiting task from scratch; errs it if a dependency erred; readies it if nothing is missing. */
  private settleWaiting(id: number): void {
    if (this.status[id] !== TaskStatus.Waiting) return;
    const g = this.graph;
    let missing = 0;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
      const dep = g.deps[e]!;
      const s = this.status[dep]!;
      if (s === TaskStatus.Memory) continue;
      if (s === TaskStatus.Erred) {
        this.err(id, `dependency ${g.keys[dep]} erred`);
        return;
      }
      missing++;
    }
    this.waitingOn[id] = missing;
    if (missing === 0) this.makeReady(id);
  }

  // ---- bookkeeping ----

  private dropProcessing(id: number): void {
    const worker = this.processingOn[id]!;
    if (worker < 0) return;
    const view = this.workers[worker]!;
    view.processing.delete(id);
    view.longRunning.delete(id);
    this.processingOn[id] = -1;
  }

  private addReplica(id: number, worker: number): void {
    const view = this.workers[worker]!;
    if (view.hasWhat.has(id)) return;
    view.hasWhat.add(id);
    this.holderAddresses[id] = null;
    const holders = this.holders[id];
    if (holders === null) this.holders[id] = [worker];
    else holders.push(worker);
  }

  private dropReplica(id: number, worker: number): void {
    const view = this.workers[worker]!;
    if (!view.hasWhat.delete(id)) return;
    this.holderAddresses[id] = null;
    const holders = this.holders[id]!;
    const at = holders.indexOf(worker);
    holders.splice(at, 1);
    if (holders.length === 0) this.holders[id] = null;
  }

  private addressesOf(id: number): readonly string[] {
    const cached = this.holderAddresses[id];
    if (cached !== null) return cached;
    const holders = this.holders[id];
    const addresses = Object.freeze(holders === null ? [] : holders.map((w) => this.workers[w]!.address));
    this.holderAddresses[id] = addresses;
    return addresses;
  }

  private free(worker: number, key: Key): void {
    const view = this.workers[worker]!;
    if (!view.alive) return;
    if (view.openFree !== null) view.openFree.push(key);
    else {
      const keys = [key];
      view.outbox.push(keys);
      view.openFree = keys;
    }
    this.wake();
  }

  private enqueue(worker: number, event: StateMachineEvent): void {
    const view = this.workers[worker]!;
    if (!view.alive) return;
    view.outbox.push(event);
    view.openFree = null;
    this.wake();
  }

  private wake(): void {
    if (this.flushRequested) return;
    this.flushRequested = true;
    this.host.requestFlush();
  }

  private stimulus(kind: string): string {
    return `${kind}-${++this.stimulusCounter}`;
  }
}
