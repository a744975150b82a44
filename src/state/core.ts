// The mutable state of one worker's state machine and the loop that drives transitions.
// `WorkerState` (worker-state.ts) is the public, read-only face of this object; the
// transition table, the event handlers and the schedulers operate on it directly.
import type { Key, Priority, ResourceMap, StateMachineEvent } from "./events.js";
import type { Instruction } from "./instructions.js";
import { addressHost } from "./address.js";
import { InvalidTransition, StateInvariantError, TransitionCounterMaxExceeded } from "./errors.js";
import { BoundedLog, DEFAULT_LOG_LENGTH, StateLog, type LogEntry } from "./log.js";
import { PrioritySet, SharedSlotPrioritySet, SlotPrioritySet } from "./priority-set.js";
import { RecommendationStack, type FinishState, type Recommendation, type RecommendationFor } from "./recommendations.js";
import { copyRecord, EMPTY_RECORD } from "./records.js";
import { defaultSizeof, type Sizeof } from "./sizeof.js";
import { storyOf } from "./story.js";
import { forEachLink, linkHas, linksToArray, replacedLinks, withLink, type Links } from "./links.js";
import { TaskState } from "./task-state.js";
import { stateIndex, type TaskStateName } from "./task-states.js";
import { sameHolders } from "./holders.js";
import { InFlightGathers } from "./in-flight.js";
import { toLoggable } from "./loggable.js";
import { TRANSFER_INCOMING_BYTES_THROTTLE_THRESHOLD, type DataStore, type WorkerStateOptions } from "./state-options.js";
import { STATE_COUNT, transitionGrid, type TransitionGrid } from "./transition-grid.js";

/**
 * One (start, finish) entry of the transition table: `rec` is the recommendation for
 * `finish` (a flight recommendation names its worker, a memory one carries the value), and
 * `start` is the state the task is in. A function registered for several pairs takes the
 * union of their starts and finishes.
 */
export type TransitionFn<S extends TaskStateName = TaskStateName, F extends FinishState = FinishState> = (
  core: StateCore,
  ts: TaskState,
  rec: RecommendationFor<F>,
  recs: RecommendationStack,
  out: Instruction[],
  stimulusId: string,
  start: S,
) => void;

/**
 * TRANSITIONS[start][finish]: the compiler checks that each entry handles its pair. Read
 * by an arbitrary string it gives a TransitionFn<never, never> (a function that cannot be
 * called with a real task), so tools may list the table without casts.
 */
export type TransitionTable = {
  readonly [S in TaskStateName]?: { readonly [F in FinishState]?: TransitionFn<S, F> };
} & { readonly [start: string]: { readonly [finish: string]: TransitionFn<never, never> | undefined } | undefined };

export type EventHandler = (
  core: StateCore,
  event: StateMachineEvent,
  recs: RecommendationStack,
  out: Instruction[],
) => void;

/** Hooks filled in by the modules that implement them (keeps this file free of cycles). */
export interface StateMachineParts {
  transitions: TransitionTable;
  handleEvent: EventHandler;
  ensureCommunicating(core: StateCore, recs: RecommendationStack, out: Instruction[], stimulusId: string): void;
  validateTask(core: StateCore, ts: TaskState): void;
}


export class StateCore {
  readonly parts: StateMachineParts;
  address: string | null;
  host: string | null;
  nthreads: number;
  readonly data: DataStore;
  readonly actors = new Map<Key, unknown>();
  readonly threads: Map<Key, number>;
  readonly validate: boolean;
  readonly transitionCounterMax: number | false;
  readonly transferIncomingCountLimit: number;
  readonly transferIncomingBytesLimit: number;
  readonly transferMessageBytesLimit: number;
  readonly transferIncomingBytesThrottleThreshold = TRANSFER_INCOMING_BYTES_THROTTLE_THRESHOLD;
  readonly sizeof: Sizeof;

  readonly tasks = new Map<Key, TaskState>();
  running = true;
  readonly ready = new SlotPrioritySet<TaskState>(priorityOf);
  readonly constrained = new SlotPrioritySet<TaskState>(priorityOf);
  readonly waiting = new Set<TaskState>();
  readonly executing = new Set<TaskState>();
  readonly longRunning = new Set<TaskState>();
  readonly dataNeeded = new Map<string, PrioritySet<TaskState>>();
  fetchCount = 0;
  readonly missingDepFlight = new Set<TaskState>();
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
   * The task the last purge was for, and the transition counter then: released → forgotten
   * purges again (as dask does), which is a no-op when the purge was in the transition just
   * before (memory/error/… → released → forgotten, taken at once from the stack).
   */
  lastPurged: TaskState | null = null;
  lastPurgedAt = -1;
  transferIncomingBytes = 0;
  transferIncomingCountTotal = 0;
  generation = 0;
  readonly totalResources: Record<string, number>;
  readonly availableResources: Record<string, number>;
  executedCount = 0;
  nbytes = 0;
  transitionCounter = 0;

