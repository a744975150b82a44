// Shared setup for the state-machine tests: every WorkerState a test creates through
// `worker()` gets `validateState()` after the test, like dask's `ws` fixture teardown.
import { afterEach } from "vitest";
import type { WorkerState } from "../../src/state/index.js";
import { freshWorkerState, type WorkerStateOptions } from "../../src/testing/index.js";

const tracked: WorkerState[] = [];
const unvalidated = new WeakSet<WorkerState>();

afterEach(() => {
  const workers = tracked.splice(0);
  for (const ws of workers) {
    if (!unvalidated.has(ws)) ws.validateState();
  }
});

/** A fresh WorkerState (test defaults) validated after the test. */
export function worker(options: WorkerStateOptions = {}): WorkerState {
  return track(freshWorkerState(options));
}

/** Validate `ws` after the test. */
export function track(ws: WorkerState): WorkerState {
  tracked.push(ws);
  return ws;
}

/** Skip the final validation: only for scenarios the reference documents as leaving an invalid state. */
export function skipFinalValidation(ws: WorkerState, reason: string): void {
  if (!reason) throw new Error("skipFinalValidation needs a reason");
  unvalidated.add(ws);
}

export const W2 = "127.0.0.1:2";
export const W3 = "127.0.0.1:3";
export const W4 = "127.0.0.1:4";
/** A peer on another host (fetch scheduling prefers peers on our own host). */
export const REMOTE = "10.0.0.9:1";

/** Keys of the tasks currently in `state`, sorted. */
export function keysInState(ws: WorkerState, state: string): string[] {
  return [...ws.tasks.values()].filter((ts) => ts.state === state).map((ts) => ts.key).sort();
}

/**
 * The transition entries of `key` in the log, as "start->finish=final" strings
 * (reference §13: `(key, start, requested finish, actual final state, recs, sid, t)`).
 */
export function transitionLog(ws: WorkerState, key: string): string[] {
  return ws.story(key)
    .filter((entry) => entry.length === 7 && entry[0] === key)
    .map((entry) => `${String(entry[1])}->${String(entry[2])}=${String(entry[3])}`);
}
