// Events about which keys this worker and its peers hold: free-keys, remove-replicas,
// acquire-replicas, refresh-who-has, remove-worker, and scatter (update-data).
import type { StateCore } from "../core.js";
import type {
  AcquireReplicasEvent,
  Key,
  FreeKeysEvent,
  RefreshWhoHasEvent,
  RemoveReplicasEvent,
  RemoveWorkerEvent,
  UpdateDataEvent,
} from "../events.js";
import { StateInvariantError } from "../errors.js";
import { linkCount, linksToArray } from "../links.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { RUN_ID_SENTINEL, TaskState } from "../task-state.js";
import { forgetWorker } from "./gather-done.js";

const REPLICA_PRIORITY = Object.freeze([1]);

export function handleFreeKeys(core: StateCore, ev: FreeKeysEvent, recs: RecommendationStack): void {
  core.log.tagged("free-keys", ev.keys, ev.stimulusId, core.stimulusSeq);
  const keys = ev.keys;
  for (let i = 0; i < keys.length; i++) {
    const ts = core.tasks.get(keys[i] as Key);
    if (ts !== undefined) recs.add(ts, Rec.released);
  }
}

export function handleRemoveReplicas(core: StateCore, ev: RemoveReplicasEvent, recs: RecommendationStack): void {
  for (const key of ev.keys) {
    const ts = core.tasks.get(key);
    if (ts === undefined || ts.state !== "memory") continue;
    // A dependent that is running may not have read its input yet.
    for (const dependent of linksToArray(ts._dependents)) {
      if (dependent.state === "executing" || dependent.state === "long-running") {
        throw new StateInvariantError(
          `Cannot remove replica of ${JSON.stringify(ts.key)} while ${dependent.toString()} in state ${JSON.stringify(dependent.state)} (stimulus ${ev.stimulusId})`,
        );
      }
    }
    core.log.tagged(ts.key, "remove-replica", ev.stimulusId, core.stimulusSeq);
    recs.add(ts, Rec.released);
  }
}

export function handleAcquireReplicas(core: StateCore, ev: AcquireReplicasEvent, recs: RecommendationStack): void {
  if (core.validate) {
    const a = Object.keys(ev.whoHas).sort().join("\u0000");
    const b = Object.keys(ev.nbytes).sort().join("\u0000");
    if (a !== b) {
      throw new StateInvariantError(`AcquireReplicasEvent (stimulus ${ev.stimulusId}): whoHas and nbytes list different keys`);
    }
    for (const key in ev.whoHas) {
      if ((ev.whoHas[key] as readonly string[]).length === 0) {
        throw new StateInvariantError(`AcquireReplicasEvent (stimulus ${ev.stimulusId}): whoHas.${key} is empty`);
      }
    }
  }
  core.startEnsured();
  for (const key in ev.nbytes) {
    const ts = core.ensureTaskExists(key, REPLICA_PRIORITY, ev.stimulusId);
    if (ts.state !== "memory") {
      ts.nbytes = ev.nbytes[key] as number;
      recs.add(ts, Rec.fetch);
    }
    core.noteEnsured(ts);
  }
  core.updateWhoHas(ev.whoHas, true);
}

export function handleRefreshWhoHas(core: StateCore, ev: RefreshWhoHasEvent, recs: RecommendationStack): void {
  core.updateWhoHas(ev.whoHas);
  for (const key in ev.whoHas) {
    const ts = core.tasks.get(key);
    if (ts === undefined) continue;
    const hasHolders = linkCount(ts._whoHas) > 0;
    if (hasHolders && ts.state === "missing") recs.add(ts, Rec.fetch);
    else if (!hasHolders && ts.state === "fetch") recs.add(ts, Rec.missing);
    // A fetch task that just gained a replica is picked up by ensureCommunicating.
  }
}

/** Like a network failure, without touching what is in flight from that worker. */
export function handleRemoveWorker(core: StateCore, ev: RemoveWorkerEvent, recs: RecommendationStack): void {
  forgetWorker(core, ev.worker, recs);
}

export function handleUpdateData(core: StateCore, ev: UpdateDataEvent, recs: RecommendationStack): void {
  for (const key in ev.data) {
    let ts = core.tasks.get(key);
    if (ts === undefined) {
      ts = new TaskState(key);
      core.tasks.set(key, ts);
    }
    recs.add(ts, Rec.memory(ev.data[key], RUN_ID_SENTINEL));
    core.log.taggedState(key, "receive-from-scatter", ts.state, ev.stimulusId, core.stimulusSeq);
  }
}
