// Execute: one task on a thread slot, under an ["execute", prefix] root tracked by the
// worker's span registry — read its dependencies (metered), run it on the executor, and
// hand the outcome to the state machine as ExecuteSuccess / ExecuteFailure / Reschedule.
import {
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  RescheduleEvent,
  type Execute,
  type Key,
  type StateMachineEvent,
  type TaskState,
} from "../state/index.js";
import type { AttributeValue, SpanRecord } from "../spans/index.js";
import { completeWork, launch, settleOutcome, waitUnlessAborted, type WorkerCore } from "./async-work.js";
import { Reschedule } from "./errors.js";
import { failureFields } from "./failure.js";
import { executeRoot, latestChildEnd, newRoot } from "./span-roots.js";
import { isRecompute } from "./thread-ledger.js";
import type { Executor, Outcome } from "./types.js";
import type { ExecuteWork } from "./work-tracker.js";

function dependencyKeys(ts: TaskState): readonly Key[] {
  const keys = new Array<Key>(ts.dependencies.size);
  let i = 0;
  for (const dependency of ts.dependencies) keys[i++] = dependency.key;
  return Object.freeze(keys);
}

type ExecuteOutcome =
  | { readonly kind: "success"; readonly value: unknown; readonly nbytes: number; readonly type: string | null; readonly start: number; readonly stop: number }
  | { readonly kind: "failure"; readonly error: unknown; readonly start: number | null; readonly stop: number | null }
  | { readonly kind: "reschedule" }
  | { readonly kind: "aborted" };

export class Executions {
  readonly #core: WorkerCore;
  readonly #executor: Executor;

  constructor(core: WorkerCore, executor: Executor) {
    this.#core = core;
    this.#executor = executor;
  }

  start(instruction: Execute): void {
    const core = this.#core;
    const ts = core.state.tasks.get(instruction.key);
    if (ts === undefined) {
      throw new Error(`worker ${core.address}: Execute for unknown task ${JSON.stringify(instruction.key)} (stimulus ${instruction.stimulusId})`);
    }
    const thread = core.work.acquireSlot(ts.key, core.address);
    const recompute = isRecompute(ts.annotations);
    // Explicitly a root (no parent), whatever span is current: no pile-up (dask #7949).
    const attributes: Record<string, AttributeValue> = { key: ts.key, thread };
    // the keys it reads, for the trace's producer → consumer flows: one frozen array per task, shared by its records
    if (ts.dependencies.size > 0) attributes["dependencies"] = dependencyKeys(ts);
    if (recompute) attributes["recompute"] = true;
    const root = newRoot(core.clock, executeRoot(ts.prefix), { registry: core.spanRegistry, attributes }).start();
    const work: ExecuteWork = { kind: "execute", root, key: ts.key, thread, ledger: core.work.ledger.acquire(root, recompute), settled: false };
    core.work.track(work);
    const runId = ts.runId;
    // An executor that records under its explicit span needs no context binding.
    launch(
      core,
      work,
      this.#executor.explicitSpans === true,
      () => this.#run(ts, work),
      (outcome) => this.#finish(work, runId, outcome),
    );
  }

  async #run(ts: TaskState, work: ExecuteWork): Promise<ExecuteOutcome> {
    const core = this.#core;
    const { root } = work;
    const signal = core.signal;
    // Start on a later turn, like an asyncio task: the stimulus that emitted Execute
    // finishes dispatching first.
    await undefined;
    if (signal.aborted) return { kind: "aborted" };
    const key = ts.key;
    const dependencies = new Map<Key, unknown>();
    try {
      root.runSync(() => {
        for (const dep of ts.dependencies) {
          if (!core.data.has(dep.key)) {
            throw new Error(
              `dependency ${JSON.stringify(dep.key)} of task ${JSON.stringify(key)} is not in memory on worker ${core.address} (state ${dep.state}); it was released before the task could read it (dask #6893)`,
            );
          }
          dependencies.set(dep.key, core.data.get(dep.key));
        }
      });
    } catch (error) {
      return { kind: "failure", error, start: null, stop: null };
    }
    // after its arguments are read (a modelled disk read ends in the future) and once the
    // event loop is through what was queued before this task's coroutine
    const behind = Math.max(latestChildEnd(root, 0) - core.clock.now(), core.loopIdleIn());
    if (behind > 0 && !(await waitUnlessAborted(core, behind, signal))) return { kind: "aborted" };
    const start = core.clock.now();
    try {
      const result = await this.#executor.execute(
        { key, prefix: ts.prefix, runId: ts.runId, runSpec: ts.runSpec, dependencies },
        { span: root, clock: core.clock, signal },
      );
      const stop = core.clock.now();
      const nbytes = result.nbytes ?? core.sizeof(result.value);
      return { kind: "success", value: result.value, nbytes, type: result.type ?? null, start, stop };
    } catch (error) {
      if (signal.aborted) return { kind: "aborted" };
      if (error instanceof Reschedule) return { kind: "reschedule" };
      return { kind: "failure", error, start, stop: core.clock.now() };
    }
  }

  #finish(work: ExecuteWork, runId: number, outcome: ExecuteOutcome): void {
    const core = this.#core;
    if (!settleOutcome(core, work, outcome.kind === "aborted") || outcome.kind === "aborted") return;
    // The slot is free for the task this done event starts; the finishing task keeps its
    // entry in `threads` while the event is handled, so TaskFinishedMsg/TaskErredMsg report it.
    core.work.releaseSlot(work);
    try {
      const ts = core.state.tasks.get(work.key);
      // a task released while it ran (cancelled) has its result or error discarded
      const discarded = ts === undefined || ts.state === "cancelled";
      const coarse: Outcome =
        outcome.kind === "success" ? (discarded ? "cancelled" : "ok") : outcome.kind === "failure" ? (discarded ? "cancelled" : "failed") : "cancelled";
      completeWork(core, work, coarse, outcome.kind === "failure" ? outcome : undefined, (span) => this.#doneEvent(work.key, runId, outcome, span));
    } finally {
      core.work.forgetThread(work);
    }
  }

  #doneEvent(key: Key, runId: number, outcome: Exclude<ExecuteOutcome, { kind: "aborted" }>, span: SpanRecord): StateMachineEvent {
    const core = this.#core;
    switch (outcome.kind) {
      case "success":
        return ExecuteSuccessEvent({
          key,
          runId,
          value: outcome.value,
          start: outcome.start,
          stop: outcome.stop,
          nbytes: outcome.nbytes,
          type: outcome.type,
          span,
          stimulusId: core.stimulusId("execute-success"),
        });
      case "failure":
        return ExecuteFailureEvent({
          key,
          runId,
          start: outcome.start,
          stop: outcome.stop,
          ...failureFields(outcome.error),
          span,
          stimulusId: core.stimulusId("execute-failure"),
        });
      case "reschedule":
        return RescheduleEvent({ key, span, stimulusId: core.stimulusId("reschedule") });
    }
  }
}