  readonly log: StateLog;
  readonly stimulusLog: BoundedLog<StateMachineEvent>;
  /** Sequence number of the stimulus being handled (1 for the first one). */
  stimulusSeq = 0;

  /**
   * worker → the keys we believe it holds (the mirror of every task's whoHas): built the
   * first time anything reads it (the public view, forgetWorker, validation) and kept up to
   * date from then on. Until then nobody can hold it, and keeping it costs two hashed Set
   * operations per replica (W2: 20,000 dependencies) for a Map nothing reads.
   */
  private hasWhatIndex: Map<string, Set<Key>> | null = null;

  /** The stack drained by `handleStimulus`; reused (it is empty between stimuli). */
  private readonly mainStack = new RecommendationStack(true);
  /** Tasks touched during the current stimulus (only tracked when validating). */
  private touched: Set<TaskState> | null = null;

  /** `parts.transitions` indexed by (stateIndex(start), stateIndex(finish)). */
  private readonly transitionFns: TransitionGrid;
  /** The store is a plain Map: `set` cannot fail silently, `delete` of a missing key is a no-op. */
  readonly dataIsMap: boolean;

  constructor(parts: StateMachineParts, options: WorkerStateOptions = {}) {
    this.parts = parts;
    this.transitionFns = transitionGrid(parts.transitions);
    this.address = options.address ?? null;
    this.host = this.address === null ? null : addressHost(this.address);
    this.nthreads = options.nthreads ?? 1;
    this.data = options.data ?? new Map<Key, unknown>();
    this.dataIsMap = Object.getPrototypeOf(this.data) === Map.prototype;
    this.threads = options.threads ?? new Map();
    this.validate = options.validate ?? true;
    this.transitionCounterMax = options.transitionCounterMax ?? false;
    this.transferIncomingCountLimit = options.transferIncomingCountLimit ?? 9999;
    this.transferIncomingBytesLimit = options.transferIncomingBytesLimit ?? Infinity;
    this.transferMessageBytesLimit = options.transferMessageBytesLimit ?? Infinity;
    this.sizeof = options.sizeof ?? defaultSizeof;
    this.totalResources = copyRecord(options.resources ?? EMPTY_RECORD);
    this.availableResources = copyRecord(options.resources ?? EMPTY_RECORD);
    const logLength = options.logLength ?? DEFAULT_LOG_LENGTH;
    this.log = new StateLog(logLength);
    this.stimulusLog = new BoundedLog(logLength);
    if (!(this.nthreads >= 1)) throw new RangeError(`nthreads must be >= 1, got ${this.nthreads}`);
  }

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

  // ---- the loop ---------------------------------------------------------------------

