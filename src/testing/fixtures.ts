// Ready-made WorkerStates for state-machine tests (dask's `ws` / `ws_with_running_task`
// fixtures) and `taskInState`, which drives a new key into a named state with the same
// events a scheduler and worker shell would send.

import {
  AcquireReplicasEvent,
  ComputeTaskEvent,
  ExecuteFailureEvent,
  FreeKeysEvent,
  GatherDepBusyEvent,
  GatherDepSuccessEvent,
  SecedeEvent,
  UpdateDataEvent,
  WorkerState,
  type Instruction,
  type Key,
  type StateMachineEvent,
  type TaskState,
  type WorkerStateOptions,
} from "../state/index.js";

export type { WorkerStateOptions };
/** Any event `handleStimulus` accepts. */
export type StateEvent = StateMachineEvent;

/** The address fresh workers get; peers in tests are `127.0.0.1:2`, `127.0.0.1:3`, … */
export const LOCAL_ADDRESS = "127.0.0.1:1";
/** A peer on the same host as `LOCAL_ADDRESS` (preferred by fetch scheduling). */
export const PEER = "127.0.0.1:2";

/**
 * A WorkerState with test defaults: address "127.0.0.1:1", nthreads 1, validate true and
 * transferMessageBytesLimit 50 MB (dask's production default, used by its `ws` fixture;
 * the constructor's own default is Infinity). Every option can be overridden.
 */
export function freshWorkerState(options: WorkerStateOptions = {}): WorkerState {
  return new WorkerState({
    address: LOCAL_ADDRESS,
    nthreads: 1,
    validate: true,
    transferMessageBytesLimit: 50e6,
    ...options,
  });
}

export interface RunningTaskOptions {
  /** Options for the WorkerState; `resources` defaults to `{ R: 1 }`. */
  worker?: WorkerStateOptions;
  key?: Key;
  /** "executing" (default) or "long-running" (the task seceded). */
  state?: "executing" | "long-running";
}

export interface RunningTask {
  ws: WorkerState;
  ts: TaskState;
  /** Instructions of the setup (Execute, plus LongRunningMsg when seceded). */
  instructions: Instruction[];
}

/**
 * dask's `ws_with_running_task`: a worker with resources `{R: 1}` running task "x"
 * (restricted to `{R: 1}`) started by stimulus "compute"; with state "long-running" it
 * then seceded (stimulus "secede", computeDuration 1).
 */
export function workerWithRunningTask(options: RunningTaskOptions = {}): RunningTask {
  const ws = freshWorkerState({ resources: { R: 1 }, ...options.worker });
  const key = options.key ?? "x";
  const instructions = ws.handleStimulus(
    ComputeTaskEvent({ key, resourceRestrictions: { R: 1 }, stimulusId: "compute" }),
  );
  if (options.state === "long-running") {
    instructions.push(...ws.handleStimulus(SecedeEvent({ key, computeDuration: 1, stimulusId: "secede" })));
  }
  const ts = requireTask(ws, key);
  const wanted = options.state ?? "executing";
  if (ts.state !== wanted) {
    throw new Error(`workerWithRunningTask: task ${key} ended ${ts.toString()}, expected ${wanted}`);
  }
  return { ws, ts, instructions };
}

/** States `taskInState` can produce; cancelled/resumed use dask's repr notation. */
export type ReachableState =
  | "waiting"
  | "ready"
  | "constrained"
  | "executing"
  | "long-running"
  | "fetch"
  | "flight"
  | "missing"
  | "memory"
  | "error"
  | "cancelled(executing)"
  | "cancelled(long-running)"
  | "cancelled(flight)"
  | "resumed(executing->fetch)"
  | "resumed(long-running->fetch)"
  | "resumed(flight->waiting)";

export interface TaskInStateOptions {
  /** Peer holding the replica for fetch/flight/missing/resumed states (default "127.0.0.1:2"). */
  peer?: string;
  /** nbytes for fetched tasks (default 1). */
  nbytes?: number;
  /** Scheduler priority of computed tasks (default [0]). */
  priority?: number[];
  /** Prefix of the setup stimulus ids (default `${key}-setup`); they get `-1`, `-2`, … */
  stimulusPrefix?: string;
}

export interface TaskInStateResult {
  ts: TaskState;
  /** Every instruction emitted while driving the task there, in order. */
  instructions: Instruction[];
}

/**
 * Drive a key the worker does not know yet into `state` with one call, using the
 * ordinary event sequence (so everything else stays consistent). What each state costs:
 *
 * - waiting: compute-task with one dependency `${key}-dep` held by `peer` (now in flight)
 * - ready / constrained: compute-task while every thread is busy (filler tasks
 *   `${key}-filler-<n>` are started if needed); constrained uses the restriction
 *   `{ [`${key}-resource`]: 1 }`, a resource the worker does not have, so it never runs
 * - executing / long-running (seceded) / error (execution failed): compute-task on a free thread
 * - flight: acquire-replicas from `peer`, which must not be in flight or busy
 * - fetch: flight, then `peer` answers busy (it joins busyWorkers; RetryBusyWorkerLater is emitted)
 * - missing: flight, then `peer` answers without the key
 * - memory: scatter (update-data) of the value `${key}-value`
 * - cancelled(…): the running/flight state, then free-keys
 * - resumed(executing|long-running->fetch): cancelled, then acquire-replicas from `peer`
 * - resumed(flight->waiting): cancelled(flight), then compute-task
 */
