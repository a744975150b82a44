// Views the state machine builds only when first read (hasWhat, inFlightWorkers,
// inFlightTasks) must be
// live from then on, and read the same as when they were kept from the start. Validation
// reads them (it would build them on the first stimulus), so these run without it.
import { describe, expect, it } from "vitest";
import {
  ComputeTaskEvent,
  GatherDepSuccessEvent,
  UpdateDataEvent,
  WorkerState,
  type StateMachineEvent,
} from "../../src/state/index.js";
import { W2, W3, worker } from "./helpers.js";

const inFlight = (ws: WorkerState): [string, string[]][] => [...ws.inFlightWorkers].map(([w, keys]) => [w, [...keys]]);
const inFlightKeys = (ws: WorkerState): string[] => [...ws.inFlightTasks].map((ts) => ts.key).sort();

const first: StateMachineEvent[] = [
  ComputeTaskEvent({ key: "y", whoHas: { x: [W2], z: [W3], v: [W2] }, stimulusId: "s1" }),
];
const second: StateMachineEvent[] = [
  GatherDepSuccessEvent({ worker: W2, totalNbytes: 2, data: { x: 1, v: 2 }, stimulusId: "s2" }),
  ComputeTaskEvent({ key: "u", whoHas: { w: [W2] }, stimulusId: "s3" }),
];

describe("views built on first read", () => {
  it("inFlightWorkers, first read mid-run, is live and reads as a view kept from the start", () => {
    const lazy = new WorkerState({ address: "127.0.0.1:1", validate: false });
    const kept = worker(); // validates, so its views exist from the first stimulus
    lazy.handleStimulus(...first);
    kept.handleStimulus(...first);
    const view = lazy.inFlightWorkers;
    expect(inFlight(lazy)).toEqual([
      [W2, ["v", "x"]],
      [W3, ["z"]],
    ]);
    expect(inFlight(lazy)).toEqual(inFlight(kept));
    lazy.handleStimulus(...second);
    kept.handleStimulus(...second);
    expect(lazy.inFlightWorkers).toBe(view);
    expect(inFlight(lazy)).toEqual([
      [W3, ["z"]],
      [W2, ["w"]],
    ]);
    expect(inFlight(lazy)).toEqual(inFlight(kept));
    expect(lazy.transferIncomingCount).toBe(2);
  });

  it("inFlightWorkers, read before any gather, sees every later one", () => {
    const ws = new WorkerState({ address: "127.0.0.1:1", validate: false });
    const view = ws.inFlightWorkers;
    expect(view.size).toBe(0);
    ws.handleStimulus(...first);
    expect([...(view.get(W2) ?? [])]).toEqual(["v", "x"]);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W3, totalNbytes: 1, data: { z: 3 }, stimulusId: "s2" }));
    expect([...view.keys()]).toEqual([W2]);
    expect(ws.transferIncomingCount).toBe(1);
  });

  it("inFlightTasks, first read mid-run, is live and reads as a set kept from the start", () => {
    const lazy = new WorkerState({ address: "127.0.0.1:1", validate: false });
    const kept = worker();
    const scatter = UpdateDataEvent({ data: { z: 9 }, stimulusId: "s4" }); // z is in flight from W3
    lazy.handleStimulus(...first);
    kept.handleStimulus(...first);
    expect(lazy.inFlightTasksCount).toBe(3);
    const view = lazy.inFlightTasks;
    expect(inFlightKeys(lazy)).toEqual(["v", "x", "z"]);
    expect(inFlightKeys(lazy)).toEqual(inFlightKeys(kept));
    for (const events of [second, [scatter]]) {
      lazy.handleStimulus(...events);
      kept.handleStimulus(...events);
      expect(lazy.inFlightTasks).toBe(view);
      expect(inFlightKeys(lazy)).toEqual(inFlightKeys(kept));
      expect(lazy.inFlightTasksCount).toBe(view.size);
    }
    expect(inFlightKeys(lazy)).toEqual(["w"]);
    expect([...view].every((ts) => lazy.tasks.get(ts.key) === ts && ts.state === "flight")).toBe(true);
  });

  it("inFlightTasks, first read after tasks left flight, holds only those still coming", () => {
    const ws = new WorkerState({ address: "127.0.0.1:1", validate: false });
    ws.handleStimulus(...first, ...second, UpdateDataEvent({ data: { z: 9 }, stimulusId: "s4" }));
    // z's GatherDep to W3 is still outstanding, but z is in memory: not in flight.
    expect(ws.transferIncomingCount).toBe(2);
    expect(ws.inFlightTasksCount).toBe(1);
    expect(inFlightKeys(ws)).toEqual(["w"]);
    ws.validateState();
  });
});
