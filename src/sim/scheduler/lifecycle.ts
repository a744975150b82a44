// The lifecycle of every task on the scheduler, whatever the placement policy: a task waits
// for its dependencies, is placed once they are all in memory somewhere, is freed once no
// dependent needs it (the graph's outputs stay for the client), errs with its dependents, and
// is recomputed when its only copy is lost. The core (core.ts) supplies placement, freeing
// and the link to the workers.
import type { Key } from "../../state/index.js";
import type { TaskGraph } from "../graph.js";
import type { ClusterState } from "./cluster.js";
import type { DecisionOrigin, ProcessingExit } from "./policy.js";

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

export abstract class Lifecycle {
  readonly status: Uint8Array;
  readonly exceptionText = new Map<number, string>();
  /** Per task: number of dependencies not in memory (meaningful while Waiting). */
  private readonly waitingOn: Int32Array;
  /** Per task: dependents that still need it (not computed, not erred). */
  private readonly pendingDependents: Int32Array;
  protected readonly runIds: Int32Array;
  private readonly deaths: Uint8Array;
  /** Per task: 1 once its result was lost and it went back to be computed again. */
  protected readonly recomputed: Uint8Array;
  protected readonly noWorker = new Set<number>();
  private unfinishedCount: number;
  private erredCount = 0;

  constructor(
    protected readonly graph: TaskGraph,
    private readonly state: ClusterState,
    private readonly allowedFailures: number,
  ) {
    const n = graph.size;
    this.status = new Uint8Array(n);
    this.waitingOn = new Int32Array(n);
    this.pendingDependents = new Int32Array(n);
    this.runIds = new Int32Array(n);
    this.deaths = new Uint8Array(n);
    this.recomputed = new Uint8Array(n);
    this.unfinishedCount = n;
  }

  /** Where a task whose dependencies are all in memory goes (sets its status). */
  protected abstract place(id: number, origin: DecisionOrigin): void;
  /** Takes a task out of its worker's processing; returns that worker or -1. */
  protected abstract dropProcessing(id: number, exit: ProcessingExit): number;
  /** Tells a worker to forget a key. */
  protected abstract free(worker: number, key: Key): void;
  /** A queued task is leaving the queue for another reason than placement. */
  protected abstract unqueue(id: number): void;
  /** A task reached memory or erred. */
  protected abstract progress(): void;

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
    return this.state.processingWorker[id]!;
  }

  isAlive(worker: number): boolean {
    return this.state.workers[worker]!.status !== "closed";
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

  // ---- transitions ----

  /** Makes every dependency-free task ready, in priority order. */
  protected startTasks(): void {
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
      if (this.waitingOn[id] === 0) this.place(id, "ready");
    }
  }

  /** Places the tasks no worker could take, best priority first, now that one may. */
  protected retryNoWorker(): void {
    if (this.noWorker.size === 0) return;
    const ids = [...this.noWorker].sort((a, b) => this.graph.order[a]! - this.graph.order[b]!);
    this.noWorker.clear();
    for (const id of ids) if (this.status[id] === TaskStatus.NoWorker) this.place(id, "no-worker");
  }

  /** Task `id` reached memory: dependents may start, dependencies may be freed. */
  protected completed(id: number): void {
    const g = this.graph;
    this.unfinishedCount--;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
      const dep = g.deps[e]!;
      this.pendingDependents[dep]!--;
      this.maybeFree(dep);
    }
    // dask's _add_to_memory recommends them sorted by priority, worst first, and _transitions
    // pops its recommendations last in, first out: the dependents it made ready are placed best
    // priority first (after the dependencies nothing needs any more are released, as above).
    // One made ready (the common case) allocates nothing; placing may not re-enter here with
    // a shared buffer half read.
    let first = -1;
    let more: number[] | null = null;
    for (let e = g.dependentStart[id]!; e < g.dependentStart[id + 1]!; e++) {
      const dependent = g.dependents[e]!;
      if (this.status[dependent] !== TaskStatus.Waiting || --this.waitingOn[dependent]! !== 0) continue;
      if (first < 0) first = dependent;
      else (more ??= [first]).push(dependent);
    }
    if (more !== null) {
      more.sort((a, b) => g.order[a]! - g.order[b]!);
      for (const dependent of more) this.place(dependent, "ready");
    } else if (first >= 0) this.place(first, "ready");
    this.maybeFree(id);
    this.progress();
  }

  private maybeFree(id: number): void {
    if (this.status[id] !== TaskStatus.Memory || this.pendingDependents[id]! > 0 || this.graph.isOutput[id] === 1) return;
    this.status[id] = TaskStatus.Released;
    const holders = this.state.dropAllReplicas(id);
    const key = this.graph.keys[id]!;
    for (const w of holders) this.free(w, key);
  }

  /** Task `id` erred: so does every dependent that has not finished. */
  protected err(first: number, text: string): void {
    const g = this.graph;
    const stack = [first];
    this.exceptionText.set(first, text);
    while (stack.length > 0) {
      const id = stack.pop()!;
      const status = this.status[id]!;
      if (status === TaskStatus.Memory || status === TaskStatus.Released || status === TaskStatus.Erred) continue;
      if (status === TaskStatus.Processing) {
        const worker = this.dropProcessing(id, "erred");
        if (worker >= 0) this.free(worker, g.keys[id]!);
      } else if (status === TaskStatus.Queued) {
        this.unqueue(id);
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
    this.progress();
  }

  /** Task `id` was in memory and its last copy is gone. */
  protected lost(id: number): void {
    if (this.pendingDependents[id] === 0 && this.graph.isOutput[id] === 0) {
      this.status[id] = TaskStatus.Released;
      return;
    }
    this.recompute(id);
  }

  /** A worker died (already marked closed): its tasks go elsewhere, data only it had is recomputed. */
  protected loseWorker(worker: number): void {
    const ws = this.state.workers[worker]!;
    const processing = [...ws.processing];
    for (const id of processing) {
      this.dropProcessing(id, "released");
      this.status[id] = TaskStatus.Waiting;
      this.deaths[id]!++;
    }
    // Every replica goes before any recompute, as in dask's remove_worker: a task placed again
    // meanwhile must not count the dead worker among its dependencies' holders.
    const held = [...ws.hasWhat];
    for (const id of held) this.state.dropReplica(id, worker);
    for (const id of held) if (this.status[id] === TaskStatus.Memory && this.state.whoHas(id).length === 0) this.lost(id);
    for (const id of processing) {
      if (this.status[id] !== TaskStatus.Waiting) continue; // already placed again by a recompute
      if (this.deaths[id]! > this.allowedFailures) {
        this.err(id, `KilledWorker: ${this.graph.keys[id]} was running on ${this.deaths[id]} workers that died`);
      } else {
        this.recountWaiting(id);
      }
    }
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
      this.recomputed[id] = 1;
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
          const worker = this.dropProcessing(dependent, "released");
          if (worker >= 0) this.free(worker, g.keys[dependent]!);
          this.status[dependent] = TaskStatus.Waiting;
          touched.add(dependent);
        } else if (s === TaskStatus.Queued || s === TaskStatus.NoWorker) {
          if (s === TaskStatus.Queued) this.unqueue(dependent);
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
  protected recountWaiting(id: number): void {
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
    if (missing === 0) this.place(id, "ready");
  }
}
