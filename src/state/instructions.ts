// What the worker state machine asks its shell to do (dask's Instruction subclasses),
// as plain frozen data (Object.freeze, see events.ts) with one factory per kind. Scheduler messages also carry `op`,
// the name dask's scheduler stream handler dispatches on.
import type { Key } from "./events.js";
import type { DigestMetric } from "../spans/digest-metric.js";
import { EMPTY_RECORD } from "./records.js";

/** One entry of `TaskState.startstops` (dask's `{action, start, stop[, source]}`). */
export interface StartStop {
  readonly action: string;
  readonly start: number;
  readonly stop: number;
  readonly source?: string;
}

function freezeList<T>(list: readonly T[]): readonly T[] {
  return Object.freeze(list);
}

const EMPTY_LIST: readonly never[] = Object.freeze([]);

// ---- instructions run by the shell --------------------------------------------------

export interface Execute {
  readonly kind: "Execute";
  readonly key: Key;
  readonly stimulusId: string;
}
export function Execute(init: Omit<Execute, "kind">): Execute {
  return Object.freeze({ kind: "Execute", key: init.key, stimulusId: init.stimulusId });
}

export interface GatherDep {
  readonly kind: "GatherDep";
  readonly worker: string;
  readonly toGather: readonly Key[];
  readonly totalNbytes: number;
  readonly stimulusId: string;
}
export function GatherDep(init: Omit<GatherDep, "kind">): GatherDep {
  return Object.freeze({
    kind: "GatherDep",
    worker: init.worker,
    toGather: freezeList(init.toGather),
    totalNbytes: init.totalNbytes,
    stimulusId: init.stimulusId,
  });
}

export interface RetryBusyWorkerLater {
  readonly kind: "RetryBusyWorkerLater";
  readonly worker: string;
  readonly stimulusId: string;
}
export function RetryBusyWorkerLater(init: Omit<RetryBusyWorkerLater, "kind">): RetryBusyWorkerLater {
  return Object.freeze({ kind: "RetryBusyWorkerLater", worker: init.worker, stimulusId: init.stimulusId });
}

// DigestMetric is built by spans as well as emitted here: it lives below both.
export { DigestMetric, type DigestMetricInit } from "../spans/digest-metric.js";

// ---- messages to the scheduler ------------------------------------------------------

export interface TaskFinishedMsg {
  readonly kind: "TaskFinishedMsg";
  readonly op: "task-finished";
  readonly key: Key;
  readonly runId: number;
  readonly nbytes: number | null;
  /** Type name of the value (dask sends the pickled Python type). */
  readonly type: string | null;
  readonly typename: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly thread: number | null;
  readonly startstops: readonly StartStop[];
  readonly stimulusId: string;
}
export type TaskFinishedMsgInit = Pick<TaskFinishedMsg, "key" | "stimulusId"> &
  Partial<Omit<TaskFinishedMsg, "kind" | "op" | "key" | "stimulusId">>;

export function TaskFinishedMsg(init: TaskFinishedMsgInit): TaskFinishedMsg {
  return Object.freeze({
    kind: "TaskFinishedMsg",
    op: "task-finished",
    key: init.key,
    runId: init.runId ?? -1,
    nbytes: init.nbytes ?? null,
    type: init.type ?? null,
    typename: init.typename ?? null,
    metadata: init.metadata === undefined || init.metadata === EMPTY_RECORD ? EMPTY_RECORD : Object.freeze(init.metadata),
    thread: init.thread ?? null,
    startstops: freezeList(init.startstops ?? EMPTY_LIST),
    stimulusId: init.stimulusId,
  });
}

export interface TaskErredMsg {
  readonly kind: "TaskErredMsg";
  readonly op: "task-erred";
  readonly key: Key;
  readonly runId: number;
  readonly exception: unknown;
  readonly traceback: unknown;
  readonly exceptionText: string;
  readonly tracebackText: string;
  readonly thread: number | null;
  readonly startstops: readonly StartStop[];
  readonly stimulusId: string;
}
export type TaskErredMsgInit = Pick<TaskErredMsg, "key" | "stimulusId"> &
  Partial<Omit<TaskErredMsg, "kind" | "op" | "key" | "stimulusId">>;

