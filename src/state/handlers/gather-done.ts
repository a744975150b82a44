// The GatherDep coroutine returned (dask's `_handle_gather_dep_*`, `_gather_dep_done_common`).
import type { StateCore } from "../core.js";
import type {
  GatherDepBusyEvent,
  GatherDepDoneEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
} from "../events.js";
import { RequestRefreshWhoHasMsg, RetryBusyWorkerLater, type Instruction } from "../instructions.js";
import { StateInvariantError } from "../errors.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { everyLink, linkCount, linkHas, withoutLink } from "../links.js";
import type { TaskState } from "../task-state.js";

/**
 * Close the outstanding gather to `ev.worker` and return the tasks it was serving. A key
 * whose task is no longer in flight from that worker (scattered meanwhile, or forgotten
 * and re-created) is skipped: its result is stale. dask crashes on a forgotten one.
 */
function gatherDepDoneCommon(core: StateCore, ev: GatherDepDoneEvent): TaskState[] {
  core.transferIncomingBytes -= ev.totalNbytes;
  const sent = core.clearInFlight(ev.worker);
  if (sent === undefined) {
    throw new StateInvariantError(
      `${ev.kind} from ${ev.worker} (stimulus ${ev.stimulusId}): no gather to that worker is outstanding`,
    );
  }
  const tasks: TaskState[] = [];
  for (let i = 0; i < sent.length; i++) {
    const ts = sent[i] as TaskState;
    // comingFrom is set exactly while the task is in inFlightTasks (validateFlight), and
    // only to a peer with no gather outstanding; purgeState clears it, and every task is
    // purged before it is forgotten: a task sent to ev.worker that still comes from it is
    // the one registered under its key.
    if (ts.comingFrom !== ev.worker) {
      core.logEntry([ts.key, "stale-gather-result", ev.worker, ev.stimulusId, core.stimulusSeq]);
      continue;
    }
    ts.done = true;
    core.clearComingFrom(ts);
    tasks.push(ts);
  }
  return tasks;
}

function handleSuccess(core: StateCore, ev: GatherDepSuccessEvent, recs: RecommendationStack): void {
  const data = ev.data;
  // In a record without a prototype (records.ts) a value other than undefined is the key's
  // own: one hashed lookup per key instead of two (hasOwnProperty, then the value).
  const bare = Object.getPrototypeOf(data) === null;
  for (const ts of gatherDepDoneCommon(core, ev)) {
    const value = data[ts.key];
    if ((bare && value !== undefined) || Object.prototype.hasOwnProperty.call(data, ts.key)) {
      recs.add(ts, Rec.memory(value, ts.runId));
      continue;
    }
    core.log.tagged(ts.key, "missing-dep", ev.stimulusId, core.stimulusSeq);
    ts._whoHas = withoutLink(ts._whoHas, ev.worker);
    core.discardFromHasWhat(ev.worker, ts.key);
    recs.add(ts, Rec.fetch);
  }
}

function handleBusy(core: StateCore, ev: GatherDepBusyEvent, recs: RecommendationStack, out: Instruction[]): void {
  core.setBusy(ev.worker);
  const refreshWhoHas: string[] = [];
  for (const ts of gatherDepDoneCommon(core, ev)) {
    recs.add(ts, Rec.fetch);
    if (everyLink(ts._whoHas, isBusy, core)) refreshWhoHas.push(ts.key);
  }
  out.push(RetryBusyWorkerLater({ worker: ev.worker, stimulusId: ev.stimulusId }));
  if (refreshWhoHas.length > 0) out.push(RequestRefreshWhoHasMsg({ keys: refreshWhoHas, stimulusId: ev.stimulusId }));
}

function isBusy(worker: string, core: StateCore): boolean {
  return core.busyWorkers.has(worker);
}

/** The peer is treated as dead: everything we expected from it is looked for elsewhere. */
function handleNetworkFailure(core: StateCore, ev: GatherDepNetworkFailureEvent, recs: RecommendationStack): void {
  for (const ts of gatherDepDoneCommon(core, ev)) {
    core.log.tagged(ts.key, "missing-dep", ev.stimulusId, core.stimulusSeq);
    recs.add(ts, Rec.fetch);
  }
  forgetWorker(core, ev.worker, recs);
}

/**
 * Drop `worker` as a holder of anything: queued fetches that only it held go missing
 * (overriding any earlier recommendation), and it leaves every task's whoHas.
 */
export function forgetWorker(core: StateCore, worker: string, recs: RecommendationStack): void {
  const heap = core.dataNeeded.get(worker);
  if (heap !== undefined) {
    core.dropDataNeeded(worker);
    const queued = heap.sorted();
    // The heap is dropped whole: its members must not keep pointing at it.
    heap.clear();
    for (const ts of queued) {
      if (linkCount(ts._whoHas) === 1 && linkHas(ts._whoHas, worker)) recs.add(ts, Rec.missing);
    }
  }
  const keys = core.hasWhat.get(worker);
  if (keys !== undefined) {
    core.hasWhat.delete(worker);
    for (const key of keys) {
      const ts = core.tasks.get(key);
      if (ts !== undefined) ts._whoHas = withoutLink(ts._whoHas, worker);
    }
  }
}

function handleFailure(core: StateCore, ev: GatherDepFailureEvent, recs: RecommendationStack): void {
  for (const ts of gatherDepDoneCommon(core, ev)) {
    recs.add(ts, Rec.error(ev, ts.runId));
  }
}

export function handleGatherDepDone(
  core: StateCore,
  ev: GatherDepDoneEvent,
  recs: RecommendationStack,
  out: Instruction[],
): void {
  switch (ev.kind) {
    case "GatherDepSuccessEvent":
      return handleSuccess(core, ev, recs);
    case "GatherDepBusyEvent":
      return handleBusy(core, ev, recs, out);
    case "GatherDepNetworkFailureEvent":
      return handleNetworkFailure(core, ev, recs);
    case "GatherDepFailureEvent":
      return handleFailure(core, ev, recs);
  }
}