  handleStimulus(events: readonly StateMachineEvent[]): Instruction[] {
    const out: Instruction[] = [];
    // Indexed loops on the hot path: an array iterator is not always optimised away.
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as StateMachineEvent;
      this.stimulusSeq++;
      if (event.kind !== "FindMissingEvent") this.stimulusLog.push(toLoggable(event));
      const recs = this.mainStack;
      recs.journalTruncate(0);
      try {
        this.parts.handleEvent(this, event, recs, out);
      } catch (error) {
        // A handler that rejects its event must not leave recommendations behind.
        if (recs.size > 0) recs.clear();
        throw error;
      }
      this.transitions(recs, out, event.stimulusId);
    }
    return out;
  }

  /** dask's `_transitions`: drain, then `_ensure_communicating` once, then drain its recs. */
  transitions(recs: RecommendationStack, out: Instruction[], stimulusId: string): void {
    if (this.validate) this.touched = new Set();
    try {
      this.drain(recs, out, stimulusId);
      this.parts.ensureCommunicating(this, recs, out, stimulusId);
      this.drain(recs, out, stimulusId);
      if (this.touched !== null) {
        for (const ts of this.touched) this.parts.validateTask(this, ts);
      }
    } finally {
      this.touched = null;
      // A transition that threw leaves its siblings pending; never leak them into the
      // next stimulus.
      if (recs.size > 0) recs.clear();
      recs.journalTruncate(0);
    }
  }

  private drain(recs: RecommendationStack, out: Instruction[], stimulusId: string): void {
    const touched = this.touched;
    for (;;) {
      const ts = recs.pop();
      if (ts === undefined) return;
      if (touched !== null) touched.add(ts);
      this.transition(ts, recs.lastPopped, recs, out, stimulusId);
    }
  }

  /** dask's `_transition`: one step, or via released when the table has no entry. */
  transition(
    ts: TaskState,
    rec: Recommendation,
    recs: RecommendationStack,
    out: Instruction[],
    stimulusId: string,
  ): void {
    const start = ts.state;
    const finish = rec.finish;
    if (start === finish) return;
    this.transitionCounter++;
    if (this.transitionCounterMax !== false && this.transitionCounter >= this.transitionCounterMax) {
      throw new TransitionCounterMaxExceeded(ts.key, start, finish, this.story([ts.key]), { stimulusId });
    }
    const journalStart = recs.journalLength();
    const fn = this.transitionFns[stateIndex(start) * STATE_COUNT + stateIndex(finish)];
    if (fn !== undefined) {
      fn(this, ts, rec, recs, out, stimulusId, start);
    } else if (start !== "released" && finish !== "released") {
      this.transitionViaReleased(ts, rec, recs, out, stimulusId);
    } else {
      throw new InvalidTransition(ts.key, start, finish, this.story([ts.key]), { stimulusId });
    }
    if (recs.journalLength() === journalStart + 1) {
      const recTask = recs.journalTasks[journalStart] as TaskState;
      const recFinish = (recs.journalRecs[journalStart] as Recommendation).finish;
      this.log.transitionOneRec(ts.key, start, finish, ts.state, recTask.key, recFinish, stimulusId, this.stimulusSeq);
    } else {
      this.log.transition(ts.key, start, finish, ts.state, this.summary(recs, journalStart), stimulusId, this.stimulusSeq);
    }
    recs.journalTruncate(journalStart);
  }

  /**
   * No direct edge: go to released, replay what released recommended for the task
   * itself (except forgetting it), then go to `finish`. Recommendations made along the
   * way merge with "update" semantics (the later one wins); dask raises
   * RecommendationsConflict instead (its bug §18.1).
   */
  private transitionViaReleased(
    ts: TaskState,
    rec: Recommendation,
    recs: RecommendationStack,
    out: Instruction[],
    stimulusId: string,
  ): void {
    const start = ts.state;
    const local = new RecommendationStack();
    try {
      this.transition(ts, RELEASED, local, out, stimulusId);
      for (let own = local.take(ts); own !== undefined; own = local.take(ts)) {
        if (own.finish === "forgotten") continue;
        this.transition(ts, own, local, out, stimulusId);
      }
      this.transition(ts, rec, local, out, stimulusId);
    } catch (error) {
      if (error instanceof TransitionCounterMaxExceeded) throw error;
      // A step that is impossible from where the task ended up (e.g. secede of a task
      // that was in flight: cancelled(flight) → long-running) is an invalid transition.
      if (error instanceof InvalidTransition || error instanceof StateInvariantError) {
        throw new InvalidTransition(ts.key, start, rec.finish, this.story([ts.key]), { cause: error, stimulusId });
      }
      throw error;
    }
    for (const [other, otherRec] of local.entries()) recs.add(other, otherRec);
  }

  /** The recommendations a transition made, as `[key, finish, …]` pairs (null: none). */
  private summary(recs: RecommendationStack, from: number): string[] | null {
    const n = recs.journalLength();
    if (n === from) return null;
    const pairs: string[] = new Array((n - from) * 2);
    for (let i = from, j = 0; i < n; i++, j += 2) {
      pairs[j] = (recs.journalTasks[i] as TaskState).key;
      pairs[j + 1] = (recs.journalRecs[i] as Recommendation).finish;
    }
    return pairs;
  }

  // ---- helpers shared by transitions and handlers ----------------------------------

  logEntry(entry: LogEntry): void {
    this.log.push(entry);
  }

  story(keysOrStimulusIds: readonly unknown[]): LogEntry[] {
    return storyOf(keysOrStimulusIds, this.log);
  }

  /** dask's `_ensure_task_exists`. */
  ensureTaskExists(key: Key, priority: Priority, stimulusId: string): TaskState {
    let ts = this.tasks.get(key);
    if (ts === undefined) {
      ts = new TaskState(key);
      this.tasks.set(key, ts);
    }
    if (ts.priority === null || ts.priority.length === 0) ts.priority = priority;
    this.log.taggedState(key, "ensure-task-exists", ts.state, stimulusId, this.stimulusSeq);
    return ts;
  }

  addToDataNeeded(worker: string, ts: TaskState): void {
    let heap = this.dataNeeded.get(worker);
    if (heap === undefined) {
      heap = new SharedSlotPrioritySet<TaskState>(priorityOf);
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

const RELEASED: Recommendation = { finish: "released" };

/** `worker` holds `ts`: index it, and queue the fetch if `ts` is to be fetched. */
function addHolder(worker: string, core: StateCore, ts: TaskState): void {
  core.addToHasWhat(worker, ts.key);
  if (ts.state === "fetch") core.addToDataNeeded(worker, ts);
}

function indexHolder(worker: string, index: Map<string, Set<Key>>, key: Key): void {
  let keys = index.get(worker);
  if (keys === undefined) {
    keys = new Set();
    index.set(worker, keys);
  }
  keys.add(key);
}

function priorityOf(ts: TaskState): Priority | null {
  return ts.priority;
}

export type { ResourceMap };