export function taskInState(
  ws: WorkerState,
  key: Key,
  state: ReachableState,
  options: TaskInStateOptions = {},
): TaskInStateResult {
  if (ws.tasks.has(key)) {
    throw new Error(`taskInState: key ${key} already exists (${requireTask(ws, key).toString()}); use a new key`);
  }
  const peer = options.peer ?? PEER;
  const nbytes = options.nbytes ?? 1;
  const priority = options.priority ?? [0];
  const prefix = options.stimulusPrefix ?? `${key}-setup`;
  let counter = 0;
  const instructions: Instruction[] = [];
  const send = (...events: StateEvent[]): void => {
    instructions.push(...ws.handleStimulus(...events));
  };
  const nextId = (): string => `${prefix}-${++counter}`;

  const compute = (extra: { resourceRestrictions?: Record<string, number> } = {}): void =>
    send(ComputeTaskEvent({ key, priority, stimulusId: nextId(), ...extra }));
  const acquire = (): void => {
    if (ws.inFlightWorkers.has(peer) || ws.busyWorkers.has(peer)) {
      throw new Error(`taskInState(${key}, ${state}): peer ${peer} is in flight or busy; pass another peer`);
    }
    send(AcquireReplicasEvent({ whoHas: { [key]: [peer] }, nbytes: { [key]: nbytes }, stimulusId: nextId() }));
  };
  const occupyAllThreads = (): void => {
    let filler = 0;
    while (ws.executingCount < ws.nthreads) {
      const fillerKey = `${key}-filler-${++filler}`;
      send(ComputeTaskEvent({ key: fillerKey, priority, stimulusId: nextId() }));
      if (requireTask(ws, fillerKey).state !== "executing") {
        throw new Error(`taskInState(${key}, ${state}): filler ${fillerKey} did not start (is the worker paused?)`);
      }
    }
  };
  const run = (): void => {
    if (ws.executingCount >= ws.nthreads) {
      throw new Error(`taskInState(${key}, ${state}): all ${ws.nthreads} threads are busy`);
    }
    compute();
  };

  switch (state) {
    case "waiting":
      send(
        ComputeTaskEvent({
          key,
          priority,
          whoHas: { [`${key}-dep`]: [peer] },
          nbytes: { [`${key}-dep`]: nbytes },
          stimulusId: nextId(),
        }),
      );
      break;
    case "ready":
      occupyAllThreads();
      compute();
      break;
    case "constrained":
      compute({ resourceRestrictions: { [`${key}-resource`]: 1 } });
      break;
    case "executing":
      run();
      break;
    case "long-running":
      run();
      send(SecedeEvent({ key, computeDuration: 1, stimulusId: nextId() }));
      break;
    case "error":
      run();
      send(
        ExecuteFailureEvent({
          key,
          runId: requireTask(ws, key).runId,
          exceptionText: `${key} failed`,
          stimulusId: nextId(),
        }),
      );
      break;
    case "flight":
      acquire();
      break;
    case "fetch":
      acquire();
      send(GatherDepBusyEvent({ worker: peer, totalNbytes: nbytes, stimulusId: nextId() }));
      break;
    case "missing":
      acquire();
      send(GatherDepSuccessEvent({ worker: peer, totalNbytes: nbytes, data: {}, stimulusId: nextId() }));
      break;
    case "memory":
      send(UpdateDataEvent({ data: { [key]: `${key}-value` }, stimulusId: nextId() }));
      break;
    case "cancelled(executing)":
    case "cancelled(long-running)":
    case "resumed(executing->fetch)":
    case "resumed(long-running->fetch)":
      run();
      if (state.includes("long-running")) send(SecedeEvent({ key, computeDuration: 1, stimulusId: nextId() }));
      send(FreeKeysEvent({ keys: [key], stimulusId: nextId() }));
      if (state.startsWith("resumed")) {
        send(AcquireReplicasEvent({ whoHas: { [key]: [peer] }, nbytes: { [key]: nbytes }, stimulusId: nextId() }));
      }
      break;
    case "cancelled(flight)":
    case "resumed(flight->waiting)":
      acquire();
      send(FreeKeysEvent({ keys: [key], stimulusId: nextId() }));
      if (state.startsWith("resumed")) compute();
      break;
    default: {
      const unreachable: never = state;
      throw new Error(`taskInState: unsupported state ${String(unreachable)}`);
    }
  }

  const ts = requireTask(ws, key);
  const reached = describeState(ts);
  if (reached !== state) {
    throw new Error(`taskInState(${key}): expected ${state}, reached ${reached} (${ts.toString()})`);
  }
  return { ts, instructions };
}

/** `state`, or dask's `cancelled(previous)` / `resumed(previous->next)` notation. */
export function describeState(ts: TaskState): string {
  if (ts.state === "cancelled") return `cancelled(${String(ts.previous)})`;
  if (ts.state === "resumed") return `resumed(${String(ts.previous)}->${String(ts.next)})`;
  return ts.state;
}

/** The registered TaskState of `key`, or an Error naming the key. */
export function requireTask(ws: WorkerState, key: Key): TaskState {
  const ts = ws.tasks.get(key);
  if (!ts) throw new Error(`task ${key} is not registered on this worker`);
  return ts;
}
