// Events that steer execution: pause/unpause, busy-worker retries, find-missing,
// cancel-compute, steal-request and secede.
import type { StateCore } from "../core.js";
import type { CancelComputeEvent, FindMissingEvent, SecedeEvent, StealRequestEvent } from "../events.js";
import { RequestRefreshWhoHasMsg, StealResponseMsg, type Instruction } from "../instructions.js";
import { StateInvariantError } from "../errors.js";
import { linkCount } from "../links.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { ensureComputing } from "../scheduling/compute.js";

function isQueuedForCompute(state: string): boolean {
  return state === "waiting" || state === "ready" || state === "constrained";
}

export function handlePause(core: StateCore): void {
  core.running = false;
}

export function handleUnpause(core: StateCore, recs: RecommendationStack): void {
  core.running = true;
  ensureComputing(core, recs);
}

export function handleRetryBusyWorker(core: StateCore, worker: string): void {
  core.clearBusy(worker);
}

export function handleFindMissing(core: StateCore, ev: FindMissingEvent, out: Instruction[]): void {
  if (core.missingDepFlight.size === 0) return;
  const keys: string[] = [];
  for (const ts of core.missingDepFlight) keys.push(ts.key);
  out.push(RequestRefreshWhoHasMsg({ keys, stimulusId: ev.stimulusId }));
}

export function handleCancelCompute(core: StateCore, ev: CancelComputeEvent, recs: RecommendationStack): void {
  const ts = core.tasks.get(ev.key);
  if (ts === undefined || !isQueuedForCompute(ts.state)) return;
  core.log.tagged(ev.key, "cancel-compute", ev.stimulusId, core.stimulusSeq);
  // The scheduler only cancels tasks nothing depends on yet.
  if (linkCount(ts._dependents) > 0) {
    throw new StateInvariantError(`cancel-compute for ${ts.toString()} which has dependents (stimulus ${ev.stimulusId})`);
  }
  recs.add(ts, Rec.released);
}

export function handleStealRequest(
  core: StateCore,
  ev: StealRequestEvent,
  recs: RecommendationStack,
  out: Instruction[],
): void {
  const ts = core.tasks.get(ev.key);
  const state = ts === undefined ? null : ts.state;
  out.push(StealResponseMsg({ key: ev.key, state, stimulusId: ev.stimulusId }));
  if (ts !== undefined && isQueuedForCompute(ts.state)) recs.add(ts, Rec.released);
}

export function handleSecede(core: StateCore, ev: SecedeEvent, recs: RecommendationStack): void {
  const ts = core.tasks.get(ev.key);
  if (ts !== undefined) recs.add(ts, Rec.longRunning(ev.computeDuration));
}
