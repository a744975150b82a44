// Reference §8: ComputeTaskEvent and the Execute*DoneEvents.
import { describe, expect, it } from "vitest";
import {
  AddKeysMsg,
  ComputeTaskEvent,
  Execute,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  GatherDep,
  GatherDepSuccessEvent,
  PauseEvent,
  RescheduleEvent,
  RescheduleMsg,
  TaskErredMsg,
  TaskFinishedMsg,
  UnpauseEvent,
  UpdateDataEvent,
} from "../../src/state/index.js";
import { LOCAL_ADDRESS, assertStory, match, taskInState } from "../../src/testing/index.js";
import { W2, W3, worker } from "./helpers.js";

describe("ComputeTaskEvent", () => {
  it("priority = scheduler priority + generation; generation counts down (LIFO tie-break)", () => {
    const ws = worker();
    ws.handleStimulus(PauseEvent({ stimulusId: "pause" }));
    ws.handleStimulus(
      ComputeTaskEvent({ key: "a", priority: [1, 2], stimulusId: "s1" }),
      ComputeTaskEvent({ key: "b", priority: [1, 2], stimulusId: "s2" }),
    );
    expect(ws.tasks.get("a")!.priority).toEqual([1, 2, 0]);
    expect(ws.tasks.get("b")!.priority).toEqual([1, 2, -1]);
    expect(ws.generation).toBe(-2);
    // equal scheduler priority: the most recent compute-task runs first
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([Execute({ key: "b", stimulusId: "unpause" })]);
  });

  it("dependencies inherit the dependent's full priority, nbytes and holders; our own address is dropped", () => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({
        key: "z",
        priority: [3],
        whoHas: { x: [W2, LOCAL_ADDRESS], y: [W3] },
        nbytes: { x: 10, y: 20 },
        stimulusId: "s1",
      }),
    );
    const [x, y, z] = ["x", "y", "z"].map((k) => ws.tasks.get(k)!);
    expect(z.priority).toEqual([3, 0]);
    expect(x.priority).toEqual([3, 0]);
    expect(x.nbytes).toBe(10);
    expect(y.nbytes).toBe(20);
    expect([...x.whoHas]).toEqual([W2]);
    expect([...ws.hasWhat.get(W2)!]).toEqual(["x"]);
    expect([...z.dependencies].map((t) => t.key).sort()).toEqual(["x", "y"]);
    expect([...x.dependents]).toEqual([z]);
    expect(x.runSpec).toBeNull();
    expect(z.runSpec).not.toBeNull();
  });

  it("a dependency's priority is never raised afterwards (quirk §5)", () => {
    const ws = worker();
    ws.handleStimulus(PauseEvent({ stimulusId: "pause" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "a", priority: [5], whoHas: { x: [W2] }, stimulusId: "s1" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "b", priority: [0], whoHas: { x: [W2] }, stimulusId: "s2" }));
    expect(ws.tasks.get("x")!.priority).toEqual([5, 0]);
  });

  it("re-announces a task already in memory with the event's run id", () => {
    const ws = worker();
    taskInState(ws, "x", "memory");
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "x", runId: 5, stimulusId: "again" }))).toEqual([
      match(TaskFinishedMsg, { key: "x", runId: 5, stimulusId: "again" }),
    ]);
    expect(ws.tasks.get("x")!.runId).toBe(5);
  });

  it.each(["waiting", "ready", "constrained", "executing", "long-running"] as const)(
    "is a no-op for a %s task except for the run id",
    (state) => {
      const ws = worker();
      const { ts } = taskInState(ws, "x", state);
      const priority = ts.priority;
      expect(ws.handleStimulus(ComputeTaskEvent({ key: "x", runId: 42, priority: [-9], stimulusId: "again" }))).toEqual([]);
      expect(ts.state).toBe(state);
      expect(ts.runId).toBe(42);
      expect(ts.priority).toEqual(priority);
      assertStory(ws.story("again"), [["x", "compute-task", state]]);
    },
  );

  it("sets run spec, restrictions, annotations and span id", () => {
    const ws = worker({ resources: { R: 2 } });
    ws.handleStimulus(
      ComputeTaskEvent({ key: "x", runSpec: "spec", resourceRestrictions: { R: 1 }, annotations: { a: 1 }, spanId: "sp", stimulusId: "s1" }),
    );
    const x = ws.tasks.get("x")!;
    expect(x.runSpec).toBe("spec");
    expect(x.resourceRestrictions).toEqual({ R: 1 });
    expect(x.spanId).toBe("sp");
    expect(ws.availableResources).toEqual({ R: 1 });
  });

  it("keySplit gives the task prefix", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "inc-0123456789abcdef0123456789abcdef", stimulusId: "s1" }));
    expect(ws.tasks.get("inc-0123456789abcdef0123456789abcdef")!.prefix).toBe("inc");
  });
});

