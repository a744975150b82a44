// The small scheduler/peer/shell model behind `runStimuli`: it remembers what the worker
// asked for (executions, transfers, busy-peer retries) so that every generated step turns
// into an event a real cluster could send now, and it checks the rules a WorkerState must
// keep towards its shell (one execution and one transfer per key at a time, …).
//
// Plausibility rules (what a real scheduler and shell would never do, so neither do we):
// - done events only for outstanding Execute/GatherDep/RetryBusyWorkerLater instructions,
//   secede at most once per execution;
// - task keys are computed here and never inputs; data keys are only fetched or
//   scattered; replicas of data keys are dropped only when no task here still needs them
//   (the active memory manager; reference §18.17);
// - a gather fails with a non-network error only when no waiting task needs its keys
//   (otherwise the dependents would wait for ever, reference §18.2 / dask #6705);
// - scatter only to fresh keys or data keys that are released/fetch/missing/memory
//   (scatter onto flight/executing tasks is racy, reference §18.5/§18.6).
import {
  AcquireReplicasEvent,
  CancelComputeEvent,
  ComputeTaskEvent,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  FindMissingEvent,
  FreeKeysEvent,
  GatherDepBusyEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
  PauseEvent,
  RefreshWhoHasEvent,
  RemoveReplicasEvent,
  RemoveWorkerEvent,
  RescheduleEvent,
  RetryBusyWorkerEvent,
  SecedeEvent,
  StealRequestEvent,
  UnpauseEvent,
  UpdateDataEvent,
  type Instruction,
  type Key,
  type StateMachineEvent,
  type TaskState,
  type WorkerState,
} from "../state/index.js";
import type { Replica, Stimulus } from "./stimuli.js";

interface PendingExecute {
  readonly key: Key;
  readonly runId: number;
  seceded: boolean;
}

interface PendingGather {
  readonly worker: string;
  readonly keys: readonly Key[];
  readonly totalNbytes: number;
}

/** A rule of the worker ↔ shell protocol that the worker broke. */
export class ModelViolation extends Error {
  constructor(
    readonly invariant: string,
    readonly key: Key | null,
  ) {
    super(invariant);
    this.name = "ModelViolation";
  }
}

/** States a data key may be scattered onto (not flight, not executing: racy in dask). */
const SCATTERABLE = new Set<string | undefined>([undefined, "released", "fetch", "missing", "memory"]);
/** States of dependents that no longer need their inputs. */
const DONE_WITH_INPUTS = new Set<string>(["memory", "error", "released"]);

function record<T>(entries: Iterable<readonly [Key, T]>): Record<Key, T> {
  const out = Object.create(null) as Record<Key, T>;
  for (const [key, value] of entries) out[key] = value;
  return out;
}

export class SchedulerModel {
  /** Outstanding executions by key, oldest first. */
  readonly executes = new Map<Key, PendingExecute>();
  /** Outstanding transfers by peer, oldest first. */
  readonly gathers = new Map<string, PendingGather>();
  /** Peers with a RetryBusyWorkerLater timer pending, oldest first. */
  readonly retries = new Set<string>();
  #sequence = 0;
  #runId = 0;
  #scattered = 0;

  constructor(private readonly ws: WorkerState) {}

  get outstanding(): number {
    return this.executes.size + this.gathers.size + this.retries.size;
  }

