// Reference §7, transitions out of `released` and into/out of the compute states
// (waiting, ready, constrained, executing, long-running) and memory/error.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  CancelComputeEvent,
  ComputeTaskEvent,
  Execute,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDep,
  LongRunningMsg,
  ReleaseWorkerDataMsg,
  RescheduleEvent,
  RescheduleMsg,
  SecedeEvent,
  TaskErredMsg,
  TaskFinishedMsg,
  UpdateDataEvent,
} from "../../src/state/index.js";
import { LOCAL_ADDRESS, assertStory, match, taskInState } from "../../src/testing/index.js";
import { W2, transitionLog, worker } from "./helpers.js";

describe("released → …", () => {
  it("released → fetch (then fetch → flight)", () => {
    const ws = worker();
    const instructions = ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, nbytes: { x: 7 }, stimulusId: "s1" }));
    expect(instructions).toEqual([GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 7, stimulusId: "s1" })]);
    expect(transitionLog(ws, "x")).toEqual(["released->fetch=fetch", "fetch->flight=flight"]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("flight");
    expect(x.priority).toEqual([1]);
    expect(x.comingFrom).toBe(W2);
    assertStory(ws.story("x"), [
      ["x", "ensure-task-exists", "released"],
      ["x", "released", "fetch", "fetch", {}],
      ["gather-dependencies", W2, ["x"]],
      ["x", "fetch", "flight", "flight", {}],
    ]);
  });

  it("released → waiting with a missing dependency recommends it fetch", () => {
    const ws = worker();
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }));
    expect(instructions).toEqual([GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" })]);
    const [x, y] = [ws.tasks.get("x")!, ws.tasks.get("y")!];
    expect(y.state).toBe("waiting");
    expect(ws.waiting.has(y)).toBe(true);
    expect([...y.waitingForData]).toEqual([x]);
    expect([...x.waiters]).toEqual([y]);
    expect([...y.dependencies]).toEqual([x]);
    expect([...x.dependents]).toEqual([y]);
    expect(transitionLog(ws, "y")).toEqual(["released->waiting=waiting"]);
    assertStory(ws.story("y"), [
      ["y", "compute-task", "released"],
      ["y", "released", "waiting", "waiting", { x: "fetch" }],
    ]);
  });

  it("released → waiting with every dependency in memory recommends ready", () => {
    const ws = worker();
    ws.handleStimulus(UpdateDataEvent({ data: { x: 1 }, stimulusId: "s0" }));
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }));
    expect(instructions).toEqual([Execute({ key: "y", stimulusId: "s1" })]);
    expect(transitionLog(ws, "y")).toEqual(["released->waiting=waiting", "waiting->ready=ready", "ready->executing=executing"]);
    expect(ws.tasks.get("y")!.waitingForData.size).toBe(0);
    // the dependency already in memory keeps its nbytes and gains the peer as a holder
    expect([...ws.tasks.get("x")!.whoHas]).toEqual([W2]);
  });

  it("released → missing, via released → fetch with no holder but ourselves", () => {
    const ws = worker();
    const instructions = ws.handleStimulus(
      AcquireReplicasEvent({ whoHas: { x: [LOCAL_ADDRESS] }, nbytes: { x: 1 }, stimulusId: "s1" }),
    );
    expect(instructions).toEqual([]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("missing");
    expect(x.whoHas.size).toBe(0);
    expect(ws.missingDepFlight.has(x)).toBe(true);
    expect(transitionLog(ws, "x")).toEqual(["released->fetch=released", "released->missing=missing"]);
  });

  it("released → memory (scatter) sends nothing and stores the value", () => {
    const ws = worker();
    const instructions = ws.handleStimulus(UpdateDataEvent({ data: { x: 42 }, stimulusId: "s1" }));
    expect(instructions).toEqual([]);
    expect(ws.data.get("x")).toBe(42);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("memory");
    expect(x.runId).toBe(-1);
    expect(x.priority).toBeNull();
    expect(ws.nbytes).toBe(x.nbytes);
    assertStory(ws.story("x"), [
      ["x", "receive-from-scatter", "released"],
      ["x", "put-in-memory"],
      ["x", "released", "memory", "memory", {}],
    ]);
  });

  it("released → error when the data store refuses the value", () => {
    const refusing = new Map<string, unknown>();
    refusing.set = () => {
      throw new Error("cannot store");
    };
    const ws = worker({ data: refusing });
    const instructions = ws.handleStimulus(UpdateDataEvent({ data: { x: 42 }, stimulusId: "s1" }));
    expect(instructions).toEqual([match(TaskErredMsg, { key: "x", runId: -1, stimulusId: "s1" })]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("error");
    expect(ws.data.has("x")).toBe(false);
    expect(transitionLog(ws, "x")).toEqual(["released->memory=released", "released->error=error"]);
  });

  it("released → forgotten for a task without dependents", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "fetch");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(ts.state).toBe("forgotten");
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["fetch->released=released", "released->forgotten=forgotten"]);
  });

  it("released → forgotten cascades to a released dependency left without dependents", () => {
    const ws = worker();
    ws.handleStimulus(UpdateDataEvent({ data: { x: 1 }, stimulusId: "s0" }));
    ws.handleStimulus(
      ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }),
      ExecuteSuccessEvent({ key: "y", nbytes: 3, stimulusId: "s2" }),
    );
    // LIFO: x is processed first and stays released (y depends on it); releasing y then forgets both
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["y", "x"], stimulusId: "free" }));
    expect(instructions).toEqual([
      ReleaseWorkerDataMsg({ key: "x", stimulusId: "free" }),
      ReleaseWorkerDataMsg({ key: "y", stimulusId: "free" }),
    ]);
    expect(ws.tasks.size).toBe(0);
    expect(ws.data.size).toBe(0);
    expect(ws.nbytes).toBe(0);
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["memory->released=released", "released->forgotten=forgotten"]);
  });
});

