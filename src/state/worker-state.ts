// The public face of the worker state machine (dask's WorkerState): one entry point,
// `handleStimulus`, and live read-only views of the state. Pure: no I/O, no clock, no
// randomness; the only outside effect is writing values into the injected `data` store.
import { StateCore } from "./core.js";
import type { DataStore, WorkerStateOptions } from "./state-options.js";
import type { Key, StateMachineEvent } from "./events.js";
import type { Instruction } from "./instructions.js";
import type { LogEntry } from "./log.js";
import type { ReadonlyPrioritySet } from "./priority-set.js";
import { addressHost } from "./address.js";
import { ensureCommunicating } from "./scheduling/fetch.js";
import { handleEvent } from "./handlers/index.js";
import { stimulusStoryOf } from "./story.js";
import type { TaskState } from "./task-state.js";
import { TRANSITIONS } from "./transitions/table.js";
import { validateState, validateTask } from "./validate.js";

export type { DataStore, WorkerStateOptions } from "./state-options.js";

const PARTS = Object.freeze({ transitions: TRANSITIONS, handleEvent, ensureCommunicating, validateTask });

export class WorkerState {
  /** @internal the mutable state; not part of the public API */
  readonly _core: StateCore;

  constructor(options: WorkerStateOptions = {}) {
    this._core = new StateCore(PARTS, options);
  }

  /** Feed events in order; returns the instructions they produced, in dask's order. */
  handleStimulus(...events: StateMachineEvent[]): Instruction[] {
    return this._core.handleStimulus(events);
  }

  // ---- configuration ------------------------------------------------------------------

  get address(): string | null {
    return this._core.address;
  }
  set address(address: string | null) {
    this._core.address = address;
    this._core.host = address === null ? null : addressHost(address);
  }
  get nthreads(): number {
    return this._core.nthreads;
  }
  get validate(): boolean {
    return this._core.validate;
  }
  get transitionCounterMax(): number | false {
    return this._core.transitionCounterMax;
  }
  get transferIncomingCountLimit(): number {
    return this._core.transferIncomingCountLimit;
  }
  get transferIncomingBytesLimit(): number {
    return this._core.transferIncomingBytesLimit;
  }
  get transferMessageBytesLimit(): number {
    return this._core.transferMessageBytesLimit;
  }
  get transferIncomingBytesThrottleThreshold(): number {
    return this._core.transferIncomingBytesThrottleThreshold;
  }

  // ---- live views -----------------------------------------------------------------------

  get tasks(): ReadonlyMap<Key, TaskState> {
    return this._core.tasks;
  }
  get data(): DataStore {
    return this._core.data;
  }
  get actors(): ReadonlyMap<Key, unknown> {
    return this._core.actors;
  }
  get threads(): Map<Key, number> {
    return this._core.threads;
  }
  get running(): boolean {
    return this._core.running;
  }
  get executing(): ReadonlySet<TaskState> {
    return this._core.executing;
  }
  get longRunning(): ReadonlySet<TaskState> {
    return this._core.longRunning;
  }
  /** executing ∪ longRunning */
  get allRunningTasks(): ReadonlySet<TaskState> {
    return new Set([...this._core.executing, ...this._core.longRunning]);
  }
  get inFlightTasks(): ReadonlySet<TaskState> {
    return this._core.inFlightTasks;
  }
  get missingDepFlight(): ReadonlySet<TaskState> {
    return this._core.missingDepFlight;
  }
  get waiting(): ReadonlySet<TaskState> {
    return this._core.waiting;
  }
  get ready(): ReadonlyPrioritySet<TaskState> {
    return this._core.ready;
  }
  get constrained(): ReadonlyPrioritySet<TaskState> {
    return this._core.constrained;
  }
  /** worker → its queued fetches; a worker with nothing queued has no entry. */
  get dataNeeded(): ReadonlyMap<string, ReadonlyPrioritySet<TaskState>> {
    return this._core.dataNeeded;
  }
  get fetchCount(): number {
    return this._core.fetchCount;
  }
  get inFlightWorkers(): ReadonlyMap<string, ReadonlySet<Key>> {
    return this._core.inFlightWorkers;
  }
  get busyWorkers(): ReadonlySet<string> {
    return this._core.busyWorkers;
  }
  /** worker → keys we believe it holds; a worker holding nothing has no entry. */
  get hasWhat(): ReadonlyMap<string, ReadonlySet<Key>> {
    return this._core.hasWhat;
  }
  get transferIncomingBytes(): number {
    return this._core.transferIncomingBytes;
  }
  get transferIncomingCount(): number {
    return this._core.transferIncomingCount;
  }
  get transferIncomingCountTotal(): number {
    return this._core.transferIncomingCountTotal;
  }
  get executedCount(): number {
    return this._core.executedCount;
  }
  get nbytes(): number {
    return this._core.nbytes;
  }
  get totalResources(): Readonly<Record<string, number>> {
    return this._core.totalResources;
  }
  get availableResources(): Readonly<Record<string, number>> {
    return this._core.availableResources;
  }
  get transitionCounter(): number {
    return this._core.transitionCounter;
  }
  get generation(): number {
    return this._core.generation;
  }
  get executingCount(): number {
    return this._core.executing.size;
  }
  get inFlightTasksCount(): number {
    return this._core.inFlightTasksCount;
  }
  /** Number of stimuli handled so far; the last field of every log entry. */
  get stimulusSeq(): number {
    return this._core.stimulusSeq;
  }

  // ---- logs ------------------------------------------------------------------------------

  /** The most recent log entries, oldest first (see docs/state.md for their shapes). */
  get log(): LogEntry[] {
    return this._core.log.toArray();
  }
  /** The most recent events handled (FindMissingEvent excepted), payloads stripped. */
  get stimulusLog(): StateMachineEvent[] {
    return this._core.stimulusLog.toArray();
  }
  /** Append an entry written by the shell (e.g. `["request-dep", worker, keys, stimulusId, t]`). */
  appendLog(entry: LogEntry): void {
    this._core.log.push([...entry]); // a copy: the log freezes what it stores
  }
  /** Log entries mentioning any of the keys, tasks or stimulus ids. */
  story(...keysOrStimulusIds: (Key | TaskState)[]): LogEntry[] {
    return this._core.story(keysOrStimulusIds);
  }
  /** Logged events about any of the keys. */
  stimulusStory(...keys: (Key | TaskState)[]): StateMachineEvent[] {
    return stimulusStoryOf(keys, this._core.stimulusLog);
  }

  // ---- validation ---------------------------------------------------------------------

  /** Check every invariant; throws InvalidTaskState / Error naming the broken one. */
  validateState(): void {
    validateState(this._core);
  }
}
