// The mutable state of one worker's state machine and the loop that drives transitions.
// `WorkerState` (worker-state.ts) is the public, read-only face of this object; the
// transition table, the event handlers and the schedulers operate on it directly. What it
// knows of its peers (holders, fetch queues, peers in flight or busy) is its base class,
// PeerState (peer-state.ts).
import type { Key, Priority, ResourceMap, StateMachineEvent } from "./events.js";
import type { Instruction } from "./instructions.js";
import { addressHost } from "./address.js";
import { InvalidTransition, StateInvariantError, TransitionCounterMaxExceeded } from "./errors.js";
import { BoundedLog, DEFAULT_LOG_LENGTH, StateLog, type LogEntry } from "./log.js";
import { PeerState, taskPriority } from "./peer-state.js";
import { SlotPrioritySet } from "./slot-priority-set.js";
import { RecommendationStack, type FinishState, type Recommendation, type RecommendationFor } from "./recommendations.js";
import { copyRecord, EMPTY_RECORD } from "./records.js";
import { defaultSizeof, type Sizeof } from "./sizeof.js";
import { storyOf } from "./story.js";
import { TaskState } from "./task-state.js";
import { stateIndex, type TaskStateName } from "./task-states.js";
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


export class StateCore extends PeerState {
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
  readonly ready = new SlotPrioritySet<TaskState>(taskPriority);
  readonly constrained = new SlotPrioritySet<TaskState>(taskPriority);
  readonly waiting = new Set<TaskState>();
  readonly executing = new Set<TaskState>();
  readonly longRunning = new Set<TaskState>();
  fetchCount = 0;
  readonly missingDepFlight = new Set<TaskState>();
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

  /** The stack drained by `handleStimulus`; reused (it is empty between stimuli). */
  private readonly mainStack = new RecommendationStack(true);
  /** Tasks touched during the current stimulus (only tracked when validating). */
  private touched: Set<TaskState> | null = null;

  /** `parts.transitions` indexed by (stateIndex(start), stateIndex(finish)). */
  private readonly transitionFns: TransitionGrid;
  /** The store is a plain Map: `set` cannot fail silently, `delete` of a missing key is a no-op. */
  readonly dataIsMap: boolean;

  constructor(parts: StateMachineParts, options: WorkerStateOptions = {}) {
    super();
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
}

const RELEASED: Recommendation = { finish: "released" };

export type { ResourceMap };
