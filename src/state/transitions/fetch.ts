// Transitions of dependencies replicated from peers: fetch → flight → memory, and
// missing when nobody is known to hold them.
import type { TransitionFn } from "../core.js";
import { linkCount, linksToArray } from "../links.js";
import { RUN_ID_SENTINEL } from "../task-state.js";
import { genericFetch, genericMissing, genericReleased, invariant, purgeState, toMemory } from "./generic.js";
import { waitForDependencies } from "./released.js";

/** ensureCommunicating has already taken the task out of every holder's heap. */
export const fetchFlight: TransitionFn<"fetch", "flight"> = (core, ts, rec, _recs, _out, stimulusId) => {
  if (core.validate) {
    invariant(core, ts, linkCount(ts._whoHas) > 0, "no holders", stimulusId);
    for (const worker of linksToArray(ts._whoHas)) {
      invariant(core, ts, !(core.dataNeeded.get(worker)?.has(ts) ?? false), `still queued for ${worker}`, stimulusId);
    }
  }
  ts.done = false;
  ts.state = "flight";
  core.setComingFrom(ts, rec.worker);
  core.fetchCount--;
};

export const fetchMissing: TransitionFn<"fetch", "missing"> = (core, ts, _rec, _recs, _out, stimulusId) => {
  core.fetchCount--;
  genericMissing(core, ts, stimulusId);
};

export const fetchReleased: TransitionFn<"fetch", "released"> = (core, ts, _rec, recs) => {
  core.fetchCount--;
  genericReleased(core, ts, recs);
};

/** A no-op while the gather is outstanding; once it returned, queue the task again. */
export const flightFetch: TransitionFn<"flight", "fetch"> = (core, ts, _rec, recs) => {
  if (!ts.done) return;
  core.clearComingFrom(ts);
  genericFetch(core, ts, recs);
};

export const flightMissing: TransitionFn<"flight", "missing"> = (core, ts, _rec, _recs, _out, stimulusId) => {
  invariant(core, ts, ts.done, "missing before the gather returned", stimulusId);
  genericMissing(core, ts, stimulusId);
};

/**
 * The gathered (or, if the gather is still outstanding, scattered) value arrives. A
 * scatter racing an outstanding gather takes the task out of the in-flight set here;
 * the gather's result for it is then ignored when it returns.
 */
export const flightMemory: TransitionFn<"flight", "memory"> = (core, ts, rec, recs, out, stimulusId) => {
  // A returned gather has already taken it out of flight (then this is a no-op).
  core.clearComingFrom(ts);
  toMemory(core, ts, rec.value, "add-keys", RUN_ID_SENTINEL, recs, out, stimulusId);
};

/**
 * The gather cannot be stopped: wait for it as cancelled(flight). If it has returned, the
 * release comes from a dependent that came back from the same transfer and was released
 * first, over this task's own recommendation: release it now, as cancelled -> released
 * does for a returned gather (dask asserts; docs/state.md, "Deviations", 15).
 */
export const flightReleased: TransitionFn<"flight", "released"> = (core, ts, _rec, recs) => {
  if (ts.done) {
    genericReleased(core, ts, recs);
    return;
  }
  ts.previous = "flight";
  ts.next = null;
  ts.state = "cancelled";
};

export const missingFetch: TransitionFn<"missing", "fetch"> = (core, ts, _rec, recs) => {
  if (linkCount(ts._whoHas) === 0) return;
  core.missingDepFlight.delete(ts);
  genericFetch(core, ts, recs);
};

export const missingWaiting: TransitionFn<"missing", "waiting"> = (core, ts, _rec, recs, _out, stimulusId) => {
  core.missingDepFlight.delete(ts);
  purgeState(core, ts);
  waitForDependencies(core, ts, recs, stimulusId);
};

export const missingReleased: TransitionFn<"missing", "released"> = (core, ts, _rec, recs) => {
  core.missingDepFlight.delete(ts);
  genericReleased(core, ts, recs);
};