describe("waiting / ready / constrained", () => {
  it("waiting → ready → executing on a free thread", () => {
    const ws = worker();
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s1" }));
    expect(instructions).toEqual([Execute({ key: "x", stimulusId: "s1" })]);
    expect(transitionLog(ws, "x")).toEqual(["released->waiting=waiting", "waiting->ready=ready", "ready->executing=executing"]);
    assertStory(
      ws.story("x"),
      [
        ["x", "compute-task", "released"],
        ["x", "released", "waiting", "waiting", { x: "ready" }],
        ["x", "waiting", "ready", "ready", { x: "executing" }],
        ["x", "ready", "executing", "executing", {}],
      ],
      { strict: true },
    );
    expect(ws.executing.has(ws.tasks.get("x")!)).toBe(true);
  });

  it("waiting → ready redirects to constrained for a task with resource restrictions", () => {
    const ws = worker({ resources: { R: 1 } });
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "x", resourceRestrictions: { R: 1 }, stimulusId: "s1" }));
    expect(instructions).toEqual([Execute({ key: "x", stimulusId: "s1" })]);
    expect(transitionLog(ws, "x")).toEqual([
      "released->waiting=waiting",
      "waiting->ready=waiting",
      "waiting->constrained=constrained",
      "constrained->executing=executing",
    ]);
    expect(ws.availableResources).toEqual({ R: 0 });
  });

  it("waiting → constrained stays queued while the resource is unavailable", () => {
    const ws = worker({ resources: { R: 1 } });
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "x", resourceRestrictions: { R: 2 }, stimulusId: "s1" }));
    expect(instructions).toEqual([]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("constrained");
    expect(ws.constrained.has(x)).toBe(true);
    expect(ws.ready.size).toBe(0);
    expect(ws.availableResources).toEqual({ R: 1 });
  });

  it("waiting → released (cancel-compute) forgets the task and releases its fetching dependency", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }));
    const instructions = ws.handleStimulus(CancelComputeEvent({ key: "y", stimulusId: "cancel" }));
    expect(instructions).toEqual([]);
    expect(ws.tasks.has("y")).toBe(false);
    // the dependency was in flight: it cannot be stopped, so it is cancelled
    expect(ws.tasks.get("x")!.state).toBe("cancelled");
    expect(transitionLog(ws, "y").slice(-2)).toEqual(["waiting->released=released", "released->forgotten=forgotten"]);
    assertStory(ws.story("y"), [["y", "cancel-compute"]]);
  });

  it("ready → released", () => {
    const ws = worker();
    taskInState(ws, "x", "ready");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(ws.ready.size).toBe(0);
  });

  it("constrained → released", () => {
    const ws = worker();
    taskInState(ws, "x", "constrained");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(ws.constrained.size).toBe(0);
  });
});

