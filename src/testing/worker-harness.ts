// `runWorkerScenario`: the async Worker (public API only) on a VirtualClock, with every
// asynchronous happening — a scheduler message arriving, a peer answering a transfer, a
// task finishing, a timer firing — a task of fast-check's scheduler (`fc.scheduler()`),
// which picks their order. Different orders of the same scenario are different runs, and a
// failing order replays from fast-check's seed and path like any counterexample.
//
// Checked after every step: no internal error (the Worker's `onError`), `validateState()`,
// thread slots within 0…nthreads-1 and distinct, an executing task sees the values its
// inputs were given, `idle()` never resolves while work is outstanding, no task-finished or
// task-erred twice for one run of a key. At the end: nothing outstanding, no thread held,
// every task at rest.
import type { Scheduler } from "fast-check";
import {
  AcquireReplicasEvent,
  CancelComputeEvent,
  ComputeTaskEvent,
  FreeKeysEvent,
  PauseEvent,
  SecedeEvent,
  StealRequestEvent,
  UnpauseEvent,
  type Key,
  type SendMessageToScheduler,
  type StateMachineEvent,
} from "../state/index.js";
import {
  NetworkError,
  Reschedule,
  VirtualClock,
  Worker,
  type Executor,
  type GetDataResponse,
  type Transport,
  type WorkerOptions,
} from "../worker/index.js";
import { TransitionRecorder, type TransitionRecord } from "./coverage.js";
import { LOCAL_ADDRESS } from "./fixtures.js";
import { formatInstruction } from "./match.js";
import { keyOfEvent, neededByWaitingTask } from "./scheduler-model.js";
import { StimulusViolation, keyOfError } from "./violation.js";
import type { PeerAnswer, TaskEnd, WorkerMessage, WorkerScenario } from "./worker-scenario.js";

export interface RunWorkerScenarioOptions {
  /**
   * Options of the Worker (default address 127.0.0.1:1, 2 threads, a Map as `data`,
   * validate true). The harness owns `clock`, `executor`, `transport`, `send` and `onError`.
   */
  worker?: Partial<Omit<WorkerOptions, "clock" | "executor" | "transport" | "send" | "onError">>;
  /** Your own invariants, called after every step (throw to fail). */
  check?: (worker: Worker) => void;
  /** A run taking more steps than this fails as not coming to rest (default 10,000). */
  maxSteps?: number;
}

export interface WorkerRun extends TransitionRecord {
  readonly worker: Worker;
  /** Every message the worker sent to the scheduler, in order. */
  readonly messages: readonly SendMessageToScheduler[];
  /** Scheduler tasks fast-check ran. */
  readonly steps: number;
}

/** The `runSpec` of a harness task: how its execution goes. */
interface HarnessTask {
  readonly end: TaskEnd;
  readonly secede: boolean;
  readonly nbytes: number;
}

class HarnessFailure extends Error {
  constructor(
    readonly invariant: string,
    readonly key: Key | null,
  ) {
    super(invariant);
  }
}

const TRACE_LINES = 40;

/** The value a peer serves for `key` (what an executing task must then read). */
function peerValue(key: Key): string {
  return `peer-value:${key}`;
}

/**
 * Plays `scenario` on a fresh Worker, fast-check's `scheduler` choosing the order of
 * everything asynchronous, and throws a StimulusViolation on the first broken check.
 */
