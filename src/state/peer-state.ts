// What one worker's state machine knows of its peers: who holds each key (every task's
// whoHas, and its mirror hasWhat), the fetch queue per peer (dataNeeded), the peers with a
// GatherDep outstanding or busy, and the count of idle queued peers kept across all three.
// StateCore (core.ts) extends this class rather than holding one: these methods run inside
// transitions, and a base class costs no extra load per call.
import type { Key, Priority } from "./events.js";
import { sameHolders } from "./holders.js";
import { InFlightGathers } from "./in-flight.js";
import { forEachLink, linkHas, linksToArray, replacedLinks, withLink, type Links } from "./links.js";
import type { PrioritySet } from "./priority-set.js";
import { SharedSlotPrioritySet } from "./slot-priority-set.js";
import type { TaskState } from "./task-state.js";

export abstract class PeerState {
  /** StateCore's: every task by key, and this worker's own address (never one of its peers). */
  abstract readonly tasks: ReadonlyMap<Key, TaskState>;
  abstract readonly address: string | null;

  readonly dataNeeded = new Map<string, PrioritySet<TaskState>>();
  /** The outstanding GatherDeps (written only by setInFlight/clearInFlight). */
  private readonly gathers = new InFlightGathers();
  readonly busyWorkers = new Set<string>();
  /**
   * How many peers have fetches queued (dataNeeded) and are neither in flight nor busy: the
   * peers ensureCommunicating could send a GatherDep to. It runs after every stimulus; with
   * this at 0 it returns without scanning every queued peer (two hashed lookups each: 5 %
   * of W2's time). Kept by the methods below, which are the only writers of dataNeeded's
   * keys, inFlightWorkers and busyWorkers; validateState recounts it.
   */
  idleQueuedPeers = 0;

  /**
   * worker → the keys we believe it holds (the mirror of every task's whoHas): built the
   * first time anything reads it (the public view, forgetWorker, validation) and kept up to
   * date from then on. Until then nobody can hold it, and keeping it costs two hashed Set
   * operations per replica (W2: 20,000 dependencies) for a Map nothing reads.
   */
  private hasWhatIndex: Map<string, Set<Key>> | null = null;

  get transferIncomingCount(): number {
    return this.gathers.size;
  }

  /** The tasks in flight: `comingFrom` set (built when first read; see InFlightGathers). */
  get inFlightTasks(): Set<TaskState> {
    return this.gathers.tasks;
  }

  get inFlightTasksCount(): number {
    return this.gathers.taskCount;
  }

  /** `ts` (in the GatherDep just sent to `worker`) is coming from it. */
  setComingFrom(ts: TaskState, worker: string): void {
    this.gathers.arrive(ts, worker);
  }

  /** `ts` is no longer in flight (a no-op when it was not). */
  clearComingFrom(ts: TaskState): void {
    this.gathers.depart(ts);
  }

  /** worker → the keys of its outstanding GatherDep (built when first read). */
  get inFlightWorkers(): Map<string, Set<Key>> {
    return this.gathers.keysByWorker;
  }

  addToDataNeeded(worker: string, ts: TaskState): void {
    let heap = this.dataNeeded.get(worker);
    if (heap === undefined) {
      heap = new SharedSlotPrioritySet<TaskState>(taskPriority);
      this.dataNeeded.set(worker, heap);
      if (this.isFree(worker)) this.idleQueuedPeers++;
    }
    heap.add(ts);
  }

  /** Remove `ts` from `worker`'s heap; empty heaps are deleted at once (no defaultdict). */
  discardFromDataNeeded(worker: string, ts: TaskState): boolean {
    const heap = this.dataNeeded.get(worker);
    if (heap === undefined || !heap.discard(ts)) return false;
    if (heap.size === 0) this.dropDataNeeded(worker);
    return true;
  }

  /** Forget `worker`'s heap of queued fetches (its tasks must no longer point at it). */
  dropDataNeeded(worker: string): void {
    if (this.dataNeeded.delete(worker) && this.isFree(worker)) this.idleQueuedPeers--;
  }

  /** A GatherDep for `tasks` went to `worker`. */
  setInFlight(worker: string, tasks: readonly TaskState[]): void {
    if (this.isFree(worker) && this.dataNeeded.has(worker)) this.idleQueuedPeers--;
    this.gathers.set(worker, tasks);
  }

  /**
   * The GatherDep to `worker` returned; the tasks it was for, as they were when it was
   * sent (a task forgotten since is no longer the one registered under its key).
   */
  clearInFlight(worker: string): readonly TaskState[] | undefined {
    const tasks = this.gathers.take(worker);
    if (tasks === undefined) return undefined;
    if (this.isFree(worker) && this.dataNeeded.has(worker)) this.idleQueuedPeers++;
    return tasks;
  }

