// Reference §8: free-keys, remove-replicas, cancel-compute, steal-request, secede,
// pause/unpause, update-data.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  CancelComputeEvent,
  ComputeTaskEvent,
  Execute,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDep,
  GatherDepSuccessEvent,
  PauseEvent,
  ReleaseWorkerDataMsg,
  RemoveReplicasEvent,
  StealRequestEvent,
  StealResponseMsg,
  UnpauseEvent,
  UpdateDataEvent,
} from "../../src/state/index.js";
import { assertStory, taskInState, type ReachableState } from "../../src/testing/index.js";
import { W2, worker } from "./helpers.js";

describe("FreeKeysEvent", () => {
  it("releases keys last-in-first-out", () => {
    const ws = worker();
    ws.handleStimulus(UpdateDataEvent({ data: { a: 1, b: 2, c: 3 }, stimulusId: "scatter" }));
    expect(ws.handleStimulus(FreeKeysEvent({ keys: ["a", "b", "c"], stimulusId: "free" }))).toEqual([
      ReleaseWorkerDataMsg({ key: "c", stimulusId: "free" }),
      ReleaseWorkerDataMsg({ key: "b", stimulusId: "free" }),
      ReleaseWorkerDataMsg({ key: "a", stimulusId: "free" }),
    ]);
    expect(ws.tasks.size).toBe(0);
    assertStory(ws.story("free"), [["free-keys", ["a", "b", "c"]]]);
  });

  it("ignores unknown keys", () => {
    const ws = worker();
    expect(ws.handleStimulus(FreeKeysEvent({ keys: ["nope"], stimulusId: "free" }))).toEqual([]);
  });
});

describe("RemoveReplicasEvent", () => {
  it("releases keys in memory, last-in-first-out, and ignores other states", () => {
    const ws = worker();
    ws.handleStimulus(UpdateDataEvent({ data: { a: 1, b: 2 }, stimulusId: "scatter" }));
    taskInState(ws, "f", "fetch");
    expect(ws.handleStimulus(RemoveReplicasEvent({ keys: ["a", "f", "b", "nope"], stimulusId: "rr" }))).toEqual([
      ReleaseWorkerDataMsg({ key: "b", stimulusId: "rr" }),
      ReleaseWorkerDataMsg({ key: "a", stimulusId: "rr" }),
    ]);
    expect(ws.tasks.get("f")!.state).toBe("fetch");
    // logged by the handler in event order; released by the transitions LIFO
    assertStory(ws.story("rr"), [["a", "remove-replica"], ["b", "remove-replica"]]);
  });

  it("refuses to drop a replica an executing dependent needs (§18.17)", () => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }),
      GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "s2" }),
    );
    expect(ws.tasks.get("y")!.state).toBe("executing");
    expect(() => ws.handleStimulus(RemoveReplicasEvent({ keys: ["x"], stimulusId: "rr" }))).toThrow(/x/);
  });

  it("accepts dropping the replica of a cancelled dependent's input (test_workerstate_remove_replica_of_cancelled_task_dependency)", () => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }),
      GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "s2" }),
      FreeKeysEvent({ keys: ["y"], stimulusId: "s3" }),
    );
    expect(ws.tasks.get("y")!.state).toBe("cancelled");
    expect(ws.handleStimulus(RemoveReplicasEvent({ keys: ["x"], stimulusId: "rr" }))).toEqual([
      ReleaseWorkerDataMsg({ key: "x", stimulusId: "rr" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("released");
  });
});

describe("CancelComputeEvent", () => {
  it.each(["waiting", "ready", "constrained"] as const)("releases a %s task", (state) => {
    const ws = worker();
    taskInState(ws, "x", state);
    expect(ws.handleStimulus(CancelComputeEvent({ key: "x", stimulusId: "cancel" }))).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    assertStory(ws.story("cancel"), [["x", "cancel-compute"]]);
  });

  it.each(["executing", "long-running", "memory", "flight", "fetch"] as const)("leaves a %s task alone", (state) => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", state);
    expect(ws.handleStimulus(CancelComputeEvent({ key: "x", stimulusId: "cancel" }))).toEqual([]);
    expect(ts.state).toBe(state);
  });

  it("ignores unknown keys", () => {
    const ws = worker();
    expect(ws.handleStimulus(CancelComputeEvent({ key: "nope", stimulusId: "cancel" }))).toEqual([]);
  });
});