describe("executing / long-running", () => {
  it("executing → long-running sends LongRunningMsg, then fills the freed thread", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", runId: 5, stimulusId: "s1" }), ComputeTaskEvent({ key: "y", stimulusId: "s2" }));
    expect(ws.tasks.get("y")!.state).toBe("ready");
    const instructions = ws.handleStimulus(SecedeEvent({ key: "x", computeDuration: 2.5, stimulusId: "secede" }));
    expect(instructions).toEqual([
      LongRunningMsg({ key: "x", runId: 5, computeDuration: 2.5, stimulusId: "secede" }),
      Execute({ key: "y", stimulusId: "secede" }),
    ]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("long-running");
    expect(ws.longRunning.has(x)).toBe(true);
    expect(ws.executing.has(x)).toBe(false);
  });

  it.each(["executing", "long-running"] as const)("%s → memory sends TaskFinishedMsg with the event's runId", (state) => {
    const ws = worker();
    taskInState(ws, "x", state);
    const instructions = ws.handleStimulus(ExecuteSuccessEvent({ key: "x", runId: 9, value: "v", nbytes: 12, stimulusId: "done" }));
    expect(instructions).toEqual([match(TaskFinishedMsg, { key: "x", runId: 9, nbytes: 12, stimulusId: "done" })]);
    expect(ws.tasks.get("x")!.state).toBe("memory");
    expect(ws.data.get("x")).toBe("v");
    expect(ws.nbytes).toBe(12);
    expect(ws.executedCount).toBe(1);
    expect(transitionLog(ws, "x").at(-1)).toBe(`${state}->memory=memory`);
  });

  it.each(["executing", "long-running"] as const)("%s → error sends TaskErredMsg with the failure payload", (state) => {
    const ws = worker();
    taskInState(ws, "x", state);
    const instructions = ws.handleStimulus(
      ExecuteFailureEvent({ key: "x", runId: 4, exceptionText: "boom", tracebackText: "tb", start: 1, stop: 2, stimulusId: "fail" }),
    );
    expect(instructions).toEqual([
      match(TaskErredMsg, { key: "x", runId: 4, exceptionText: "boom", tracebackText: "tb", stimulusId: "fail" }),
    ]);
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("error");
    expect(x.exceptionText).toBe("boom");
    expect(x.startstops).toEqual([expect.objectContaining({ action: "compute", start: 1, stop: 2 })]);
    expect(transitionLog(ws, "x").at(-1)).toBe(`${state}->error=error`);
  });

  it.each(["executing", "long-running"] as const)("%s → rescheduled sends RescheduleMsg and forgets the task", (state) => {
    const ws = worker();
    taskInState(ws, "x", state);
    const instructions = ws.handleStimulus(RescheduleEvent({ key: "x", stimulusId: "resched" }));
    expect(instructions).toEqual([RescheduleMsg({ key: "x", stimulusId: "resched" })]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(transitionLog(ws, "x").slice(-2)).toEqual([`${state}->rescheduled=released`, "released->forgotten=forgotten"]);
  });

  it.each(["executing", "long-running"] as const)("%s → released cancels the running task", (state) => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", state);
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(ts.state).toBe("cancelled");
    expect(ts.previous).toBe(state);
    expect(ts.next).toBeNull();
    expect(String(ts)).toBe(`<TaskState 'x' cancelled(${state})>`);
    // it keeps its thread (or long-running slot) until the coroutine returns
    expect((state === "executing" ? ws.executing : ws.longRunning).has(ts)).toBe(true);
    expect(transitionLog(ws, "x").at(-1)).toBe(`${state}->released=cancelled`);
  });
});

describe("memory / error → released", () => {
  it("memory → released sends ReleaseWorkerDataMsg and frees the bytes", () => {
    const ws = worker();
    taskInState(ws, "x", "memory");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([ReleaseWorkerDataMsg({ key: "x", stimulusId: "free" })]);
    expect(ws.data.has("x")).toBe(false);
    expect(ws.nbytes).toBe(0);
    expect(ws.tasks.has("x")).toBe(false);
  });

  it("error → released sends nothing", () => {
    const ws = worker();
    taskInState(ws, "x", "error");
    const instructions = ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(instructions).toEqual([]);
    expect(ws.tasks.has("x")).toBe(false);
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["error->released=released", "released->forgotten=forgotten"]);
  });
});