export async function runWorkerScenario(scheduler: Scheduler, scenario: WorkerScenario, options: RunWorkerScenarioOptions = {}): Promise<WorkerRun> {
  const clock = new VirtualClock();
  const failures: HarnessFailure[] = [];
  const fail = (invariant: string, key: Key | null): void => {
    failures.push(new HarnessFailure(invariant, key));
  };
  const answers = new Map(scenario.peers.map((script) => [script.peer, [...script.answers]]));
  const executor: Executor = {
    explicitSpans: true,
    async execute(task) {
      const spec = task.runSpec as HarnessTask;
      for (const [key, value] of task.dependencies) {
        if (value !== peerValue(key)) fail(`${JSON.stringify(task.key)} read ${JSON.stringify(value)} for its input ${JSON.stringify(key)}`, task.key);
      }
      // what dask's secede() does from inside a task: tell the worker, which frees the thread
      if (spec.secede) handle(SecedeEvent({ key: task.key, computeDuration: 0, stimulusId: `secede-${task.key}-${task.runId}` }));
      await scheduler.schedule(Promise.resolve(), `${task.key} ends: ${spec.end}`);
      if (spec.end === "failure") throw new Error(`${task.key} failed as scripted`);
      if (spec.end === "reschedule") throw new Reschedule(`${task.key} asked to be rescheduled as scripted`);
      return { value: `result:${task.key}`, nbytes: spec.nbytes };
    },
  };
  const transport: Transport = {
    explicitSpans: true,
    async getData(peer, keys): Promise<GetDataResponse> {
      const scripted: PeerAnswer = answers.get(peer)?.shift() ?? "ok";
      await scheduler.schedule(Promise.resolve(), `${peer} answers ${scripted} for ${keys.join(", ")}`);
      // A failure other than the network while a waiting task needs the keys leaves it waiting
      // for ever (dask #6705): like runStimuli's model, the peer's link fails instead.
      const answer = scripted === "failure" && neededByWaitingTask(worker.state, keys) ? "network-failure" : scripted;
      switch (answer) {
        case "busy":
          return { status: "busy" };
        case "network-failure":
          throw new NetworkError(`${peer} is unreachable`, { peer });
        case "failure":
          throw new Error(`cannot deserialize the data from ${peer}`);
        default: {
          const data = Object.create(null) as Record<Key, unknown>;
          for (const key of answer === "missing" ? keys.slice(1) : keys) data[key] = peerValue(key);
          return { status: "OK", data };
        }
      }
    },
  };
  const messages: SendMessageToScheduler[] = [];
  const finished = new Set<string>();
  const worker = new Worker({
    address: LOCAL_ADDRESS,
    nthreads: 2,
    data: new Map<Key, unknown>(),
    ...options.worker,
    clock,
    executor,
    transport,
    send: (message) => {
      messages.push(message);
      if (message.kind === "TaskFinishedMsg" || message.kind === "TaskErredMsg") {
        const run = `${message.key}#${message.runId}`;
        if (finished.has(run)) fail(`a second ${message.op} for run ${message.runId} of ${JSON.stringify(message.key)}`, message.key);
        finished.add(run);
        // null when the key was not executed here (a failed fetch, a value gathered for a resumed task)
        const thread = message.thread;
        if (thread !== null && !(thread >= 0 && thread < worker.state.nthreads)) {
          fail(`${message.op} of ${JSON.stringify(message.key)} names thread ${thread} on a worker with ${worker.state.nthreads} threads`, message.key);
        }
      }
    },
    onError: (error) => fail(`the worker reported an internal error: ${error instanceof Error ? error.message : String(error)}`, null),
  });
  const handle = (event: StateMachineEvent): void => {
    try {
      worker.handleStimulus(event);
    } catch (error) {
      fail(`${formatInstruction(event)} threw: ${error instanceof Error ? error.message : String(error)}`, keyOfError(worker.state, error) ?? keyOfEvent(event));
    }
  };
  const recorder = new TransitionRecorder(worker.state);
  const watchIdle = (): void => {
    void worker.idle().then(() => {
      if (worker.outstanding > 0) fail(`idle() resolved while ${worker.outstanding} pieces of work are outstanding`, null);
    });
  };

  let runId = 0;
  let sequence = 0;
  const toEvent = (message: WorkerMessage): StateMachineEvent => {
    const stimulusId = `${message.kind}-${++sequence}`;
    const whoHas = (replicas: readonly { key: Key; holders: readonly string[] }[]) =>
      Object.assign(Object.create(null) as Record<Key, string[]>, Object.fromEntries(replicas.map((r) => [r.key, [...r.holders]])));
    const sizes = (replicas: readonly { key: Key; nbytes: number }[]) =>
      Object.assign(Object.create(null) as Record<Key, number>, Object.fromEntries(replicas.map((r) => [r.key, r.nbytes])));
    switch (message.kind) {
      case "compute": {
        const runSpec: HarnessTask = { end: message.end, secede: message.secede, nbytes: message.nbytes };
        return ComputeTaskEvent({ key: message.key, runId: ++runId, whoHas: whoHas(message.inputs), nbytes: sizes(message.inputs), runSpec, stimulusId });
      }
      case "free":
        return FreeKeysEvent({ keys: [...message.keys], stimulusId });
      case "cancel":
        return CancelComputeEvent({ key: message.key, stimulusId });
      case "steal":
        return StealRequestEvent({ key: message.key, stimulusId });
      case "acquire":
        return AcquireReplicasEvent({ whoHas: whoHas(message.replicas), nbytes: sizes(message.replicas), stimulusId });
      case "pause":
        return message.paused ? PauseEvent({ stimulusId }) : UnpauseEvent({ stimulusId });
    }
  };
  const deliver = (message: WorkerMessage) => async (): Promise<void> => {
    handle(toEvent(message));
    watchIdle();
  };
  // A real scheduler would unpause the worker eventually; the last message does.
  const script = [...scenario.messages, { kind: "pause", paused: false } as const];
  scheduler.scheduleSequence(script.map((message, i) => ({ label: `scheduler message ${i + 1}: ${JSON.stringify(message)}`, builder: deliver(message) })));

  const maxSteps = options.maxSteps ?? 10_000;
  let steps = 0;
  let ticking: Promise<unknown> | null = null;
  const throwIfFailed = (): void => {
    const failure = failures[0];
    if (failure !== undefined) throw violation(worker, scheduler, failure, steps);
  };
  watchIdle();
  for (;;) {
    await clock.settle();
    throwIfFailed();
    try {
      worker.state.validateState();
      checkThreads(worker);
      options.check?.(worker);
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error), keyOfError(worker.state, error));
      throwIfFailed();
    }
    recorder.maybeCollect();
    // The clock is one more participant: its next timer fires when fast-check says so.
    if (ticking === null && clock.pending > 0) {
      ticking = scheduler
        .schedule(Promise.resolve(), `timer due at t=${clock.nextTimerAt}`)
        .then(() => clock.run({ maxSteps: 1 }))
        .finally(() => {
          ticking = null;
        });
    }
    if (scheduler.count() === 0) {
      if (ticking === null) break;
      await ticking;
      continue;
    }
    if (++steps > maxSteps) {
      fail(`not at rest after ${maxSteps} steps`, null);
      throwIfFailed();
    }
    await scheduler.waitNext(1);
  }
  if (worker.outstanding > 0) fail(`${worker.outstanding} pieces of work outstanding once nothing is left to run`, null);
  if (worker.threads.size > 0) fail(`threads still held by ${[...worker.threads.keys()].join(", ")} at rest`, [...worker.threads.keys()][0] ?? null);
  for (const ts of worker.state.tasks.values()) {
    const waitingOnLostInput = ts.state === "waiting" && [...ts.waitingForData].some((dep) => dep.state === "missing" || dep.state === "error");
    if (!waitingOnLostInput && !["memory", "error", "missing", "released"].includes(ts.state)) {
      fail(`not at rest at the end: ${ts.toString()}`, ts.key);
      break;
    }
  }
  throwIfFailed();
  recorder.collect();
  return { worker, messages, steps, transitions: recorder.transitions, unrecordedTransitions: recorder.unrecordedTransitions };
}

