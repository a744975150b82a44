// The one shape of an async instruction's life (dask's `_start_async_instruction` /
// `_finish_async_instruction`), shared by execute and gather-dep: launched in its root, its
// outcome settles the work, the root ends with the outcome and travels in the done event,
// and the event is handled under the root's name. What the parts of a Worker share is the
// WorkerCore the shell hands them.
import type { Span, SpanRecord, SpanRegistry } from "../spans/index.js";
import type { StateMachineEvent, WorkerState } from "../state/index.js";
import type { WorkerClock } from "./clock.js";
import { exceptionAttributes } from "./failure.js";
import type { PrefixWeights } from "./prefix-split.js";
import type { RootDigester } from "./root-digest.js";
import type { Outcome, WorkerDataStore } from "./types.js";
import type { ExecuteWork, TransferWork, Work, WorkKind, WorkTracker } from "./work-tracker.js";

/** What the parts of a Worker (execute, transfers, the get-data server) share with its shell. */
export interface WorkerCore {
  readonly address: string;
  readonly state: WorkerState;
  readonly data: WorkerDataStore;
  readonly clock: WorkerClock;
  /** Fired by close(): every sleep, transfer and task of the worker listens to it. */
  readonly signal: AbortSignal;
  readonly sizeof: (value: unknown) => number;
  readonly spanRegistry: SpanRegistry;
  readonly roots: RootDigester;
  readonly work: WorkTracker;
  /** Seconds a done event waits for the event loop before it is handled (WorkerOptions.eventLoop; 0 without one). */
  doneEventDelay(): number;
  /** Seconds until the event loop is through its booked work (WorkerOptions.eventLoop's idleIn; 0 without one). */
  loopIdleIn(): number;
  /** False once close() began: no done event is handled any more. */
  isRunning(): boolean;
  /** A fresh stimulus id, `<name>-<n>`. */
  stimulusId(name: string): string;
  /** Handles an event the worker made itself (not a done event) under its ["handle-stimulus", …] root. */
  handleStimulus(event: StateMachineEvent): void;
  /** Handles a done event under the root name of its work, charging its cost there. */
  handleDone(event: StateMachineEvent, rootName: readonly string[], outcome: Outcome, split: PrefixWeights | null): void;
  /** An unexpected failure while completing work (a state invariant, a throwing hook): to onError. */
  internalError(error: unknown, kind: WorkKind): void;
}

/** Work with a root span of its own. */
export type RootedWork = ExecuteWork | TransferWork;

/**
 * Runs `run` in `work`'s root — bound as the current span unless the plug-in records under
 * explicit spans only (no AsyncLocalStorage then) — and hands its outcome to `finish`.
 * A throw from `finish` goes to onError, never unhandled; a rejected `run` is recorded as
 * cancelled work.
 */
export function launch<T>(core: WorkerCore, work: RootedWork, explicitSpans: boolean, run: () => Promise<T>, finish: (outcome: T) => void): void {
  const settle = (outcome: T): void => {
    try {
      finish(outcome);
    } catch (error) {
      core.internalError(error, work.kind);
    }
  };
  (explicitSpans ? run() : work.root.asCurrent(run)).then(
    (outcome) => {
      // The event loop's cost of the done event (a modelled loop only): the root is still
      // open, so the wait is its `other` time. A close() during the wait settles at once.
      const wait = core.doneEventDelay();
      if (wait > 0) core.clock.sleep(wait, core.signal).then(() => settle(outcome), () => settle(outcome));
      else settle(outcome);
    },
    (error: unknown) => {
      if (core.work.settle(work)) core.work.cancel(work);
      core.internalError(error, work.kind);
    },
  );
}

/**
 * Settles work whose outcome came back. False when there is nothing more to do: close()
 * settled it first, or the work was aborted or the worker is closing — then it is recorded
 * as cancelled.
 */
export function settleOutcome(core: WorkerCore, work: Work, aborted: boolean): boolean {
  if (!core.work.settle(work)) return false;
  if (aborted || !core.isRunning()) {
    core.work.cancel(work);
    return false;
  }
  return true;
}

/**
 * Ends the root with its outcome (and the error of a failure), reports its record, and
 * handles the done event that carries it. The root ends when handling begins, so the
 * event-loop delay lands in `other`.
 */
export function completeWork(
  core: WorkerCore,
  work: RootedWork,
  outcome: Outcome,
  failure: { readonly error: unknown } | undefined,
  event: (span: SpanRecord) => StateMachineEvent,
): void {
  const root: Span = work.root;
  root.setAttribute("outcome", outcome);
  if (failure !== undefined) root.setAttributes(exceptionAttributes(failure.error));
  root.end();
  // the slot's time up to here is the task's; the done event may start the next task on it
  if (work.kind === "execute") core.work.ledger.release(work.ledger, outcome === "failed" ? "failed" : outcome === "ok" ? "ok" : "cancelled");
  const span = root.toRecord();
  core.roots.report(span);
  core.handleDone(event(span), root.name, outcome, work.kind === "execute" ? null : work.split);
}

/**
 * Waits `seconds` (> 0: callers skip the await, and its microtask, when there is nothing to
 * wait for) of the worker's clock before work goes on; false when `signal` aborted the wait,
 * so the caller's work ends "aborted".
 */
export async function waitUnlessAborted(core: WorkerCore, seconds: number, signal: AbortSignal): Promise<boolean> {
  try {
    await core.clock.sleep(seconds, signal);
    return true;
  } catch {
    return false;
  }
}
