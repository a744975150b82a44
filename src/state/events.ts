// Stimuli of the worker state machine (dask's StateMachineEvent subclasses) as plain,
// frozen data. Each kind has a factory of the same name that fills dask's `.dummy()`
// defaults, so `ComputeTaskEvent({ key: "x", stimulusId: "s1" })` is a complete event.
//
// Freezing: the event object itself and its structural containers (priority, keys,
// whoHas and its lists, nbytes, resourceRestrictions) are frozen. Opaque payloads
// (task values, runSpec, exceptions, span records) are left as given: they belong to
// the caller and may be typed arrays, which cannot be frozen. `Object.freeze` is used
// directly: for plain objects and arrays it is what immer's `freeze` does, minus draft
// and prototype checks that cost ~100 ns per call on the hot path (measured).
import type { SpanRecord } from "../spans/index.js";
import { StateInvariantError } from "./errors.js";
import { EMPTY_RECORD, newRecord } from "./records.js";

export type Key = string;
export type Priority = readonly number[];
export type WhoHas = Readonly<Record<Key, readonly string[]>>;
export type NbytesMap = Readonly<Record<Key, number>>;
export type ResourceMap = Readonly<Record<string, number>>;

/** Marker used as `runSpec` by `ComputeTaskEvent` when none is given (dask's dummy runspec). */
export interface DummyRunSpec {
  readonly dummyRunSpec: Key;
}

function freezeList<T>(list: readonly T[]): readonly T[] {
  return Object.freeze(list);
}

function freezeRecord<V>(record: Readonly<Record<string, V>>): Readonly<Record<string, V>> {
  return Object.freeze(record);
}

function freezeWhoHas(whoHas: WhoHas): WhoHas {
  if (Object.isFrozen(whoHas)) return whoHas;
  for (const key in whoHas) Object.freeze(whoHas[key] as string[]);
  return Object.freeze(whoHas);
}

const DEFAULT_PRIORITY: Priority = Object.freeze([0]);

// ---------------------------------------------------------------------------------------

export interface ComputeTaskEvent {
  readonly kind: "ComputeTaskEvent";
  readonly key: Key;
  readonly runId: number;
  readonly whoHas: WhoHas;
  readonly nbytes: NbytesMap;
  readonly priority: Priority;
  readonly duration: number;
  readonly runSpec: unknown;
  readonly resourceRestrictions: ResourceMap;
  readonly actor: boolean;
  readonly annotations: Readonly<Record<string, unknown>>;
  readonly spanId: string | null;
  readonly stimulusId: string;
}
export type ComputeTaskEventInit = Pick<ComputeTaskEvent, "key" | "stimulusId"> &
  Partial<Omit<ComputeTaskEvent, "kind" | "key" | "stimulusId">>;

