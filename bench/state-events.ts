// The events of the state benchmark's workloads, built as /work/shared/bench/dask_wsm_bench.py
// builds them (shared by bench/state.ts and its no-state-machine floor, bench/state-floor.ts).
import { ComputeTaskEvent, ExecuteSuccessEvent, FreeKeysEvent } from "../src/state/index.js";

/** nbytes of every executed task's result. */
export const EXEC_NBYTES = 1000;

/**
 * A fresh string-keyed record, the JS counterpart of the Python dicts dask's driver builds.
 * Null-prototype objects start as hash tables in V8; `{}` would grow a new hidden class for
 * every distinct key (`d-17-3`, …), which is an artefact of the benchmark driver, not of
 * the state machine.
 */
export function record<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

const NO_DEPENDENCIES: Readonly<Record<string, never>> = Object.freeze(record<never>());

export function computeEvent(
  key: string,
  i: number,
  whoHas: Record<string, string[]> = NO_DEPENDENCIES,
  nbytes: Record<string, number> = NO_DEPENDENCIES,
): ComputeTaskEvent {
  // The same field values as dask's ComputeTaskEvent.dummy(), spelled out (run_spec None).
  return ComputeTaskEvent({
    key,
    whoHas,
    nbytes,
    priority: [0, i],
    duration: 1,
    runSpec: null,
    resourceRestrictions: {},
    actor: false,
    annotations: {},
    stimulusId: `compute-${key}`,
  });
}

/** The answer to an `Execute` of `key`. */
export function executeSuccessEvent(key: string): ExecuteSuccessEvent {
  return ExecuteSuccessEvent({ key, value: null, start: 0, stop: 1, nbytes: EXEC_NBYTES, type: null, stimulusId: `exec-${key}` });
}

/** One key freed per event. */
export function freeEvent(key: string): FreeKeysEvent {
  return FreeKeysEvent({ keys: [key], stimulusId: `free-${key}` });
}
