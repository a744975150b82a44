// Reference §11: `_ensure_computing` / `_next_ready_task` — threads, priorities,
// ready vs constrained, resources, long-running tasks, pause.
import { describe, expect, it } from "vitest";
import {
  ComputeTaskEvent,
  Execute,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  PauseEvent,
  SecedeEvent,
  TaskFinishedMsg,
  UnpauseEvent,
} from "../../src/state/index.js";
import { match, workerWithRunningTask } from "../../src/testing/index.js";
import { track, worker } from "./helpers.js";

function paused(options: Parameters<typeof worker>[0] = {}) {
  const ws = worker(options);
  ws.handleStimulus(PauseEvent({ stimulusId: "pause" }));
  return ws;
}

describe("threads", () => {
  it("runs up to nthreads tasks; a finished task frees its thread for the next", () => {
    const ws = worker({ nthreads: 2 });
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "a", stimulusId: "s1" }),
        ComputeTaskEvent({ key: "b", stimulusId: "s2" }),
        ComputeTaskEvent({ key: "c", stimulusId: "s3" }),
      ),
    ).toEqual([Execute({ key: "a", stimulusId: "s1" }), Execute({ key: "b", stimulusId: "s2" })]);
    expect(ws.executingCount).toBe(2);
    expect(ws.ready.size).toBe(1);
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "b", stimulusId: "done" }))).toEqual([
      match(TaskFinishedMsg, { key: "b" }),
      Execute({ key: "c", stimulusId: "done" }),
    ]);
  });

  it("starts ready tasks in priority order", () => {
    const ws = paused({ nthreads: 2 });
    ws.handleStimulus(
      ComputeTaskEvent({ key: "low", priority: [3], stimulusId: "s1" }),
      ComputeTaskEvent({ key: "high", priority: [1], stimulusId: "s2" }),
      ComputeTaskEvent({ key: "mid", priority: [2], stimulusId: "s3" }),
    );
    expect([...ws.ready].map((ts) => ts.key)).toEqual(["high", "mid", "low"]);
    // _ensure_computing picks high then mid; its recommendations drain last-in-first-out
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([
      Execute({ key: "mid", stimulusId: "unpause" }),
      Execute({ key: "high", stimulusId: "unpause" }),
    ]);
    expect(ws.tasks.get("low")!.state).toBe("ready");
  });

  it("a seceded (long-running) task does not count against nthreads", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "a", stimulusId: "s1" }), ComputeTaskEvent({ key: "b", stimulusId: "s2" }));
    ws.handleStimulus(SecedeEvent({ key: "a", computeDuration: 1, stimulusId: "secede" }));
    expect(ws.tasks.get("b")!.state).toBe("executing");
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "c", stimulusId: "s3" }))).toEqual([]);
    expect(ws.tasks.get("c")!.state).toBe("ready");
    // a long-running task finishing frees no thread
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "a", stimulusId: "done-a" }))).toEqual([match(TaskFinishedMsg, { key: "a" })]);
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "b", stimulusId: "done-b" }))).toEqual([
      match(TaskFinishedMsg, { key: "b" }),
      Execute({ key: "c", stimulusId: "done-b" }),
    ]);
  });

  it("a cancelled task keeps its thread until its execution returns", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "a", stimulusId: "s1" }), FreeKeysEvent({ keys: ["a"], stimulusId: "free" }));
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "b", stimulusId: "s2" }))).toEqual([]);
    expect(ws.executingCount).toBe(1);
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "a", stimulusId: "done" }))).toEqual([Execute({ key: "b", stimulusId: "done" })]);
  });
});

