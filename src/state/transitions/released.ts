// Transitions out of released, and back to released from the resting states.
import type { TransitionFn } from "../core.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { isEmpty, RUN_ID_SENTINEL, withoutLink, type TaskState } from "../task-state.js";
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

export const toReleased: TransitionFn<"waiting" | "ready" | "constrained" | "error", "released"> = (core, ts, _rec, recs) => {
  genericReleased(core, ts, recs);
};

export const memoryReleased: TransitionFn<"memory", "released"> = (core, ts, _rec, recs, out, stimulusId) => {
  core.nbytes -= ts.nbytes ?? 0;
  genericReleased(core, ts, recs);
  out.push(ReleaseWorkerDataMsg({ key: ts.key, stimulusId }));
};