  #sid(label: string): string {
    return `${label}-${++this.#sequence}`;
  }

  /** The event `stimulus` stands for now, or null when it does not apply (a no-op). */
  resolve(stimulus: Stimulus): StateMachineEvent | null {
    const ws = this.ws;
    switch (stimulus.kind) {
      case "compute": {
        const resource = this.#restriction(stimulus.restricted);
        return ComputeTaskEvent({
          key: stimulus.key,
          runId: ++this.#runId,
          priority: [stimulus.priority],
          whoHas: record(stimulus.inputs.map((r) => [r.key, [...r.holders]] as const)),
          nbytes: record(stimulus.inputs.map((r) => [r.key, r.nbytes] as const)),
          resourceRestrictions: resource,
          stimulusId: this.#sid("compute"),
        });
      }
      case "execute-done": {
        const pending = this.executes.get(stimulus.key) ?? first(this.executes.values());
        if (pending === undefined) return null;
        if (stimulus.outcome === "secede" && !pending.seceded) {
          pending.seceded = true;
          return SecedeEvent({ key: pending.key, computeDuration: 1, stimulusId: this.#sid("secede") });
        }
        this.executes.delete(pending.key);
        const { key, runId } = pending;
        switch (stimulus.outcome) {
          case "failure":
            return ExecuteFailureEvent({ key, runId, exceptionText: "boom", stimulusId: this.#sid("execute-failure") });
          case "reschedule":
            return RescheduleEvent({ key, stimulusId: this.#sid("reschedule") });
          default:
            return ExecuteSuccessEvent({ key, runId, value: `v-${key}`, nbytes: stimulus.nbytes, stimulusId: this.#sid("execute-success") });
        }
      }
      case "gather-done": {
        const pending = this.gathers.get(stimulus.peer) ?? first(this.gathers.values());
        if (pending === undefined) return null;
        this.gathers.delete(pending.worker);
        const base = { worker: pending.worker, totalNbytes: pending.totalNbytes };
        switch (stimulus.outcome) {
          case "partial": {
            const kept = pending.keys.filter((_, i) => ((stimulus.keep >> i) & 1) === 1);
            return GatherDepSuccessEvent({ ...base, data: record(kept.map((k) => [k, `v-${k}`] as const)), stimulusId: this.#sid("gather-partial") });
          }
          case "busy":
            return GatherDepBusyEvent({ ...base, stimulusId: this.#sid("gather-busy") });
          case "failure":
            if (!neededByWaitingTask(ws, pending.keys)) {
              return GatherDepFailureEvent({ ...base, exceptionText: "cannot deserialize", stimulusId: this.#sid("gather-failure") });
            }
            return GatherDepNetworkFailureEvent({ ...base, stimulusId: this.#sid("gather-network-failure") });
          case "network-failure":
            return GatherDepNetworkFailureEvent({ ...base, stimulusId: this.#sid("gather-network-failure") });
          default:
            return GatherDepSuccessEvent({ ...base, data: record(pending.keys.map((k) => [k, `v-${k}`] as const)), stimulusId: this.#sid("gather-success") });
        }
      }
      case "retry-busy": {
        const worker = this.retries.has(stimulus.peer) ? stimulus.peer : first(this.retries.values());
        if (worker === undefined) return null;
        this.retries.delete(worker);
        return RetryBusyWorkerEvent({ worker, stimulusId: this.#sid("retry-busy") });
      }
      case "acquire":
        return AcquireReplicasEvent({
          whoHas: record(stimulus.replicas.map((r: Replica) => [r.key, [...r.holders]] as const)),
          nbytes: record(stimulus.replicas.map((r: Replica) => [r.key, r.nbytes] as const)),
          stimulusId: this.#sid("acquire"),
        });
      case "refresh-who-has": {
        const self = ws.address;
        return RefreshWhoHasEvent({
          whoHas: record(
            stimulus.whoHas.map((entry) => [entry.key, entry.withSelf && self !== null ? [self, ...entry.holders] : [...entry.holders]] as const),
          ),
          stimulusId: this.#sid("refresh-who-has"),
        });
      }
      case "free":
        return FreeKeysEvent({ keys: [...stimulus.keys], stimulusId: this.#sid("free") });
      case "remove-replicas": {
        const keys = stimulus.keys.filter((key) => this.#removable(key));
        if (keys.length === 0) return null;
        return RemoveReplicasEvent({ keys, stimulusId: this.#sid("remove-replicas") });
      }
      case "steal":
        return StealRequestEvent({ key: stimulus.key, stimulusId: this.#sid("steal") });
      case "cancel":
        return CancelComputeEvent({ key: stimulus.key, stimulusId: this.#sid("cancel") });
      case "pause":
        return stimulus.paused ? PauseEvent({ stimulusId: this.#sid("pause") }) : UnpauseEvent({ stimulusId: this.#sid("unpause") });
      case "scatter": {
        const key = stimulus.key ?? `s${++this.#scattered}`;
        if (!SCATTERABLE.has(ws.tasks.get(key)?.state)) return null;
        return UpdateDataEvent({ data: record([[key, `scattered-${key}`]]), stimulusId: this.#sid("scatter") });
      }
      case "remove-worker":
        return RemoveWorkerEvent({ worker: stimulus.peer, stimulusId: this.#sid("remove-worker") });
      case "find-missing":
        return FindMissingEvent({ stimulusId: this.#sid("find-missing") });
    }
  }

  /** A literal event fed by the caller answers an outstanding instruction like a resolved step does. */
  answered(event: StateMachineEvent): void {
    switch (event.kind) {
      case "ExecuteSuccessEvent":
      case "ExecuteFailureEvent":
      case "RescheduleEvent":
        this.executes.delete(event.key);
        break;
      case "SecedeEvent": {
        const pending = this.executes.get(event.key);
        if (pending !== undefined) pending.seceded = true;
        break;
      }
      case "GatherDepSuccessEvent":
      case "GatherDepBusyEvent":
      case "GatherDepNetworkFailureEvent":
      case "GatherDepFailureEvent":
        this.gathers.delete(event.worker);
        break;
      case "RetryBusyWorkerEvent":
        this.retries.delete(event.worker);
        break;
      default:
        break;
    }
  }

  /**
   * Records what the worker asked its shell for in answer to `event`, and checks the
   * protocol: throws a ModelViolation naming the broken rule.
   */
  observe(event: StateMachineEvent, instructions: readonly Instruction[]): void {
    const ws = this.ws;
    for (const instruction of instructions) {
      if (instruction.stimulusId !== event.stimulusId) {
        throw new ModelViolation(`an instruction carries stimulus id ${JSON.stringify(instruction.stimulusId)}, not its event's`, keyOf(instruction));
      }
      switch (instruction.kind) {
        case "Execute": {
          const key = instruction.key;
          if (this.executes.has(key)) throw new ModelViolation(`a second Execute for ${JSON.stringify(key)} while its execution is outstanding`, key);
          const ts = ws.tasks.get(key);
          if (ts === undefined) throw new ModelViolation(`Execute for ${JSON.stringify(key)}, which the worker does not know`, key);
          this.executes.set(key, { key, runId: ts.runId, seceded: false });
          break;
        }
        case "GatherDep": {
          const { worker, toGather } = instruction;
          if (worker === ws.address) throw new ModelViolation(`a GatherDep from the worker itself (${worker})`, toGather[0] ?? null);
          if (this.gathers.has(worker)) throw new ModelViolation(`a second GatherDep to ${worker} while one is outstanding`, toGather[0] ?? null);
          for (const other of this.gathers.values()) {
            const twice = toGather.find((key) => other.keys.includes(key));
            if (twice !== undefined) throw new ModelViolation(`${JSON.stringify(twice)} gathered from ${worker} and ${other.worker} at once`, twice);
          }
          this.gathers.set(worker, { worker, keys: toGather, totalNbytes: instruction.totalNbytes });
          break;
        }
        case "RetryBusyWorkerLater":
          this.retries.add(instruction.worker);
          break;
        default:
          break;
      }
    }
    if (ws.executingCount > ws.nthreads) {
      throw new ModelViolation(`${ws.executingCount} tasks executing on ${ws.nthreads} threads`, keyOfEvent(event));
    }
  }

  /** One round of letting every outstanding execution, transfer and retry succeed. */
  drainRound(): StateMachineEvent[] {
    const events: StateMachineEvent[] = [];
    for (const pending of this.executes.values()) {
      events.push(ExecuteSuccessEvent({ key: pending.key, runId: pending.runId, value: 1, stimulusId: this.#sid("drain-execute-success") }));
    }
    this.executes.clear();
    for (const pending of this.gathers.values()) {
      events.push(
        GatherDepSuccessEvent({
          worker: pending.worker,
          totalNbytes: pending.totalNbytes,
          data: record(pending.keys.map((k) => [k, 1] as const)),
          stimulusId: this.#sid("drain-gather-success"),
        }),
      );
    }
    this.gathers.clear();
    for (const worker of this.retries) events.push(RetryBusyWorkerEvent({ worker, stimulusId: this.#sid("drain-retry-busy") }));
    this.retries.clear();
    return events;
  }

  /** The unpause that starts a drain. */
  unpause(): StateMachineEvent {
    return UnpauseEvent({ stimulusId: this.#sid("drain-unpause") });
  }

  /**
   * Tasks that are not at rest once nothing is outstanding: anything running, in flight,
   * queued or half-cancelled. A task may still wait for an input that is missing or erred
   * (dask #6705).
   */
  unsettledTasks(): TaskState[] {
    const stuck: TaskState[] = [];
    for (const ts of this.ws.tasks.values()) {
      if (ts.state === "waiting") {
        let blocked = false;
        for (const dep of ts.waitingForData) if (dep.state === "missing" || dep.state === "error") blocked = true;
        if (!blocked) stuck.push(ts);
      } else if (ts.state !== "memory" && ts.state !== "error" && ts.state !== "missing" && ts.state !== "released") {
        stuck.push(ts);
      }
    }
    return stuck;
  }

  #restriction(restricted: boolean): Record<string, number> {
    if (!restricted) return {};
    for (const [name, total] of Object.entries(this.ws.totalResources)) {
      if (total > 0) return { [name]: Math.min(1, total) };
    }
    return {};
  }

  #removable(key: Key): boolean {
    const ts = this.ws.tasks.get(key);
    if (ts === undefined || ts.state !== "memory") return false;
    for (const dependent of ts.dependents) if (!DONE_WITH_INPUTS.has(dependent.state)) return false;
    return true;
  }
}

/**
 * Whether a task here waits for one of `keys`: a transfer of them must not fail with an
 * error other than the network, or that task waits for ever (dask #6705).
 */
export function neededByWaitingTask(ws: WorkerState, keys: readonly Key[]): boolean {
  return keys.some((key) => {
    const ts = ws.tasks.get(key);
    if (ts === undefined) return false;
    for (const dependent of ts.dependents) if (dependent.waitingForData.has(ts)) return true;
    return false;
  });
}

function first<T>(items: Iterable<T>): T | undefined {
  for (const item of items) return item;
  return undefined;
}

/** The key an instruction is about, if any. */
function keyOf(instruction: Instruction): Key | null {
  if ("key" in instruction && typeof instruction.key === "string") return instruction.key;
  if (instruction.kind === "GatherDep") return instruction.toGather[0] ?? null;
  return null;
}

/** The key an event is about, if it names one (first of several). */
export function keyOfEvent(event: StateMachineEvent): Key | null {
  if ("key" in event && typeof event.key === "string") return event.key;
  if ("keys" in event && Array.isArray(event.keys)) return (event.keys[0] as Key | undefined) ?? null;
  const mapping = "whoHas" in event ? event.whoHas : "data" in event ? event.data : null;
  if (mapping !== null && typeof mapping === "object") {
    for (const key in mapping) return key;
  }
  return null;
}
