// cancelled and resumed: a task whose execute/gather coroutine is still outstanding when
// the scheduler changes its mind. `previous` says which coroutine, `next` (resumed only)
// where the task goes once it returns. At most one coroutine exists per key.
import type { TransitionFn } from "../core.js";
import { LongRunningMsg } from "../instructions.js";
import { InvalidTransition } from "../errors.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { ensureComputing } from "../scheduling/compute.js";
import { linkCount } from "../links.js";
import type { TaskState } from "../task-state.js";
import { genericReleased, invariant, toMemory } from "./generic.js";

function isExecution(previous: string | null): boolean {
  return previous === "executing" || previous === "long-running";
}

/** Whatever the coroutine produced is discarded once it returned; until then, a no-op. */
export const cancelledReleased: TransitionFn<"cancelled", "released" | "error" | "memory" | "missing" | "rescheduled"> = (core, ts, _rec, recs) => {
  if (!ts.done) return;
  ts.previous = null;
  ts.done = false;
  genericReleased(core, ts, recs);
};

export const cancelledFetch: TransitionFn<"cancelled", "fetch"> = (core, ts, _rec, recs, _out, stimulusId) => {
  if (core.validate) invariant(core, ts, ts.previous !== null, "cancelled without previous", stimulusId);
  if (ts.previous === "flight") {
    if (ts.done) {
      // The gather returned. A waiter means the fetch was asked by a dependent that has
      // just gone released -> waiting in this same batch (a task and its input came back
      // from one transfer), over the handler's own recommendation: fetch it again, as
      // dask's resumed -> fetch does for a returned gather. dask releases it and leaves
      // the dependent waiting for a released task (docs/state.md, "Deviations", 15).
      if (linkCount(ts._waiters) !== 0) {
        ts.state = "released";
        ts.done = false;
        ts.previous = null;
        recs.add(ts, Rec.fetch);
        return;
      }
      recs.add(ts, Rec.released);
      return;
    }
    ts.state = "flight";
    ts.previous = null;
    return;
  }
  invariant(core, ts, !ts.done, "fetch requested after the execution returned", stimulusId);
  ts.state = "resumed";
  ts.next = "fetch";
};

export const cancelledWaiting: TransitionFn<"cancelled", "waiting"> = (core, ts, _rec, _recs, out, stimulusId) => {
  invariant(core, ts, !ts.done, "compute requested after the coroutine returned", stimulusId);
  if (ts.previous === "executing") {
    ts.state = "executing";
    ts.previous = null;
  } else if (ts.previous === "long-running") {
    ts.state = "long-running";
    ts.previous = null;
    out.push(LongRunningMsg({ key: ts.key, runId: ts.runId, computeDuration: null, stimulusId }));
  } else {
    ts.state = "resumed";
    ts.next = "waiting";
  }
};

/** secede() while cancelled/resumed: free the thread, send nothing. */
export const cancelledOrResumedLongRunning: TransitionFn<"cancelled" | "resumed", "long-running"> = (core, ts, _rec, recs, _out, stimulusId) => {
  if (!isExecution(ts.previous)) {
    throw new InvalidTransition(ts.key, ts.state, "long-running", core.story([ts.key]), { stimulusId });
  }
  ts.previous = "long-running";
  core.executing.delete(ts);
  core.longRunning.add(ts);
  ensureComputing(core, recs);
};

export const resumedReleased: TransitionFn<"resumed", "released"> = (core, ts, _rec, _recs, _out, stimulusId) => {
  invariant(core, ts, !ts.done, "released after the coroutine returned", stimulusId);
  ts.state = "cancelled";
  ts.next = null;
};

export const resumedFetch: TransitionFn<"resumed", "fetch"> = (core, ts, _rec, recs) => {
  if (ts.previous !== "flight") return; // still executing: it will be fetched afterwards
  if (ts.done) {
    ts.state = "released";
    ts.done = false;
    ts.previous = null;
    ts.next = null;
    recs.add(ts, Rec.waiting);
    return;
  }
  ts.state = "flight";
  ts.previous = null;
  ts.next = null;
};

/** Success by the other route: spoof the message the scheduler expects from `next`. */
export const resumedMemory: TransitionFn<"resumed", "memory"> = (core, ts, rec, recs, out, stimulusId) => {
  const message = isExecution(ts.previous) ? "add-keys" : "task-finished";
  ts.previous = null;
  ts.next = null;
  toMemory(core, ts, rec.value, message, rec.runId, recs, out, stimulusId);
};

/** Failure by the other route: silently go the `next` way instead. */
export const resumedError: TransitionFn<"resumed", "error"> = (core, ts, _rec, recs, _out, stimulusId) => {
  invariant(core, ts, ts.done, "failed before the coroutine returned", stimulusId);
  goTheOtherWay(ts, recs);
};

export const resumedRescheduled: TransitionFn<"resumed", "rescheduled"> = (core, ts, _rec, recs, _out, stimulusId) => {
  invariant(core, ts, isExecution(ts.previous), "rescheduled but not executing", stimulusId);
  invariant(core, ts, ts.done, "failed before the coroutine returned", stimulusId);
  goTheOtherWay(ts, recs);
};

/** The coroutine failed: released, then fetched (it was executing) or computed (in flight). */
function goTheOtherWay(ts: TaskState, recs: RecommendationStack): void {
  recs.add(ts, isExecution(ts.previous) ? Rec.fetch : Rec.waiting);
  ts.state = "released";
  ts.done = false;
  ts.previous = null;
  ts.next = null;
}
