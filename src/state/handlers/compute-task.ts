// ComputeTaskEvent: the scheduler asks us to compute a task (dask's `_handle_compute_task`).
import type { StateCore } from "../core.js";
import type { ComputeTaskEvent, Priority } from "../events.js";
import type { Instruction } from "../instructions.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { StateInvariantError } from "../errors.js";
import { linkCount, withLink } from "../links.js";
import { TaskState, storedRestrictions } from "../task-state.js";
import { taskFinishedMsg } from "../transitions/generic.js";

export function handleComputeTask(
  core: StateCore,
  ev: ComputeTaskEvent,
  recs: RecommendationStack,
  out: Instruction[],
): void {
  let ts = core.tasks.get(ev.key);
  if (ts === undefined) {
    ts = new TaskState(ev.key);
    core.tasks.set(ev.key, ts);
  }
  core.log.taggedState(ev.key, "compute-task", ts.state, ev.stimulusId, core.stimulusSeq);
  ts.runId = ev.runId;

  switch (ts.state) {
    case "ready":
    case "constrained":
    case "executing":
    case "long-running":
    case "waiting":
      return;
    case "memory":
      out.push(taskFinishedMsg(core, ts, ev.runId, ev.stimulusId));
      return;
    case "released":
    case "fetch":
    case "flight":
    case "missing":
    case "cancelled":
    case "resumed":
    case "error":
      break;
    default:
      throw new StateInvariantError(
        `Unexpected task state encountered for ${ts.toString()}; stimulus ${ev.stimulusId}`,
      );
  }

  recs.add(ts, Rec.waiting);
  ts.runSpec = ev.runSpec;
  const schedulerPriority = ev.priority;
  const n = schedulerPriority.length;
  const priority: number[] = new Array(n + 1);
  for (let i = 0; i < n; i++) priority[i] = schedulerPriority[i] as number;
  priority[n] = core.generation;
  core.generation--;
  if (ev.actor) core.actors.set(ts.key, null);
  ts.exception = null;
  ts.traceback = null;
  ts.exceptionText = "";
  ts.tracebackText = "";
  ts.priority = priority as Priority;
  ts.annotations = ev.annotations;
  ts.spanId = ev.spanId;
  // A cancelled/resumed task still holds the resources it acquired: keep the restrictions
  // they were acquired with, so that releasing them balances.
  const stillRunning =
    (ts.state === "cancelled" || ts.state === "resumed") &&
    (ts.previous === "executing" || ts.previous === "long-running");
  if (!stillRunning) ts.resourceRestrictions = storedRestrictions(ev.resourceRestrictions);

  if (core.validate) validateDependencies(ev);

  core.startEnsured();
  for (const depKey in ev.nbytes) {
    const dep = core.ensureTaskExists(depKey, priority, ev.stimulusId);
    if (dep.state !== "memory") dep.nbytes = ev.nbytes[depKey] as number;
    ts._dependencies = withLink(ts._dependencies, dep);
    dep._dependents = withLink(dep._dependents, ts);
    core.noteEnsured(dep);
  }
  core.updateWhoHas(ev.whoHas, true);
  // A dependency stuck in missing that this event names holders for is fetched now. dask
  // leaves it missing-with-holders (an invalid state) when the dependent does not go
  // through released → waiting (e.g. it became resumed(flight → waiting)). Every missing
  // task is in missingDepFlight, so with that set empty there is nothing to look up.
  if (core.missingDepFlight.size === 0) return;
  for (const depKey in ev.whoHas) {
    const dep = core.tasks.get(depKey);
    if (dep !== undefined && dep.state === "missing" && linkCount(dep._whoHas) > 0) {
      recs.add(dep, Rec.fetch);
    }
  }
}

function validateDependencies(ev: ComputeTaskEvent): void {
  const whoHasKeys = Object.keys(ev.whoHas).sort();
  const nbytesKeys = Object.keys(ev.nbytes).sort();
  if (whoHasKeys.join("\u0000") !== nbytesKeys.join("\u0000")) {
    throw new StateInvariantError(
      `ComputeTaskEvent ${JSON.stringify(ev.key)} (stimulus ${ev.stimulusId}): whoHas and nbytes list different keys`,
    );
  }
  for (const dep of whoHasKeys) {
    const workers = ev.whoHas[dep] as readonly string[];
    if (workers.length === 0 || new Set(workers).size !== workers.length) {
      throw new StateInvariantError(
        `ComputeTaskEvent ${JSON.stringify(ev.key)} (stimulus ${ev.stimulusId}): whoHas.${dep} must be a non-empty list without duplicates`,
      );
    }
  }
}
