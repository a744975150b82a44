// Reference §3: TaskState fields and helpers as seen through the public API, and keySplit.
import { describe, expect, it } from "vitest";
import {
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDepSuccessEvent,
  keySplit,
} from "../../src/state/index.js";
import { taskInState } from "../../src/testing/index.js";
import { W2, worker } from "./helpers.js";

describe("keySplit (dask's key_split)", () => {
  it.each([
    ["x", "x"],
    ["x-1", "x"],
    ["x-1-2-3", "x"],
    ["('x-2', 1)", "x"],
    ["('x', 1)", "x"],
    ["hello-world-1", "hello-world"],
    ["ae05086432ca935f6eba409a8ecd4896", "data"],
    ["x-abcdefab", "x"],
    ["inc-0123456789abcdef0123456789abcdef", "inc"],
  ])("%s → %s", (key, prefix) => {
    expect(keySplit(key)).toBe(prefix);
  });
});

describe("TaskState", () => {
  it("link sets read empty through the getters once their last member is gone", () => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, nbytes: { x: 10 }, stimulusId: "s1" }),
    );
    const y = ws.tasks.get("y")!;
    const x = ws.tasks.get("x")!;
    expect([...y.waitingForData].map(String)).toEqual(["<TaskState 'x' flight>"]);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 10, data: { x: 1 }, stimulusId: "s2" }));
    expect(y.waitingForData.size).toBe(0);
    expect([...x.waiters]).toEqual([y]); // until y is purged, as in dask
    ws.handleStimulus(ExecuteSuccessEvent({ key: "y", runId: 0, stimulusId: "s3" }));
    ws.handleStimulus(FreeKeysEvent({ keys: ["y"], stimulusId: "s4" }));
    expect(x.waiters.size).toBe(0);
    expect(y.state).toBe("forgotten");
    expect(x.dependents.size).toBe(0); // the last dependent is forgotten
    expect(x.state).toBe("memory"); // until the scheduler frees it too
  });

  it("reprs like dask", () => {
    const ws = worker();
    expect(String(taskInState(ws, "a", "flight").ts)).toBe("<TaskState 'a' flight>");
    expect(String(taskInState(ws, "b", "cancelled(flight)", { peer: "127.0.0.1:3" }).ts)).toBe("<TaskState 'b' cancelled(flight)>");
    expect(String(taskInState(ws, "c", "resumed(flight->waiting)", { peer: "127.0.0.1:4" }).ts)).toBe(
      "<TaskState 'c' resumed(flight->waiting)>",
    );
  });

  it("getNbytes() falls back to 1024 while the size is unknown", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s1" }));
    const x = ws.tasks.get("x")!;
    expect(x.nbytes).toBeNull();
    expect(x.getNbytes()).toBe(1024);
    ws.handleStimulus(ExecuteSuccessEvent({ key: "x", nbytes: 77, stimulusId: "s2" }));
    expect(x.getNbytes()).toBe(77);
  });

  it("a forgotten key re-created is a different object (identity semantics)", () => {
    const ws = worker();
    const first = taskInState(ws, "x", "memory").ts;
    ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    const second = taskInState(ws, "x", "memory", { stimulusPrefix: "again" }).ts;
    expect(second).not.toBe(first);
    expect(first.state).toBe("forgotten");
    expect(new Set([first, second]).size).toBe(2);
  });

  it("done is set when the coroutine returns and kept in memory until purge", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "flight");
    expect(ts.done).toBe(false);
    expect(ts.comingFrom).toBe(W2);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "g" }));
    expect(ts.state).toBe("memory");
    expect(ts.done).toBe(true);
    expect(ts.comingFrom).toBeNull();
    ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    expect(ts.done).toBe(false);
  });

  it("prefix, run id, priority, startstops and span id come from the events", () => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({ key: "inc-12", runId: 4, priority: [2], spanId: "span-9", stimulusId: "s1" }),
      ExecuteSuccessEvent({ key: "inc-12", start: 10, stop: 12.5, stimulusId: "s2" }),
    );
    const ts = ws.tasks.get("inc-12")!;
    expect(ts.prefix).toBe("inc");
    expect(ts.runId).toBe(4);
    expect(ts.priority).toEqual([2, 0]);
    expect(ts.spanId).toBe("span-9");
    expect(ts.startstops).toEqual([expect.objectContaining({ action: "compute", start: 10, stop: 12.5 })]);
    expect(ts.previous).toBeNull();
    expect(ts.next).toBeNull();
  });
});
