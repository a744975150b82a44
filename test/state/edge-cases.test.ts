// Reference §18 ("subtle bugs and edge cases"). Items already covered elsewhere:
//  1 transitions-via-released (§18.1, clean: dependency fetched)   2 events-gather (#6705)
//  4 transitions-via-released (scatter during flight)              7 events-gather (refresh), cancelled-resumed (network failure)
//  8 events-gather (lose replica)  9 events-gather (new replica)  10 fetch-scheduling (forget data needed)
// 11 cancelled-resumed (resources)  12 cancelled-resumed (LongRunningMsg twice)
// 13 cancelled-resumed (busy on resumed)  14 events-misc (steal unknown)  15 events-gather (totals)
// 16 fetch-scheduling (head-of-line stop)  17 events-misc (remove replica)  19 transitions-via-released (no rollback)
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDepSuccessEvent,
  ReleaseWorkerDataMsg,
  UpdateDataEvent,
  AddKeysMsg,
  Execute,
  GatherDep,
} from "../../src/state/index.js";
import { assertStory, taskInState } from "../../src/testing/index.js";
import { W2, W3, skipFinalValidation, worker } from "./helpers.js";

describe("reference §18", () => {
  it("§18.3: a cancelled execution whose input replica was dropped still finishes cleanly (#6893)", () => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }),
      GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "s2" }),
      FreeKeysEvent({ keys: ["y", "x"], stimulusId: "free" }),
    );
    // LIFO: x is released first (y still depends on it), then y is cancelled
    expect(ws.tasks.get("y")!.state).toBe("cancelled");
    expect(ws.data.has("x")).toBe(false);
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "y", stimulusId: "done" }))).toEqual([]);
    expect(ws.tasks.size).toBe(0);
  });

  it("§18.5: a gather result for a key scattered and then freed meanwhile is ignored (deviation: dask crashes with KeyError)", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    expect(ws.handleStimulus(UpdateDataEvent({ data: { x: "scattered" }, stimulusId: "scatter" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "scatter" }),
    ]);
    expect(ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }))).toEqual([
      ReleaseWorkerDataMsg({ key: "x", stimulusId: "free" }),
    ]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: "late" }, stimulusId: "late" }))).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(ws.data.has("x")).toBe(false);
    expect(ws.inFlightWorkers.size).toBe(0);
    expect(ws.transferIncomingBytes).toBe(0);
    assertStory(ws.story("late"), [["x", "stale-gather-result", W2]]);
  });

  it("§18.5, re-created: a late gather result leaves alone the namesake now in flight from another peer", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    ws.handleStimulus(
      UpdateDataEvent({ data: { x: "scattered" }, stimulusId: "scatter" }),
      FreeKeysEvent({ keys: ["x"], stimulusId: "free" }),
    );
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "z", whoHas: { x: [W3] }, stimulusId: "again" }))).toEqual([
      GatherDep({ worker: W3, toGather: ["x"], totalNbytes: 1, stimulusId: "again" }),
    ]);
    const again = ws.tasks.get("x")!;
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: "late" }, stimulusId: "late" }))).toEqual([]);
    expect(ws.tasks.get("x")).toBe(again);
    expect(again.state).toBe("flight");
    expect(again.comingFrom).toBe(W3);
    assertStory(ws.story("late"), [["x", "stale-gather-result", W2]]);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W3, totalNbytes: 1, data: { x: "fresh" }, stimulusId: "fresh" }));
    expect(ws.data.get("x")).toBe("fresh");
    expect(ws.tasks.get("z")!.state).toBe("executing");
  });

  it("§18.6: scatter onto an executing task breaks the run-id invariant (as in dask)", () => {
    const ws = worker();
    taskInState(ws, "x", "executing");
    expect(() => ws.handleStimulus(UpdateDataEvent({ data: { x: 1 }, stimulusId: "scatter" }))).toThrow(/x[\s\S]*run id|run id[\s\S]*x/);
    skipFinalValidation(ws, "invariant errors leave a partially mutated state (§18.19)");
  });

  it("§18.18: the purge resets exceptionText too (deviation: dask keeps it, duplicated line)", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "error");
    expect(ts.exceptionText).toBe("x failed");
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "acquire" }));
    expect(ts.state).toBe("missing");
    expect(ts.exception).toBeNull();
    expect(ts.traceback).toBeNull();
    expect(ts.exceptionText).toBe("");
    expect(ts.tracebackText).toBe("");
    expect(ts.getNbytes()).toBe(1024);
  });

  it("§18.9 with compute-task: a dependency whose holders are all in flight is fetched from a new holder at once", () => {
    const ws = worker();
    taskInState(ws, "a", "flight");
    ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }));
    expect(ws.tasks.get("x")!.state).toBe("fetch");
    expect(ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2, "127.0.0.1:3"] }, stimulusId: "s2" }))).toEqual([
      expect.objectContaining({ kind: "GatherDep", worker: "127.0.0.1:3", toGather: ["x"] }),
    ]);
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: "127.0.0.1:3", totalNbytes: 1, data: { x: 1 }, stimulusId: "s3" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "s3" }),
      Execute({ key: "y", stimulusId: "s3" }),
    ]);
  });
});
