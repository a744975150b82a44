// Transitions of tasks computed on this worker: waiting → ready/constrained → executing
// → long-running → memory/error/rescheduled, and cancellation of running tasks.
import type { TransitionFn } from "../core.js";
import { Execute, LongRunningMsg, RescheduleMsg } from "../instructions.js";
import { Rec } from "../recommendations.js";
import { ensureComputing } from "../scheduling/compute.js";
import { linkCount } from "../links.js";
import { EMPTY_RECORD } from "../records.js";
import { genericError, genericReleased, invariant, toMemory } from "./generic.js";

function hasRestrictions(restrictions: Readonly<Record<string, number>>): boolean {
  if (restrictions === EMPTY_RECORD) return false; // most tasks (see storedRestrictions)
  for (const _ in restrictions) return true;
  return false;
}

export const waitingReady: TransitionFn<"waiting", "ready"> = (core, ts, _rec, recs, _out, stimulusId) => {
  if (core.validate) {
    invariant(core, ts, linkCount(ts._waitingForData) === 0, "waiting for data", stimulusId);
    invariant(core, ts, ts.priority !== null, "no priority", stimulusId);
  }
  if (hasRestrictions(ts.resourceRestrictions)) {
    recs.add(ts, Rec.constrained);
    return;
  }
  ts.state = "ready";
  core.waiting.delete(ts);
  core.ready.add(ts);
  ensureComputing(core, recs);
};

export const waitingConstrained: TransitionFn<"waiting", "constrained"> = (core, ts, _rec, recs, _out, stimulusId) => {
  if (core.validate) {
    invariant(core, ts, linkCount(ts._waitingForData) === 0, "waiting for data", stimulusId);
    invariant(core, ts, !core.ready.has(ts) && !core.constrained.has(ts), "already queued", stimulusId);
  }
  ts.state = "constrained";
  core.waiting.delete(ts);
  core.constrained.add(ts);
  ensureComputing(core, recs);
};

/** The thread, `executing` membership and resources were taken by ensureComputing. */
export const readyExecuting: TransitionFn<"ready" | "constrained", "executing"> = (core, ts, _rec, _recs, out, stimulusId) => {
  if (core.validate) {
    invariant(core, ts, linkCount(ts._waitingForData) === 0, "waiting for data", stimulusId);
    invariant(core, ts, core.executing.has(ts), "no thread reserved", stimulusId);
    invariant(core, ts, !core.ready.has(ts) && !core.constrained.has(ts), "still queued", stimulusId);
  }
  ts.state = "executing";
  out.push(Execute({ key: ts.key, stimulusId }));
};

export const executingLongRunning: TransitionFn<"executing", "long-running"> = (core, ts, rec, recs, out, stimulusId) => {
  ts.state = "long-running";
  core.executing.delete(ts);
  core.longRunning.add(ts);
  out.push(
    LongRunningMsg({
      key: ts.key,
      runId: ts.runId,
      computeDuration: rec.computeDuration,
      stimulusId,
    }),
  );
  ensureComputing(core, recs);
};

export const executingMemory: TransitionFn<"executing" | "long-running", "memory"> = (core, ts, rec, recs, out, stimulusId) => {
  if (core.validate) {
    invariant(core, ts, linkCount(ts._waitingForData) === 0, "waiting for data", stimulusId);
    invariant(core, ts, !core.ready.has(ts) && !core.constrained.has(ts), "still queued", stimulusId);
  }
  toMemory(core, ts, rec.value, "task-finished", rec.runId, recs, out, stimulusId);
};

export const executingError: TransitionFn<"executing" | "long-running", "error"> = (core, ts, rec, _recs, out, stimulusId) => {
  genericError(core, ts, rec, out, stimulusId);
};

export const executingRescheduled: TransitionFn<"executing" | "long-running", "rescheduled"> = (core, ts, _rec, recs, out, stimulusId) => {
  invariant(core, ts, ts.done, "rescheduled before the execution returned", stimulusId);
  out.push(RescheduleMsg({ key: ts.key, stimulusId }));
  genericReleased(core, ts, recs);
};

/** The thread cannot be stopped: wait for it as cancelled(executing|long-running). */
export const executingReleased: TransitionFn<"executing" | "long-running", "released"> = (
  core,
  ts,
  _rec,
  _recs,
  _out,
  stimulusId,
  start,
) => {
  invariant(core, ts, !ts.done, "released after the execution returned", stimulusId);
  invariant(core, ts, ts.next === null, "resumed task not cancelled first", stimulusId);
  ts.previous = start;
  ts.next = null;
  ts.state = "cancelled";
};
