// Reference §7, transitions of replicas: fetch, flight, missing.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  AddKeysMsg,
  ComputeTaskEvent,
  Execute,
  FreeKeysEvent,
  GatherDep,
  GatherDepFailureEvent,
  GatherDepSuccessEvent,
  RefreshWhoHasEvent,
  TaskErredMsg,
} from "../../src/state/index.js";
import { LOCAL_ADDRESS, match, taskInState } from "../../src/testing/index.js";
import { REMOTE, W2, W3, transitionLog, worker } from "./helpers.js";

describe("fetch → …", () => {
  it("fetch → flight records the peer and the outstanding transfer", () => {
    const ws = worker();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, nbytes: { x: 5 }, stimulusId: "s1" }));
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("flight");
    expect(x.comingFrom).toBe(W2);
    expect(ws.inFlightTasks.has(x)).toBe(true);
    expect([...ws.inFlightWorkers.get(W2)!]).toEqual(["x"]);
    expect(ws.transferIncomingBytes).toBe(5);
    expect(ws.transferIncomingCount).toBe(1);
    expect(ws.transferIncomingCountTotal).toBe(1);
    expect(ws.dataNeeded.get(W2)?.size ?? 0).toBe(0);
  });

  it("fetch → missing when a who-has refresh leaves no holder", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "fetch");
    const instructions = ws.handleStimulus(RefreshWhoHasEvent({ whoHas: { x: [] }, stimulusId: "refresh" }));
    expect(instructions).toEqual([]);
    expect(ts.state).toBe("missing");
    expect(ws.missingDepFlight.has(ts)).toBe(true);
    expect(ws.dataNeeded.get(W2)?.size ?? 0).toBe(0);
    expect(ws.hasWhat.get(W2)?.size ?? 0).toBe(0);
    expect(transitionLog(ws, "x").at(-1)).toBe("fetch->missing=missing");
  });

  it("fetch → released forgets the task and empties the peer's queue", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "fetch");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(ts.state).toBe("forgotten");
    expect(ws.dataNeeded.get(W2)?.size ?? 0).toBe(0);
    expect(ws.hasWhat.get(W2)?.size ?? 0).toBe(0);
  });
});

describe("flight → …", () => {
  it("flight → fetch while the gather is outstanding is a no-op", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "flight");
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s2" }));
    expect(instructions).toEqual([]);
    expect(ts.state).toBe("flight");
    expect(transitionLog(ws, "x").at(-1)).toBe("flight->fetch=flight");
    expect(ws.tasks.get("y")!.state).toBe("waiting");
  });

  it("flight → fetch after the peer lacked the key re-fetches from another holder", () => {
    const ws = worker();
    const first = ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [REMOTE, W2] }, nbytes: { x: 3 }, stimulusId: "s1" }));
    // a peer on our own host is preferred
    expect(first).toEqual([GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 3, stimulusId: "s1" })]);
    const instructions = ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 3, data: {}, stimulusId: "s2" }));
    expect(instructions).toEqual([GatherDep({ worker: REMOTE, toGather: ["x"], totalNbytes: 3, stimulusId: "s2" })]);
    const x = ws.tasks.get("x")!;
    expect([...x.whoHas]).toEqual([REMOTE]);
    expect(x.comingFrom).toBe(REMOTE);
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["flight->fetch=fetch", "fetch->flight=flight"]);
  });

  it("flight → missing when the only holder lacked the key", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    const instructions = ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: {}, stimulusId: "s2" }));
    expect(instructions).toEqual([]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("missing");
    expect(x.whoHas.size).toBe(0);
    expect(ws.transferIncomingBytes).toBe(0);
    expect(ws.inFlightWorkers.has(W2)).toBe(false);
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["flight->fetch=flight", "flight->missing=missing"]);
  });

  it("flight → memory sends AddKeysMsg", () => {
    const ws = worker();
    taskInState(ws, "x", "flight", { nbytes: 8 });
    const instructions = ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 8, data: { x: "value" }, stimulusId: "s2" }));
    expect(instructions).toEqual([AddKeysMsg({ keys: ["x"], stimulusId: "s2" })]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("memory");
    expect(x.nbytes).toBe(8);
    expect(ws.data.get("x")).toBe("value");
    expect(ws.nbytes).toBe(8);
    expect(ws.transferIncomingBytes).toBe(0);
    expect(ws.inFlightTasks.size).toBe(0);
  });

  it("flight → error sends TaskErredMsg with the task's run id", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    const instructions = ws.handleStimulus(
      GatherDepFailureEvent({ worker: W2, totalNbytes: 1, exceptionText: "cannot unpickle", stimulusId: "s2" }),
    );
    expect(instructions).toEqual([match(TaskErredMsg, { key: "x", runId: -1, exceptionText: "cannot unpickle", stimulusId: "s2" })]);
    expect(ws.tasks.get("x")!.state).toBe("error");
    expect(ws.transferIncomingCount).toBe(0);
    expect(ws.transferIncomingCountTotal).toBe(1);
  });

  it("flight → released cancels the transfer", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "flight");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(String(ts)).toBe("<TaskState 'x' cancelled(flight)>");
    expect(ws.inFlightTasks.has(ts)).toBe(true);
    expect(ts.comingFrom).toBe(W2);
    expect(transitionLog(ws, "x").at(-1)).toBe("flight->released=cancelled");
  });
});

describe("missing → …", () => {
  it("missing → fetch when a holder appears, then flight", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "missing");
    const instructions = ws.handleStimulus(RefreshWhoHasEvent({ whoHas: { x: [W3] }, stimulusId: "refresh" }));
    expect(instructions).toEqual([GatherDep({ worker: W3, toGather: ["x"], totalNbytes: 1, stimulusId: "refresh" })]);
    expect(ts.state).toBe("flight");
    expect(ws.missingDepFlight.size).toBe(0);
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["missing->fetch=fetch", "fetch->flight=flight"]);
  });

  it("missing → fetch without any holder is a no-op", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "missing");
    const instructions = ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [LOCAL_ADDRESS] }, stimulusId: "again" }));
    expect(instructions).toEqual([]);
    expect(ts.state).toBe("missing");
    expect(transitionLog(ws, "x").at(-1)).toBe("missing->fetch=missing");
  });

  it("missing → waiting when the scheduler asks to compute it here", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "missing");
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "compute" }));
    expect(instructions).toEqual([Execute({ key: "x", stimulusId: "compute" })]);
    expect(ts.state).toBe("executing");
    expect(ws.missingDepFlight.size).toBe(0);
    expect(transitionLog(ws, "x").slice(-3)).toEqual([
      "missing->waiting=waiting",
      "waiting->ready=ready",
      "ready->executing=executing",
    ]);
  });

  it("missing → released forgets it", () => {
    const ws = worker();
    taskInState(ws, "x", "missing");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(ws.missingDepFlight.size).toBe(0);
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["missing->released=released", "released->forgotten=forgotten"]);
  });

  // missing → error is in the table but unreachable from any event (reference §7, §17.10).
});