describe("Execute*DoneEvent", () => {
  function twoTasksOneThread() {
    const ws = worker();
    const setup = ws.handleStimulus(
      ComputeTaskEvent({ key: "a", runId: 1, stimulusId: "s1" }),
      ComputeTaskEvent({ key: "b", runId: 2, stimulusId: "s2" }),
    );
    expect(setup).toEqual([Execute({ key: "a", stimulusId: "s1" })]);
    expect(ws.tasks.get("b")!.state).toBe("ready");
    return ws;
  }

  it("success: TaskFinishedMsg precedes the next Execute", () => {
    const ws = twoTasksOneThread();
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "a", runId: 1, nbytes: 8, start: 2, stop: 5, stimulusId: "done" }))).toEqual([
      match(TaskFinishedMsg, { key: "a", runId: 1, nbytes: 8, stimulusId: "done" }),
      Execute({ key: "b", stimulusId: "done" }),
    ]);
    const a = ws.tasks.get("a")!;
    expect(a.startstops).toEqual([expect.objectContaining({ action: "compute", start: 2, stop: 5 })]);
    expect(a.nbytes).toBe(8);
    expect(ws.executedCount).toBe(1);
  });

  it("failure: TaskErredMsg precedes the next Execute", () => {
    const ws = twoTasksOneThread();
    expect(ws.handleStimulus(ExecuteFailureEvent({ key: "a", runId: 1, stimulusId: "done" }))).toEqual([
      match(TaskErredMsg, { key: "a", runId: 1, stimulusId: "done" }),
      Execute({ key: "b", stimulusId: "done" }),
    ]);
    // no start/stop: no startstop entry
    expect(ws.tasks.get("a")!.startstops).toEqual([]);
  });

  it("reschedule: RescheduleMsg precedes the next Execute", () => {
    const ws = twoTasksOneThread();
    expect(ws.handleStimulus(RescheduleEvent({ key: "a", stimulusId: "done" }))).toEqual([
      RescheduleMsg({ key: "a", stimulusId: "done" }),
      Execute({ key: "b", stimulusId: "done" }),
    ]);
    expect(ws.tasks.has("a")).toBe(false);
    expect(ws.executedCount).toBe(1);
  });

  it("the event's run id wins over the task's in TaskFinishedMsg (§17.7)", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "a", runId: 3, stimulusId: "s1" }));
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "a", runId: 4, stimulusId: "done" }))).toEqual([
      match(TaskFinishedMsg, { key: "a", runId: 4 }),
    ]);
  });

  it("a gathered dependency makes its dependent runnable (test_task_with_dependencies_acquires_resources)", () => {
    const ws = worker({ resources: { R: 1 } });
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, resourceRestrictions: { R: 1 }, stimulusId: "s1" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" }),
    ]);
    expect(ws.availableResources).toEqual({ R: 1 });
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, data: { x: 123 }, totalNbytes: 8, stimulusId: "s2" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "s2" }),
      Execute({ key: "y", stimulusId: "s2" }),
    ]);
    expect(ws.availableResources).toEqual({ R: 0 });
  });

  it("worker nbytes follows tasks into and out of memory", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s0" }), ExecuteSuccessEvent({ key: "x", nbytes: 12, stimulusId: "s1" }));
    expect(ws.nbytes).toBe(12);
    taskInState(ws, "y", "flight", { nbytes: 13 });
    expect(ws.nbytes).toBe(12);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 13, data: { y: "foo" }, stimulusId: "s3" }));
    expect(ws.nbytes).toBe(25);
    ws.handleStimulus(UpdateDataEvent({ data: { z: "bar" }, stimulusId: "s4" }));
    const z = ws.tasks.get("z")!;
    expect(typeof z.nbytes).toBe("number");
    expect(ws.nbytes).toBe(25 + z.nbytes!);
  });
});

describe("compute-task for a task that does not go through released → waiting", () => {
  // Reference §8 updates the dependencies' who_has for every accepted compute-task, but only
  // released → waiting recommends fetching them. When the task itself turns into
  // resumed(flight->waiting) (or executing again), a dependency in `missing` gains holders
  // and stays missing, which §14 declares invalid ("missing: who_has empty"). Found by the
  // property test; the clean behaviour is to fetch it, as refresh-who-has would.
  it("a missing dependency that gains a holder is fetched", () => {
    const ws = worker();
    taskInState(ws, "t1", "flight");
    ws.handleStimulus(
      ComputeTaskEvent({ key: "t0", whoHas: { d0: [W3] }, stimulusId: "s1" }),
      GatherDepSuccessEvent({ worker: W3, totalNbytes: 1, data: {}, stimulusId: "s2" }),
    );
    expect(ws.tasks.get("d0")!.state).toBe("missing");
    const instructions = ws.handleStimulus(ComputeTaskEvent({ key: "t1", whoHas: { d0: ["127.0.0.1:4"] }, stimulusId: "s3" }));
    expect(ws.tasks.get("t1")!.state).toBe("resumed");
    expect(instructions).toEqual([GatherDep({ worker: "127.0.0.1:4", toGather: ["d0"], totalNbytes: 1, stimulusId: "s3" })]);
    expect(ws.tasks.get("d0")!.state).toBe("flight");
  });
});
