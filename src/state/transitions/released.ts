// Transitions out of released, and back to released from the resting states.
import type { TransitionFn } from "../core.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { clearedLinks, forEachLink, linkCount, linksToArray, withLink, withoutLink } from "../links.js";
import { RUN_ID_SENTINEL, type TaskState } from "../task-state.js";
import { ReleaseWorkerDataMsg } from "../instructions.js";
import type { StateCore } from "../core.js";
import { genericError, genericFetch, genericMissing, genericReleased, invariant, purgeState, toMemory } from "./generic.js";

export const releasedFetch: TransitionFn<"released", "fetch"> = (core, ts, _rec, recs) => {
  genericFetch(core, ts, recs);
};

export const releasedWaiting: TransitionFn<"released", "waiting"> = (core, ts, _rec, recs, _out, stimulusId) => {
  waitForDependencies(core, ts, recs, stimulusId);
};

/**
 * The body of released → waiting (also missing → waiting): wait for every dependency not
 * in memory, fetching it, or be ready at once.
 */
export function waitForDependencies(core: StateCore, ts: TaskState, recs: RecommendationStack, stimulusId: string): void {
  if (core.validate) {
    for (const dep of linksToArray(ts._dependencies)) {
      invariant(core, dep, core.tasks.get(dep.key) === dep, "dependency is not registered", stimulusId);
    }
  }
  ts._waitingForData = clearedLinks(ts._waitingForData);
  forEachLink(ts._dependencies, waitFor, ts, recs);
  ts.state = "waiting";
  if (linkCount(ts._waitingForData) > 0) {
    core.waiting.add(ts);
    return;
  }
  // Nothing to wait for: ready is recommended on top of the stack and taken next, so the
  // task leaves waiting before anything reads `waiting` (validation runs after the
  // stimulus). Not adding it spares the Set a growth and, when it held nothing else, the
  // table V8 reallocates when its last entry is deleted (W1 and W3: every task). waiting →
  // ready/constrained/released delete from `waiting` whether or not the task is there.
  recs.add(ts, Rec.ready);
}

/** `ts` waits for `dep` unless it is in memory already, and `dep` is fetched. */
function waitFor(dep: TaskState, ts: TaskState, recs: RecommendationStack): void {
  if (dep.state === "memory") return;
  ts._waitingForData = withLink(ts._waitingForData, dep);
  dep._waiters = withLink(dep._waiters, ts);
  recs.add(dep, Rec.fetch);
}

export const releasedMissing: TransitionFn<"released", "missing"> = (core, ts, _rec, _recs, _out, stimulusId) => {
  genericMissing(core, ts, stimulusId);
};

/** Scatter: the value arrives from the client; nothing is sent to the scheduler. */
export const releasedMemory: TransitionFn<"released", "memory"> = (core, ts, rec, recs, out, stimulusId) => {
  toMemory(core, ts, rec.value, null, RUN_ID_SENTINEL, recs, out, stimulusId);
};

export const toError: TransitionFn<"released" | "flight", "error"> = (core, ts, rec, _recs, out, stimulusId) => {
  genericError(core, ts, rec, out, stimulusId);
};

export const releasedForgotten: TransitionFn<"released", "forgotten"> = (core, ts, _rec, recs, _out, stimulusId) => {
  if (core.validate) {
    for (const dependent of linksToArray(ts._dependents)) {
      invariant(core, ts, dependent.state === "forgotten", `dependent ${dependent.toString()} not forgotten`, stimulusId);
    }
  }
  forEachLink(ts._dependencies, forgetDependent, ts, recs);
  // Purged in the previous transition (nothing ran since): purging again would change nothing.
  if (core.lastPurged !== ts || core.lastPurgedAt !== core.transitionCounter - 1) purgeState(core, ts);
  core.lastPurged = null;
  ts.state = "forgotten";
  // A TaskState is in `tasks` from its creation to this transition, and a released one is
  // not forgotten yet: it is the one registered under its key.
  if (core.validate) invariant(core, ts, core.tasks.get(ts.key) === ts, "forgetting a task that is not registered", stimulusId);
  core.tasks.delete(ts.key);
};

/** `ts` is forgotten: `dep` loses a dependent, and is forgotten too if it was the last. */
function forgetDependent(dep: TaskState, ts: TaskState, recs: RecommendationStack): void {
  dep._dependents = withoutLink(dep._dependents, ts);
  if (dep.state === "released" && linkCount(dep._dependents) === 0) recs.add(dep, Rec.forgotten);
}

export const toReleased: TransitionFn<"waiting" | "ready" | "constrained" | "error", "released"> = (core, ts, _rec, recs) => {
  genericReleased(core, ts, recs);
};

export const memoryReleased: TransitionFn<"memory", "released"> = (core, ts, _rec, recs, out, stimulusId) => {
  core.nbytes -= ts.nbytes ?? 0;
  genericReleased(core, ts, recs);
  out.push(ReleaseWorkerDataMsg({ key: ts.key, stimulusId }));
};