/**
 * Slots are 0…nthreads-1, one per executing task. A seceded (long-running) task has handed
 * its thread back, as in dask, so it may share its slot number with the task that took it.
 */
function checkThreads(worker: Worker): void {
  const seen = new Map<number, Key>();
  for (const [key, slot] of worker.threads) {
    if (!(slot >= 0 && slot < worker.state.nthreads)) {
      throw new HarnessFailure(`${JSON.stringify(key)} runs on thread ${slot} of a worker with ${worker.state.nthreads} threads`, key);
    }
    const ts = worker.state.tasks.get(key);
    if (ts !== undefined && (ts.state === "long-running" || ts.previous === "long-running")) continue;
    const other = seen.get(slot);
    if (other !== undefined) throw new HarnessFailure(`${JSON.stringify(key)} and ${JSON.stringify(other)} share thread ${slot}`, key);
    seen.set(slot, key);
  }
}

function violation(worker: Worker, scheduler: Scheduler, failure: HarnessFailure, steps: number): StimulusViolation {
  const report = scheduler.report();
  const done = report.filter((item) => item.status !== "pending");
  const lines = report.map((item) => `[${item.taskId}] ${item.label} ${item.status}`);
  const trace = lines.length > TRACE_LINES ? [`… ${lines.length - TRACE_LINES} earlier tasks`, ...lines.slice(-TRACE_LINES)] : lines;
  return new StimulusViolation({
    invariant: failure.invariant,
    stimulus: done[done.length - 1]?.label ?? "(before any scheduler task)",
    position: steps,
    key: failure.key,
    story: failure.key === null ? [] : worker.state.story(failure.key),
    trace,
    events: [],
    reproduction: null,
    replay: null,
  });
}
