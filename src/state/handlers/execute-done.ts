// The Execute coroutine returned (dask's `_handle_execute_success/failure`,
// `_handle_reschedule`, `_execute_done_common`).
import type { StateCore } from "../core.js";
import type { ExecuteDoneEvent } from "../events.js";
import type { Instruction } from "../instructions.js";
import { StateInvariantError } from "../errors.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { releaseResources } from "../resources.js";
import { ensureComputing } from "../scheduling/compute.js";
import type { TaskState } from "../task-state.js";

/**
 * Free the thread and the resources, and fill the freed thread. The next task's
 * `executing` recommendation is queued before this task's outcome, so (LIFO) the
 * outcome's message precedes the next Execute.
 */
function executeDoneCommon(core: StateCore, ev: ExecuteDoneEvent, recs: RecommendationStack): TaskState {
  const ts = core.tasks.get(ev.key);
  if (ts === undefined) {
    throw new StateInvariantError(
      `${ev.kind} for unknown task ${JSON.stringify(ev.key)} (stimulus ${ev.stimulusId}): an executing task is never forgotten`,
    );
  }
  if (core.validate && core.executing.has(ts) === core.longRunning.has(ts)) {
    throw new StateInvariantError(
      `${ev.kind} for ${ts.toString()} (stimulus ${ev.stimulusId}): must be in exactly one of executing/longRunning`,
    );
  }
  ts.done = true;
  core.executedCount++;
  releaseResources(core.availableResources, ts);
  core.executing.delete(ts);
  core.longRunning.delete(ts);
  ensureComputing(core, recs);
  return ts;
}

export function handleExecuteDone(
  core: StateCore,
  ev: ExecuteDoneEvent,
  recs: RecommendationStack,
  _out: Instruction[],
): void {
  const ts = executeDoneCommon(core, ev, recs);
  switch (ev.kind) {
    case "ExecuteSuccessEvent":
      ts.addStartstop({ action: "compute", start: ev.start, stop: ev.stop });
      ts.nbytes = ev.nbytes;
      ts.type = ev.type;
      recs.add(ts, Rec.memory(ev.value, ev.runId));
      return;
    case "ExecuteFailureEvent":
      if (ev.start !== null && ev.stop !== null) {
        ts.addStartstop({ action: "compute", start: ev.start, stop: ev.stop });
      }
      recs.add(ts, Rec.error(ev, ev.runId));
      return;
    case "RescheduleEvent":
      recs.add(ts, Rec.rescheduled);
      return;
  }
}
