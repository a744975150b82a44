// The log keeps the last `logLength` entries whatever their kinds and however many entries
// each stimulus writes: a short log reads as the tail of an unbounded one, stimulus ids and
// sequence numbers included (entries of different kinds fill different slots of one ring
// array, and an entry does not clear the slots its kind leaves unused).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDepSuccessEvent,
  WorkerState,
  type StateMachineEvent,
} from "../../src/state/index.js";
import { W2 } from "./helpers.js";

/** Stimuli writing from one to a dozen entries each, some with the same stimulus id. */
function stimuli(n: number, sharedIds: boolean): StateMachineEvent[] {
  const events: StateMachineEvent[] = [];
  for (let i = 0; i < n; i++) {
    const id = (what: string): string => (sharedIds ? `same-${i % 2}` : `${what}-${i}`);
    const deps = Object.fromEntries(Array.from({ length: i % 3 }, (_, j) => [`d-${i}-${j}`, [W2]]));
    events.push(ComputeTaskEvent({ key: `t-${i}`, whoHas: deps, stimulusId: id("compute") }));
    if (i % 3 !== 0) {
      events.push(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: Object.fromEntries(Object.keys(deps).map((k) => [k, 1])), stimulusId: id("gather") }));
    }
    events.push(ExecuteSuccessEvent({ key: `t-${i}`, stimulusId: id("done") }));
    events.push(FreeKeysEvent({ keys: [`t-${i}`, ...Object.keys(deps)], stimulusId: id("free") }));
  }
  return events;
}

describe("the log ring", () => {
  it("reads as the tail of an unbounded log, for any capacity", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 12 }), fc.boolean(), (capacity, n, sharedIds) => {
        const events = stimuli(n, sharedIds);
        const short = new WorkerState({ address: "127.0.0.1:1", nthreads: 1, validate: false, logLength: capacity });
        const full = new WorkerState({ address: "127.0.0.1:1", nthreads: 1, validate: false, logLength: Infinity });
        for (const event of events) {
          short.handleStimulus(event);
          full.handleStimulus(event);
          expect(short.log).toEqual(full.log.slice(-capacity));
        }
      }),
      { numRuns: 60 },
    );
  });
});