describe("ready vs constrained", () => {
  it("the constrained top runs first when its priority is better and its resources are free", () => {
    const ws = paused({ resources: { R: 1 } });
    ws.handleStimulus(
      ComputeTaskEvent({ key: "r", priority: [1], stimulusId: "s1" }),
      ComputeTaskEvent({ key: "c", priority: [0], resourceRestrictions: { R: 1 }, stimulusId: "s2" }),
    );
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([Execute({ key: "c", stimulusId: "unpause" })]);
    expect(ws.availableResources).toEqual({ R: 0 });
  });

  it("the ready top runs first when its priority is better", () => {
    const ws = paused({ resources: { R: 1 } });
    ws.handleStimulus(
      ComputeTaskEvent({ key: "r", priority: [0], stimulusId: "s1" }),
      ComputeTaskEvent({ key: "c", priority: [1], resourceRestrictions: { R: 1 }, stimulusId: "s2" }),
    );
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([Execute({ key: "r", stimulusId: "unpause" })]);
  });

  it("a better constrained task without resources yields to a ready one", () => {
    const ws = paused({ resources: { R: 1 }, nthreads: 2 });
    ws.handleStimulus(
      ComputeTaskEvent({ key: "r", priority: [1], stimulusId: "s1" }),
      ComputeTaskEvent({ key: "c", priority: [0], resourceRestrictions: { R: 2 }, stimulusId: "s2" }),
    );
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([Execute({ key: "r", stimulusId: "unpause" })]);
    expect(ws.tasks.get("c")!.state).toBe("constrained");
  });

  it("only the top of the constrained queue is considered (head-of-line blocking)", () => {
    const ws = paused({ resources: { R: 1 }, nthreads: 2 });
    ws.handleStimulus(
      ComputeTaskEvent({ key: "big", priority: [0], resourceRestrictions: { R: 2 }, stimulusId: "s1" }),
      ComputeTaskEvent({ key: "small", priority: [1], resourceRestrictions: { R: 1 }, stimulusId: "s2" }),
    );
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([]);
    expect([...ws.constrained].map((ts) => ts.key)).toEqual(["big", "small"]);
  });
});

describe("resources", () => {
  it.each(["executing", "long-running"] as const)("a %s task holds its resources (test_task_acquires_resources)", (state) => {
    const { ws } = workerWithRunningTask({ state });
    track(ws);
    expect(ws.availableResources).toEqual({ R: 0 });
    expect(ws.totalResources).toEqual({ R: 1 });
  });

  it.each([
    ["success", () => ExecuteSuccessEvent({ key: "x", stimulusId: "done" })],
    ["failure", () => ExecuteFailureEvent({ key: "x", stimulusId: "done" })],
  ] as const)("%s releases them and starts the next constrained task", (_label, done) => {
    const { ws } = workerWithRunningTask();
    track(ws);
    ws.handleStimulus(ComputeTaskEvent({ key: "y", resourceRestrictions: { R: 1 }, stimulusId: "y" }));
    expect(ws.tasks.get("y")!.state).toBe("constrained");
    const instructions = ws.handleStimulus(done());
    expect(instructions.at(-1)).toEqual(Execute({ key: "y", stimulusId: "done" }));
    expect(ws.availableResources).toEqual({ R: 0 });
    expect(ws.tasks.get("y")!.state).toBe("executing");
  });

  it("tasks without restrictions run beside a task holding all resources", () => {
    const { ws } = workerWithRunningTask({ worker: { nthreads: 2 } });
    track(ws);
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "free", stimulusId: "s" }))).toEqual([Execute({ key: "free", stimulusId: "s" })]);
  });
});

describe("pause", () => {
  it("nothing starts while paused; unpause fills every free thread", () => {
    const ws = paused({ nthreads: 3 });
    ws.handleStimulus(ComputeTaskEvent({ key: "a", stimulusId: "s1" }), ComputeTaskEvent({ key: "b", stimulusId: "s2" }));
    expect(ws.executingCount).toBe(0);
    // b (newer generation) is picked first; the executing recommendations drain LIFO
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([
      Execute({ key: "a", stimulusId: "unpause" }),
      Execute({ key: "b", stimulusId: "unpause" }),
    ]);
  });

  it("pausing twice and unpausing with nothing to do is harmless", () => {
    const ws = paused();
    expect(ws.handleStimulus(PauseEvent({ stimulusId: "pause-2" }))).toEqual([]);
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([]);
    expect(ws.running).toBe(true);
  });
});