  setBusy(worker: string): void {
    if (this.isFree(worker) && this.dataNeeded.has(worker)) this.idleQueuedPeers--;
    this.busyWorkers.add(worker);
  }

  clearBusy(worker: string): void {
    if (!this.busyWorkers.delete(worker)) return;
    if (this.isFree(worker) && this.dataNeeded.has(worker)) this.idleQueuedPeers++;
  }

  /** Neither in flight nor busy. */
  isFree(worker: string): boolean {
    return !this.gathers.has(worker) && !this.busyWorkers.has(worker);
  }

  /** worker → keys it holds; a worker holding nothing has no entry (see `hasWhatIndex`). */
  get hasWhat(): Map<string, Set<Key>> {
    let index = this.hasWhatIndex;
    if (index === null) {
      index = new Map();
      for (const ts of this.tasks.values()) forEachLink(ts._whoHas, indexHolder, index, ts.key);
      this.hasWhatIndex = index;
    }
    return index;
  }

  addToHasWhat(worker: string, key: Key): void {
    if (this.hasWhatIndex !== null) indexHolder(worker, this.hasWhatIndex, key);
  }

  discardFromHasWhat(worker: string, key: Key): void {
    const keys = this.hasWhatIndex?.get(worker);
    if (keys === undefined || !keys.delete(key)) return;
    if (keys.size === 0) (this.hasWhatIndex as Map<string, Set<Key>>).delete(worker);
  }

  /**
   * Scratch for a handler that ensures tasks and then updates their holders: the tasks it
   * just looked up (`noteEnsured`), in order, so that `updateWhoHas` need not look them up
   * again; the first `ensuredCount` entries are this handler's. Never emptied by setting
   * its length (V8 then drops the backing store, and every compute-task grew a new one):
   * `updateWhoHas` clears the slots it read.
   */
  private readonly ensuredTasks: (TaskState | undefined)[] = [];
  private ensuredCount = 0;

  /** Start a handler's list of ensured tasks (see `ensuredTasks`). */
  startEnsured(): void {
    for (let i = 0; i < this.ensuredCount; i++) this.ensuredTasks[i] = undefined;
    this.ensuredCount = 0;
  }

  noteEnsured(ts: TaskState): void {
    this.ensuredTasks[this.ensuredCount++] = ts;
  }

  /**
   * dask's `_update_who_has`. With `hinted`, the tasks noted since `startEnsured` are the
   * ones just looked up, in the order the handler met their keys: a key of `whoHas` that
   * comes next among them is not looked up again (for a compute-task, whoHas and nbytes list
   * the same keys in the same order), any other key is.
   */
  updateWhoHas(whoHas: Readonly<Record<Key, readonly string[]>>, hinted = false): void {
    const ensured = this.ensuredTasks;
    const count = hinted ? this.ensuredCount : 0;
    let next = 0;
    for (const key in whoHas) {
      let ts: TaskState | undefined;
      const hint = next < count ? ensured[next] : undefined;
      if (hint !== undefined && hint.key === key) {
        ts = hint;
        next++;
      } else {
        ts = this.tasks.get(key);
      }
      if (ts === undefined) continue; // a late refresh answer for a forgotten key
      const listed = whoHas[key] as readonly string[];
      const current = ts._whoHas;
      if (sameHolders(current, listed, this.address)) continue;
      let workers: Links<string> = null;
      for (let i = 0; i < listed.length; i++) {
        const worker = listed[i] as string;
        if (worker !== this.address) workers = withLink(workers, worker);
      }
      if (current === null) {
        // The common case (a new dependency): nothing to drop.
        forEachLink(workers, addHolder, this, ts);
        ts._whoHas = workers;
        continue;
      }
      const isFetch = ts.state === "fetch";
      for (const worker of linksToArray(current)) {
        if (linkHas(workers, worker)) continue;
        this.discardFromHasWhat(worker, key);
        if (isFetch) this.discardFromDataNeeded(worker, ts);
      }
      for (const worker of linksToArray(workers)) {
        if (!linkHas(current, worker)) addHolder(worker, this, ts);
      }
      ts._whoHas = replacedLinks(current, workers);
    }
    if (hinted) this.startEnsured();
  }
}

/** `worker` holds `ts`: index it, and queue the fetch if `ts` is to be fetched. */
function addHolder(worker: string, peers: PeerState, ts: TaskState): void {
  peers.addToHasWhat(worker, ts.key);
  if (ts.state === "fetch") peers.addToDataNeeded(worker, ts);
}

function indexHolder(worker: string, index: Map<string, Set<Key>>, key: Key): void {
  let keys = index.get(worker);
  if (keys === undefined) {
    keys = new Set();
    index.set(worker, keys);
  }
  keys.add(key);
}

/** The priority every task queue orders by: one function, so PrioritySet.add calls one target. */
export function taskPriority(ts: TaskState): Priority | null {
  return ts.priority;
}