export function ComputeTaskEvent(init: ComputeTaskEventInit): ComputeTaskEvent {
  const whoHas = init.whoHas ?? EMPTY_RECORD;
  let nbytes = init.nbytes;
  if (nbytes === undefined) {
    const ones = newRecord<number>();
    for (const dep in whoHas) ones[dep] = 1;
    nbytes = ones;
  }
  return Object.freeze<ComputeTaskEvent>({
    kind: "ComputeTaskEvent",
    key: init.key,
    runId: init.runId ?? 0,
    whoHas: freezeWhoHas(whoHas),
    nbytes: freezeRecord(nbytes),
    priority: freezeList(init.priority ?? DEFAULT_PRIORITY),
    duration: init.duration ?? 1,
    runSpec: init.runSpec === undefined ? Object.freeze({ dummyRunSpec: init.key }) : init.runSpec,
    resourceRestrictions: freezeRecord(init.resourceRestrictions ?? EMPTY_RECORD),
    actor: init.actor ?? false,
    annotations: freezeRecord(init.annotations ?? EMPTY_RECORD),
    spanId: init.spanId ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface ExecuteSuccessEvent {
  readonly kind: "ExecuteSuccessEvent";
  readonly key: Key;
  readonly runId: number;
  readonly value: unknown;
  readonly start: number;
  readonly stop: number;
  readonly nbytes: number;
  readonly type: string | null;
  readonly span: SpanRecord | null;
  readonly stimulusId: string;
}
export type ExecuteSuccessEventInit = Pick<ExecuteSuccessEvent, "key" | "stimulusId"> &
  Partial<Omit<ExecuteSuccessEvent, "kind" | "key" | "stimulusId">>;

export function ExecuteSuccessEvent(init: ExecuteSuccessEventInit): ExecuteSuccessEvent {
  return Object.freeze({
    kind: "ExecuteSuccessEvent",
    key: init.key,
    runId: init.runId ?? 1,
    value: init.value === undefined ? null : init.value,
    start: init.start ?? 0,
    stop: init.stop ?? 1,
    nbytes: init.nbytes ?? 1,
    type: init.type ?? null,
    span: init.span ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface ExecuteFailureEvent {
  readonly kind: "ExecuteFailureEvent";
  readonly key: Key;
  readonly runId: number;
  readonly start: number | null;
  readonly stop: number | null;
  readonly exception: unknown;
  readonly traceback: unknown;
  readonly exceptionText: string;
  readonly tracebackText: string;
  readonly span: SpanRecord | null;
  readonly stimulusId: string;
}
export type ExecuteFailureEventInit = Pick<ExecuteFailureEvent, "key" | "stimulusId"> &
  Partial<Omit<ExecuteFailureEvent, "kind" | "key" | "stimulusId">>;

export function ExecuteFailureEvent(init: ExecuteFailureEventInit): ExecuteFailureEvent {
  return Object.freeze({
    kind: "ExecuteFailureEvent",
    key: init.key,
    runId: init.runId ?? 1,
    start: init.start ?? null,
    stop: init.stop ?? null,
    exception: init.exception === undefined ? null : init.exception,
    traceback: init.traceback === undefined ? null : init.traceback,
    exceptionText: init.exceptionText ?? "",
    tracebackText: init.tracebackText ?? "",
    span: init.span ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface RescheduleEvent {
  readonly kind: "RescheduleEvent";
  readonly key: Key;
  readonly span: SpanRecord | null;
  readonly stimulusId: string;
}
export type RescheduleEventInit = Pick<RescheduleEvent, "key" | "stimulusId"> &
  Partial<Pick<RescheduleEvent, "span">>;

export function RescheduleEvent(init: RescheduleEventInit): RescheduleEvent {
  return Object.freeze({
    kind: "RescheduleEvent",
    key: init.key,
    span: init.span ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface GatherDepSuccessEvent {
  readonly kind: "GatherDepSuccessEvent";
  readonly worker: string;
  readonly totalNbytes: number;
  readonly data: Readonly<Record<Key, unknown>>;
  readonly span: SpanRecord | null;
  readonly stimulusId: string;
}
export type GatherDepSuccessEventInit = Pick<
  GatherDepSuccessEvent,
  "worker" | "totalNbytes" | "data" | "stimulusId"
> &
  Partial<Pick<GatherDepSuccessEvent, "span">>;

export function GatherDepSuccessEvent(init: GatherDepSuccessEventInit): GatherDepSuccessEvent {
  return Object.freeze({
    kind: "GatherDepSuccessEvent",
    worker: init.worker,
    totalNbytes: init.totalNbytes,
    data: freezeRecord(init.data),
    span: init.span ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface GatherDepBusyEvent {
  readonly kind: "GatherDepBusyEvent";
  readonly worker: string;
  readonly totalNbytes: number;
  readonly span: SpanRecord | null;
  readonly stimulusId: string;
}
export type GatherDepBusyEventInit = Pick<GatherDepBusyEvent, "worker" | "totalNbytes" | "stimulusId"> &
  Partial<Pick<GatherDepBusyEvent, "span">>;

export function GatherDepBusyEvent(init: GatherDepBusyEventInit): GatherDepBusyEvent {
  return Object.freeze({
    kind: "GatherDepBusyEvent",
    worker: init.worker,
    totalNbytes: init.totalNbytes,
    span: init.span ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface GatherDepNetworkFailureEvent {
  readonly kind: "GatherDepNetworkFailureEvent";
  readonly worker: string;
  readonly totalNbytes: number;
  readonly span: SpanRecord | null;
  readonly stimulusId: string;
}
export type GatherDepNetworkFailureEventInit = Pick<
  GatherDepNetworkFailureEvent,
  "worker" | "totalNbytes" | "stimulusId"
> &
  Partial<Pick<GatherDepNetworkFailureEvent, "span">>;

export function GatherDepNetworkFailureEvent(
  init: GatherDepNetworkFailureEventInit,
): GatherDepNetworkFailureEvent {
  return Object.freeze({
    kind: "GatherDepNetworkFailureEvent",
    worker: init.worker,
    totalNbytes: init.totalNbytes,
    span: init.span ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface GatherDepFailureEvent {
  readonly kind: "GatherDepFailureEvent";
  readonly worker: string;
  readonly totalNbytes: number;
  readonly exception: unknown;
  readonly traceback: unknown;
  readonly exceptionText: string;
  readonly tracebackText: string;
  readonly span: SpanRecord | null;
  readonly stimulusId: string;
}
export type GatherDepFailureEventInit = Pick<
  GatherDepFailureEvent,
  "worker" | "totalNbytes" | "stimulusId"
> &
  Partial<Omit<GatherDepFailureEvent, "kind" | "worker" | "totalNbytes" | "stimulusId">>;

export function GatherDepFailureEvent(init: GatherDepFailureEventInit): GatherDepFailureEvent {
  return Object.freeze({
    kind: "GatherDepFailureEvent",
    worker: init.worker,
    totalNbytes: init.totalNbytes,
    exception: init.exception === undefined ? null : init.exception,
    traceback: init.traceback === undefined ? null : init.traceback,
    exceptionText: init.exceptionText ?? "",
    tracebackText: init.tracebackText ?? "",
    span: init.span ?? null,
    stimulusId: init.stimulusId,
  });
}

export interface FreeKeysEvent {
  readonly kind: "FreeKeysEvent";
  readonly keys: readonly Key[];
  readonly stimulusId: string;
}
export function FreeKeysEvent(init: Omit<FreeKeysEvent, "kind">): FreeKeysEvent {
  return Object.freeze({ kind: "FreeKeysEvent", keys: freezeList(init.keys), stimulusId: init.stimulusId });
}

export interface RemoveReplicasEvent {
  readonly kind: "RemoveReplicasEvent";
  readonly keys: readonly Key[];
  readonly stimulusId: string;
}
export function RemoveReplicasEvent(init: Omit<RemoveReplicasEvent, "kind">): RemoveReplicasEvent {
  return Object.freeze({
    kind: "RemoveReplicasEvent",
    keys: freezeList(init.keys),
    stimulusId: init.stimulusId,
  });
}

export interface AcquireReplicasEvent {
  readonly kind: "AcquireReplicasEvent";
  readonly whoHas: WhoHas;
  readonly nbytes: NbytesMap;
  readonly stimulusId: string;
}
export type AcquireReplicasEventInit = Pick<AcquireReplicasEvent, "whoHas" | "stimulusId"> &
  Partial<Pick<AcquireReplicasEvent, "nbytes">>;

export function AcquireReplicasEvent(init: AcquireReplicasEventInit): AcquireReplicasEvent {
  let nbytes = init.nbytes;
  if (nbytes === undefined) {
    const ones = newRecord<number>();
    for (const key in init.whoHas) ones[key] = 1;
    nbytes = ones;
  }
  return Object.freeze({
    kind: "AcquireReplicasEvent",
    whoHas: freezeWhoHas(init.whoHas),
    nbytes: freezeRecord(nbytes),
    stimulusId: init.stimulusId,
  });
}

export interface RefreshWhoHasEvent {
  readonly kind: "RefreshWhoHasEvent";
  readonly whoHas: WhoHas;
  readonly stimulusId: string;
}
export function RefreshWhoHasEvent(init: Omit<RefreshWhoHasEvent, "kind">): RefreshWhoHasEvent {
  return Object.freeze({
    kind: "RefreshWhoHasEvent",
    whoHas: freezeWhoHas(init.whoHas),
    stimulusId: init.stimulusId,
  });
}

export interface CancelComputeEvent {
  readonly kind: "CancelComputeEvent";
  readonly key: Key;
  readonly stimulusId: string;
}
export function CancelComputeEvent(init: Omit<CancelComputeEvent, "kind">): CancelComputeEvent {
  return Object.freeze({ kind: "CancelComputeEvent", key: init.key, stimulusId: init.stimulusId });
}

export interface StealRequestEvent {
  readonly kind: "StealRequestEvent";
  readonly key: Key;
  readonly stimulusId: string;
}
export function StealRequestEvent(init: Omit<StealRequestEvent, "kind">): StealRequestEvent {
  return Object.freeze({ kind: "StealRequestEvent", key: init.key, stimulusId: init.stimulusId });
}

export interface SecedeEvent {
  readonly kind: "SecedeEvent";
  readonly key: Key;
  readonly computeDuration: number;
  readonly stimulusId: string;
}
export function SecedeEvent(init: Omit<SecedeEvent, "kind">): SecedeEvent {
  return Object.freeze({
    kind: "SecedeEvent",
    key: init.key,
    computeDuration: init.computeDuration,
    stimulusId: init.stimulusId,
  });
}

export interface UpdateDataEvent {
  readonly kind: "UpdateDataEvent";
  readonly data: Readonly<Record<Key, unknown>>;
  readonly stimulusId: string;
}
export function UpdateDataEvent(init: Omit<UpdateDataEvent, "kind">): UpdateDataEvent {
  return Object.freeze({ kind: "UpdateDataEvent", data: freezeRecord(init.data), stimulusId: init.stimulusId });
}

export interface RemoveWorkerEvent {
  readonly kind: "RemoveWorkerEvent";
  readonly worker: string;
  readonly stimulusId: string;
}
export function RemoveWorkerEvent(init: Omit<RemoveWorkerEvent, "kind">): RemoveWorkerEvent {
  return Object.freeze({ kind: "RemoveWorkerEvent", worker: init.worker, stimulusId: init.stimulusId });
}

export interface RetryBusyWorkerEvent {
  readonly kind: "RetryBusyWorkerEvent";
  readonly worker: string;
  readonly stimulusId: string;
}
export function RetryBusyWorkerEvent(init: Omit<RetryBusyWorkerEvent, "kind">): RetryBusyWorkerEvent {
  return Object.freeze({ kind: "RetryBusyWorkerEvent", worker: init.worker, stimulusId: init.stimulusId });
}

export interface PauseEvent {
  readonly kind: "PauseEvent";
  readonly stimulusId: string;
}
export function PauseEvent(init: Omit<PauseEvent, "kind">): PauseEvent {
  return Object.freeze({ kind: "PauseEvent", stimulusId: init.stimulusId });
}

export interface UnpauseEvent {
  readonly kind: "UnpauseEvent";
  readonly stimulusId: string;
}
export function UnpauseEvent(init: Omit<UnpauseEvent, "kind">): UnpauseEvent {
  return Object.freeze({ kind: "UnpauseEvent", stimulusId: init.stimulusId });
}

export interface FindMissingEvent {
  readonly kind: "FindMissingEvent";
  readonly stimulusId: string;
}
export function FindMissingEvent(init: Omit<FindMissingEvent, "kind">): FindMissingEvent {
  return Object.freeze({ kind: "FindMissingEvent", stimulusId: init.stimulusId });
}

// ---------------------------------------------------------------------------------------

export type ExecuteDoneEvent = ExecuteSuccessEvent | ExecuteFailureEvent | RescheduleEvent;
export type GatherDepDoneEvent =
  | GatherDepSuccessEvent
  | GatherDepBusyEvent
  | GatherDepNetworkFailureEvent
  | GatherDepFailureEvent;

export type StateMachineEvent =
  | ComputeTaskEvent
  | ExecuteDoneEvent
  | GatherDepDoneEvent
  | FreeKeysEvent
  | RemoveReplicasEvent
  | AcquireReplicasEvent
  | RefreshWhoHasEvent
  | CancelComputeEvent
  | StealRequestEvent
  | SecedeEvent
  | UpdateDataEvent
  | RemoveWorkerEvent
  | RetryBusyWorkerEvent
  | PauseEvent
  | UnpauseEvent
  | FindMissingEvent;

export type StateMachineEventKind = StateMachineEvent["kind"];

/**
 * Every event kind with its factory. The type demands exactly one entry per member of
 * `StateMachineEvent`, so a new kind without a factory (or a stale entry) fails to compile;
 * `EVENT_KINDS` is read from it.
 */
const EVENT_FACTORIES: { readonly [K in StateMachineEventKind]: (init: never) => Extract<StateMachineEvent, { kind: K }> } = {
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  ExecuteFailureEvent,
  RescheduleEvent,
  GatherDepSuccessEvent,
  GatherDepBusyEvent,
  GatherDepNetworkFailureEvent,
  GatherDepFailureEvent,
  FreeKeysEvent,
  RemoveReplicasEvent,
  AcquireReplicasEvent,
  RefreshWhoHasEvent,
  CancelComputeEvent,
  StealRequestEvent,
  SecedeEvent,
  UpdateDataEvent,
  RemoveWorkerEvent,
  RetryBusyWorkerEvent,
  PauseEvent,
  UnpauseEvent,
  FindMissingEvent,
};

export const EVENT_KINDS: readonly StateMachineEventKind[] = Object.freeze(
  Object.keys(EVENT_FACTORIES) as StateMachineEventKind[],
);

/**
 * The `default` of an exhaustive switch over event kinds: `event` is `never` there, so a
 * kind the switch misses fails to compile; at run time (an object from untyped code) it
 * throws naming the kind and the stimulus.
 */
export function unknownEventKind(event: never): never {
  const unknown = event as { kind?: unknown; stimulusId?: unknown };
  throw new StateInvariantError(
    `unknown event kind ${JSON.stringify(unknown.kind)} (stimulus ${JSON.stringify(unknown.stimulusId)})`,
  );
}