export function TaskErredMsg(init: TaskErredMsgInit): TaskErredMsg {
  return Object.freeze({
    kind: "TaskErredMsg",
    op: "task-erred",
    key: init.key,
    runId: init.runId ?? -1,
    exception: init.exception === undefined ? null : init.exception,
    traceback: init.traceback === undefined ? null : init.traceback,
    exceptionText: init.exceptionText ?? "",
    tracebackText: init.tracebackText ?? "",
    thread: init.thread ?? null,
    startstops: freezeList(init.startstops ?? EMPTY_LIST),
    stimulusId: init.stimulusId,
  });
}

export interface ReleaseWorkerDataMsg {
  readonly kind: "ReleaseWorkerDataMsg";
  readonly op: "release-worker-data";
  readonly key: Key;
  readonly stimulusId: string;
}
export function ReleaseWorkerDataMsg(init: Omit<ReleaseWorkerDataMsg, "kind" | "op">): ReleaseWorkerDataMsg {
  return Object.freeze({
    kind: "ReleaseWorkerDataMsg",
    op: "release-worker-data",
    key: init.key,
    stimulusId: init.stimulusId,
  });
}

export interface RescheduleMsg {
  readonly kind: "RescheduleMsg";
  readonly op: "reschedule";
  readonly key: Key;
  readonly stimulusId: string;
}
export function RescheduleMsg(init: Omit<RescheduleMsg, "kind" | "op">): RescheduleMsg {
  return Object.freeze({ kind: "RescheduleMsg", op: "reschedule", key: init.key, stimulusId: init.stimulusId });
}

export interface LongRunningMsg {
  readonly kind: "LongRunningMsg";
  readonly op: "long-running";
  readonly key: Key;
  readonly runId: number;
  readonly computeDuration: number | null;
  readonly stimulusId: string;
}
export type LongRunningMsgInit = Pick<LongRunningMsg, "key" | "stimulusId"> &
  Partial<Pick<LongRunningMsg, "runId" | "computeDuration">>;

export function LongRunningMsg(init: LongRunningMsgInit): LongRunningMsg {
  return Object.freeze({
    kind: "LongRunningMsg",
    op: "long-running",
    key: init.key,
    runId: init.runId ?? -1,
    computeDuration: init.computeDuration ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface AddKeysMsg {
  readonly kind: "AddKeysMsg";
  readonly op: "add-keys";
  readonly keys: readonly Key[];
  readonly stimulusId: string;
}
export function AddKeysMsg(init: Omit<AddKeysMsg, "kind" | "op">): AddKeysMsg {
  return Object.freeze({ kind: "AddKeysMsg", op: "add-keys", keys: freezeList(init.keys), stimulusId: init.stimulusId });
}

export interface RequestRefreshWhoHasMsg {
  readonly kind: "RequestRefreshWhoHasMsg";
  readonly op: "request-refresh-who-has";
  readonly keys: readonly Key[];
  readonly stimulusId: string;
}
export function RequestRefreshWhoHasMsg(
  init: Omit<RequestRefreshWhoHasMsg, "kind" | "op">,
): RequestRefreshWhoHasMsg {
  return Object.freeze({
    kind: "RequestRefreshWhoHasMsg",
    op: "request-refresh-who-has",
    keys: freezeList(init.keys),
    stimulusId: init.stimulusId,
  });
}

export interface StealResponseMsg {
  readonly kind: "StealResponseMsg";
  readonly op: "steal-response";
  readonly key: Key;
  readonly state: string | null;
  readonly stimulusId: string;
}
export type StealResponseMsgInit = Pick<StealResponseMsg, "key" | "stimulusId"> &
  Partial<Pick<StealResponseMsg, "state">>;

export function StealResponseMsg(init: StealResponseMsgInit): StealResponseMsg {
  return Object.freeze({
    kind: "StealResponseMsg",
    op: "steal-response",
    key: init.key,
    state: init.state ?? null,
    stimulusId: init.stimulusId,
  });
}

// ---------------------------------------------------------------------------------------

export type SendMessageToScheduler =
  | TaskFinishedMsg
  | TaskErredMsg
  | ReleaseWorkerDataMsg
  | RescheduleMsg
  | LongRunningMsg
  | AddKeysMsg
  | RequestRefreshWhoHasMsg
  | StealResponseMsg;

export type Instruction = Execute | GatherDep | RetryBusyWorkerLater | DigestMetric | SendMessageToScheduler;

export type InstructionKind = Instruction["kind"];

export function isSchedulerMessage(instruction: Instruction): instruction is SendMessageToScheduler {
  return "op" in instruction;
}
