// Building blocks shared by several transitions (dask's `_purge_state`,
// `_transition_generic_*`, `_transition_to_memory`).
import type { Instruction } from "../instructions.js";
import { AddKeysMsg, TaskErredMsg, TaskFinishedMsg } from "../instructions.js";
import type { StateCore } from "../core.js";
import { StateInvariantError } from "../errors.js";
import { Rec, type ErrorRecommendation, type RecommendationStack } from "../recommendations.js";
import { EMPTY_RECORD } from "../records.js";
import { typeName } from "../sizeof.js";
import { clearedLinks, forEachLink, linkCount, withoutLink } from "../links.js";
import { RUN_ID_SENTINEL, type TaskState } from "../task-state.js";

export function invariant(core: StateCore, ts: TaskState, condition: boolean, what: string, stimulusId: string): void {
  if (!condition) {
    throw new StateInvariantError(`${ts.toString()}: ${what} (stimulus ${stimulusId}, key ${JSON.stringify(ts.key)})`);
  }
}

/** Forget everything transient about `ts` and drop it from every collection. Idempotent. */
export function purgeState(core: StateCore, ts: TaskState): void {
  core.lastPurged = ts;
  core.lastPurgedAt = core.transitionCounter;
  const key = ts.key;
  // A released task was purged when it became released and has no value since (a plain
  // Map is then not asked: forgetting a released task purges it a second time).
  if (core.dataIsMap ? ts.state !== "released" : core.data.has(key)) core.data.delete(key);
  if (core.actors.size !== 0) core.actors.delete(key);
  if (core.threads.size !== 0) core.threads.delete(key);

  if (ts._whoHas !== null) {
    // Only a task in fetch is queued in dataNeeded (validateState), so only its holders'
    // heaps are searched.
    forEachLink(ts._whoHas, ts.state === "fetch" ? forgetQueuedHolder : forgetHolder, core, ts);
    ts._whoHas = clearedLinks(ts._whoHas);
  }
  forEachLink(ts._dependencies, stopWaitingFor, ts, null);
  ts._waitingForData = clearedLinks(ts._waitingForData);
  ts.nbytes = null;
  ts.previous = null;
  ts.next = null;
  ts.done = false;
  core.clearComingFrom(ts);
  ts.exception = null;
  ts.traceback = null;
  // dask forgets to reset exception_text here (a duplicated traceback_text line); we don't.
  ts.exceptionText = "";
  ts.tracebackText = "";

  // Most of these are empty or small; skip the lookups that cannot hit.
  if (core.missingDepFlight.size !== 0) core.missingDepFlight.delete(ts);
  if (core.ready.size !== 0) core.ready.discard(ts);
  if (core.constrained.size !== 0) core.constrained.discard(ts);
  if (core.executing.size !== 0) core.executing.delete(ts);
  if (core.longRunning.size !== 0) core.longRunning.delete(ts);
  if (core.waiting.size !== 0) core.waiting.delete(ts);
}

function forgetHolder(worker: string, core: StateCore, ts: TaskState): void {
  core.discardFromHasWhat(worker, ts.key);
}

function forgetQueuedHolder(worker: string, core: StateCore, ts: TaskState): void {
  core.discardFromHasWhat(worker, ts.key);
  core.discardFromDataNeeded(worker, ts);
}

function stopWaitingFor(dep: TaskState, ts: TaskState): void {
  if (dep._waiters !== null) dep._waiters = withoutLink(dep._waiters, ts);
}

/**
 * States whose task keeps its dependencies when a dependent is released: dask's
 * READY | PROCESSING | {"memory"} (a switch, not the Set: this runs per dependency;
 * memory, the usual state of a released task's dependency, first).
 */
function keepsDependencies(state: string): boolean {
  switch (state) {
    case "memory":
    case "ready":
    case "constrained":
    case "waiting":
    case "executing":
    case "long-running":
    case "cancelled":
    case "resumed":
      return true;
    default:
      return false;
  }
}

function releaseUnwaitedDependency(dep: TaskState, recs: RecommendationStack): void {
  if (linkCount(dep._waiters) === 0 && !keepsDependencies(dep.state)) recs.add(dep, Rec.released);
}

export function genericReleased(core: StateCore, ts: TaskState, recs: RecommendationStack): void {
  purgeState(core, ts);
  forEachLink(ts._dependencies, releaseUnwaitedDependency, recs, null);
  ts.state = "released";
  if (linkCount(ts._dependents) === 0) recs.add(ts, Rec.forgotten);
}

function queueFetch(worker: string, core: StateCore, ts: TaskState): void {
  core.addToDataNeeded(worker, ts);
}