describe("StealRequestEvent", () => {
  const stealable: ReachableState[] = ["waiting", "ready", "constrained"];
  it.each(stealable)("answers %s and releases the task", (state) => {
    const ws = worker();
    taskInState(ws, "x", state);
    expect(ws.handleStimulus(StealRequestEvent({ key: "x", stimulusId: "steal" }))).toEqual([
      StealResponseMsg({ key: "x", state, stimulusId: "steal" }),
    ]);
    expect(ws.tasks.has("x")).toBe(false);
  });

  it.each(["executing", "long-running", "memory"] as const)("answers %s and keeps the task", (state) => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", state);
    expect(ws.handleStimulus(StealRequestEvent({ key: "x", stimulusId: "steal" }))).toEqual([
      StealResponseMsg({ key: "x", state, stimulusId: "steal" }),
    ]);
    expect(ts.state).toBe(state);
  });

  it("answers null for an unknown (already forgotten) task (§18.14)", () => {
    const ws = worker();
    expect(ws.handleStimulus(StealRequestEvent({ key: "x", stimulusId: "steal" }))).toEqual([
      StealResponseMsg({ key: "x", state: null, stimulusId: "steal" }),
    ]);
  });
});

describe("PauseEvent / UnpauseEvent", () => {
  it("paused: nothing new starts; unpause starts compute and transfers under its own stimulus id", () => {
    const ws = worker();
    expect(ws.handleStimulus(PauseEvent({ stimulusId: "pause" }))).toEqual([]);
    expect(ws.running).toBe(false);
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "x", stimulusId: "c1" }),
        AcquireReplicasEvent({ whoHas: { y: [W2] }, stimulusId: "a1" }),
      ),
    ).toEqual([]);
    expect(ws.tasks.get("x")!.state).toBe("ready");
    expect(ws.tasks.get("y")!.state).toBe("fetch");
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([
      Execute({ key: "x", stimulusId: "unpause" }),
      GatherDep({ worker: W2, toGather: ["y"], totalNbytes: 1, stimulusId: "unpause" }),
    ]);
    expect(ws.running).toBe(true);
  });

  it("running work continues while paused, but its completion starts nothing new", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "a", stimulusId: "c1" }), ComputeTaskEvent({ key: "b", stimulusId: "c2" }));
    ws.handleStimulus(PauseEvent({ stimulusId: "pause" }));
    const done = ws.handleStimulus(ExecuteSuccessEvent({ key: "a", stimulusId: "done" }));
    expect(done.map((i) => i.kind)).toEqual(["TaskFinishedMsg"]);
    expect(ws.tasks.get("b")!.state).toBe("ready");
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([Execute({ key: "b", stimulusId: "unpause" })]);
  });
});

describe("UpdateDataEvent", () => {
  it("creates tasks without priority and logs receive-from-scatter", () => {
    const ws = worker();
    expect(ws.handleStimulus(UpdateDataEvent({ data: { x: 1, y: "two" }, stimulusId: "scatter" }))).toEqual([]);
    expect(ws.tasks.get("x")!.priority).toBeNull();
    expect(ws.data.get("y")).toBe("two");
    assertStory(ws.story("scatter"), [
      ["x", "receive-from-scatter", "released"],
      ["y", "receive-from-scatter", "released"],
    ]);
  });

  it("makes a waiting dependent runnable", () => {
    const ws = worker();
    taskInState(ws, "y", "waiting");
    // y waits for y-dep (in flight); a scatter of y-dep arrives first
    expect(ws.handleStimulus(UpdateDataEvent({ data: { "y-dep": 1 }, stimulusId: "scatter" }))).toEqual([
      expect.objectContaining({ kind: "AddKeysMsg", keys: ["y-dep"] }),
      Execute({ key: "y", stimulusId: "scatter" }),
    ]);
    // the gather still outstanding for y-dep lands later and is ignored (§18.4)
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { "y-dep": 2 }, stimulusId: "late" }))).toEqual([]);
    expect(ws.data.get("y-dep")).toBe(1);
  });
});
