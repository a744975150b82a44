// Transitions out of released, and back to released from the resting states.
import type { TransitionFn } from "../core.js";
import type { ErrorRecommendation, MemoryRecommendation } from "../recommendations.js";
import { Rec } from "../recommendations.js";
import { isEmpty, RUN_ID_SENTINEL, withoutLink } from "../task-state.js";
import { ReleaseWorkerDataMsg } from "../instructions.js";
import { genericError, genericFetch, genericMissing, genericReleased, invariant, purgeState, toMemory } from "./generic.js";

export const releasedFetch: TransitionFn = (core, ts, _rec, recs) => {
  genericFetch(core, ts, recs);
};

export const releasedWaiting: TransitionFn = (core, ts, _rec, recs, _out, stimulusId) => {
  const dependencies = ts._dependencies;
  ts._waitingForData = null;
  if (dependencies !== null) {
    let waitingForData: Set<typeof ts> | null = null;
    for (const dep of dependencies) {
      if (core.validate) invariant(core, dep, core.tasks.get(dep.key) === dep, "dependency is not registered", stimulusId);
      if (dep.state === "memory") continue;
      (waitingForData ??= new Set()).add(dep);
      (dep._waiters ??= new Set()).add(ts);
      recs.add(dep, Rec.fetch);
    }
    ts._waitingForData = waitingForData;
  }
  if (ts._waitingForData === null) recs.add(ts, Rec.ready);
  ts.state = "waiting";
  core.waiting.add(ts);
};

export const releasedMissing: TransitionFn = (core, ts, _rec, _recs, _out, stimulusId) => {
  genericMissing(core, ts, stimulusId);
};

/** Scatter: the value arrives from the client; nothing is sent to the scheduler. */
export const releasedMemory: TransitionFn = (core, ts, rec, recs, out, stimulusId) => {
  toMemory(core, ts, (rec as MemoryRecommendation).value, null, RUN_ID_SENTINEL, recs, out, stimulusId);
};

export const toError: TransitionFn = (core, ts, rec, _recs, out, stimulusId) => {
  genericError(core, ts, rec as ErrorRecommendation, out, stimulusId);
};

export const releasedForgotten: TransitionFn = (core, ts, _rec, recs, _out, stimulusId) => {
  if (core.validate && ts._dependents !== null) {
    for (const dependent of ts._dependents) {
      invariant(core, ts, dependent.state === "forgotten", `dependent ${dependent.toString()} not forgotten`, stimulusId);
    }
  }
  const dependencies = ts._dependencies;
  if (dependencies !== null) {
    for (const dep of dependencies) {
      const dependents = dep._dependents;
      if (dependents !== null) dep._dependents = withoutLink(dependents, ts);
      if (dep.state === "released" && isEmpty(dep._dependents)) recs.add(dep, Rec.forgotten);
    }
  }
  purgeState(core, ts);
  ts.state = "forgotten";
  if (core.tasks.get(ts.key) === ts) core.tasks.delete(ts.key);
};

export const toReleased: TransitionFn = (core, ts, _rec, recs) => {
  genericReleased(core, ts, recs);
};

export const memoryReleased: TransitionFn = (core, ts, _rec, recs, out, stimulusId) => {
  core.nbytes -= ts.nbytes ?? 0;
  genericReleased(core, ts, recs);
  out.push(ReleaseWorkerDataMsg({ key: ts.key, stimulusId }));
};