export function genericFetch(core: StateCore, ts: TaskState, recs: RecommendationStack): void {
  if (linkCount(ts._whoHas) === 0) {
    recs.add(ts, Rec.missing);
    return;
  }
  ts.state = "fetch";
  ts.done = false;
  core.fetchCount++;
  forEachLink(ts._whoHas, queueFetch, core, ts);
}

export function genericMissing(core: StateCore, ts: TaskState, stimulusId: string): void {
  if (core.validate) invariant(core, ts, linkCount(ts._whoHas) === 0, "missing task has holders", stimulusId);
  ts.state = "missing";
  core.missingDepFlight.add(ts);
  ts.done = false;
}

export function genericError(
  core: StateCore,
  ts: TaskState,
  rec: ErrorRecommendation,
  out: Instruction[],
  stimulusId: string,
): void {
  ts.exception = rec.exception;
  ts.traceback = rec.traceback;
  ts.exceptionText = rec.exceptionText;
  ts.tracebackText = rec.tracebackText;
  ts.state = "error";
  out.push(
    TaskErredMsg({
      key: ts.key,
      runId: rec.runId,
      exception: rec.exception,
      traceback: rec.traceback,
      exceptionText: rec.exceptionText,
      tracebackText: rec.tracebackText,
      thread: core.threads.get(ts.key) ?? null,
      startstops: ts.startstops,
      stimulusId,
    }),
  );
}

export type MemoryMessage = "add-keys" | "task-finished" | null;

/** The one place that writes `data`. A store that throws turns into an error recommendation. */
export function toMemory(
  core: StateCore,
  ts: TaskState,
  value: unknown,
  message: MemoryMessage,
  runId: number,
  recs: RecommendationStack,
  out: Instruction[],
  stimulusId: string,
): void {
  if (core.validate) {
    invariant(core, ts, !core.data.has(ts.key), "key already in data", stimulusId);
    invariant(core, ts, ts.state !== "memory", "already in memory", stimulusId);
  }
  const key = ts.key;
  try {
    if (core.actors.size !== 0 && core.actors.has(key)) core.actors.set(key, value);
    else core.data.set(key, value);
  } catch (error) {
    recs.add(ts, errorRecommendation(error, runId));
    return;
  }
  ts.state = "memory";
  if (ts.nbytes === null) ts.nbytes = core.sizeof(value);
  core.nbytes += ts.nbytes;
  ts.type = typeName(value);
  forEachLink(ts._dependents, inputArrived, ts, recs);
  core.log.tagged(key, "put-in-memory", stimulusId, core.stimulusSeq);
  if (message === "add-keys") {
    out.push(AddKeysMsg({ keys: [key], stimulusId }));
  } else if (message === "task-finished") {
    if (runId === RUN_ID_SENTINEL) {
      throw new StateInvariantError(`${ts.toString()}: task-finished without a run id (stimulus ${stimulusId})`);
    }
    out.push(taskFinishedMsg(core, ts, runId, stimulusId, core.dataIsMap));
  }
}

/** `ts` reached memory: `dependent` waits for one input less, and may be ready. */
function inputArrived(dependent: TaskState, ts: TaskState, recs: RecommendationStack): void {
  dependent._waitingForData = withoutLink(dependent._waitingForData, ts);
  if (linkCount(dependent._waitingForData) === 0 && dependent.state === "waiting") recs.add(dependent, Rec.ready);
}

export function taskFinishedMsg(
  core: StateCore,
  ts: TaskState,
  runId: number,
  stimulusId: string,
  /** The value was just stored in a plain Map (it is there). */
  justStored = false,
): TaskFinishedMsg {
  const key = ts.key;
  if (!justStored && !core.data.has(key) && !core.actors.has(key)) {
    throw new StateInvariantError(`Task ${ts.toString()} not ready (stimulus ${stimulusId})`);
  }
  if (ts.nbytes === null || ts.type === null) {
    const value = core.actors.has(key) ? core.actors.get(key) : core.data.get(key);
    ts.nbytes = core.sizeof(value);
    ts.type = typeName(value);
  }
  return TaskFinishedMsg({
    key,
    runId,
    nbytes: ts.nbytes,
    type: ts.type,
    typename: ts.type,
    metadata: ts._metadataOrNull() ?? EMPTY_RECORD,
    thread: core.threads.size === 0 ? null : (core.threads.get(key) ?? null),
    startstops: ts.startstops,
    stimulusId,
  });
}


/** dask's `error_message(e)` as a recommendation. */
export function errorRecommendation(error: unknown, runId: number): ErrorRecommendation {
  const exceptionText = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const tracebackText = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
  return {
    finish: "error",
    exception: error,
    traceback: null,
    exceptionText,
    tracebackText,
    runId,
  };
}
