// Reference §13: log entries, story(), stimulusStory(), stimulusLog.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDepSuccessEvent,
  UpdateDataEvent,
} from "../../src/state/index.js";
import { assertStory } from "../../src/testing/index.js";
import { W2, worker } from "./helpers.js";

describe("log and story", () => {
  it("every entry ends with the stimulus id and a number (assertStory checks the shape)", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }));
    const log = [...ws.log];
    expect(log.length).toBeGreaterThan(0);
    for (const entry of log) {
      expect(entry.at(-2)).toBe("s1");
      expect(typeof entry.at(-1)).toBe("number");
    }
    assertStory(log, [
      ["y", "compute-task", "released"],
      ["x", "ensure-task-exists", "released"],
      ["y", "released", "waiting", "waiting", { x: "fetch" }],
      ["x", "released", "fetch", "fetch", {}],
      ["gather-dependencies", W2, ["x"]],
      ["x", "fetch", "flight", "flight", {}],
    ]);
  });

  it("a transition's recommendations appear as one frozen {key: finish} map, whatever their number", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { a: [W2], b: [W2] }, stimulusId: "s1" }));
    ws.handleStimulus(FreeKeysEvent({ keys: ["y"], stimulusId: "s2" }));
    const transitions = [...ws.log].filter((entry) => entry.length === 7).map((entry) => JSON.stringify(entry));
    expect(transitions).toContain(JSON.stringify(["y", "released", "waiting", "waiting", { a: "fetch", b: "fetch" }, "s1", 1]));
    expect(transitions).toContain(JSON.stringify(["a", "released", "fetch", "fetch", {}, "s1", 1]));
    expect(transitions).toContain(
      JSON.stringify(["y", "waiting", "released", "released", { a: "released", b: "released", y: "forgotten" }, "s2", 2]),
    );
    const single = worker();
    single.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s1" }));
    const entries = [...single.log];
    expect(entries).toContainEqual(["x", "released", "waiting", "waiting", { x: "ready" }, "s1", 1]);
    expect(entries).toContainEqual(["x", "waiting", "ready", "ready", { x: "executing" }, "s1", 1]);
    for (const entry of [...entries, ...ws.log]) {
      expect(Object.isFrozen(entry)).toBe(true);
      if (entry.length === 7) expect(Object.isFrozen(entry[4])).toBe(true);
    }
  });

  it("nested transitions are logged before the outer one", () => {
    const ws = worker();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "s1" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s2" }));
    assertStory(ws.story("s2"), [
      ["x", "compute-task", "flight"],
      ["x", "flight", "released", "cancelled", {}],
      ["x", "cancelled", "waiting", "resumed", {}],
      ["x", "flight", "waiting", "resumed", {}],
    ]);
  });

  it("story() selects entries by key, by stimulus id, or by a key inside a list field", () => {
    const ws = worker();
    ws.handleStimulus(
      UpdateDataEvent({ data: { a: 1 }, stimulusId: "scatter" }),
      AcquireReplicasEvent({ whoHas: { b: [W2] }, stimulusId: "acquire" }),
      FreeKeysEvent({ keys: ["a"], stimulusId: "free" }),
    );
    const byKey = ws.story("b");
    expect(byKey.length).toBeGreaterThan(0);
    expect(byKey.every((entry) => entry.includes("b") || entry.some((f) => Array.isArray(f) && f.includes("b")))).toBe(true);
    assertStory(byKey, [["gather-dependencies", W2, ["b"]]]);
    expect(ws.story("free").every((entry) => entry.at(-2) === "free")).toBe(true);
    // the free-keys entry mentions "a" inside its key list
    assertStory(ws.story("a"), [["a", "receive-from-scatter", "released"], ["free-keys", ["a"]]]);
    // several arguments: union, in log order
    const both = ws.story("scatter", "free");
    expect(both.length).toBe(ws.story("scatter").length + ws.story("free").length);
  });

  it("stimulusStory() returns the logged events for keys, without bulky payloads", () => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({ key: "x", runSpec: { big: "payload" }, stimulusId: "c" }),
      ExecuteSuccessEvent({ key: "x", value: "huge value", stimulusId: "done" }),
      UpdateDataEvent({ data: { y: "scattered" }, stimulusId: "scatter" }),
    );
    const events = ws.stimulusStory("x");
    expect(events.map((e) => e.kind)).toEqual(["ComputeTaskEvent", "ExecuteSuccessEvent"]);
    const [compute, success] = events;
    expect(compute!.kind === "ComputeTaskEvent" && compute!.runSpec).toBeNull();
    expect(success!.kind === "ExecuteSuccessEvent" && success!.value).toBeNull();
    const logged = [...ws.stimulusLog];
    expect(logged.map((e) => e.stimulusId)).toEqual(["c", "done", "scatter"]);
    const scatter = logged[2]!;
    expect(scatter.kind === "UpdateDataEvent" && scatter.data).toEqual({ y: null });
    // the live state still has the real value
    expect(ws.data.get("y")).toBe("scattered");
  });

  it("gather results are logged without their data", () => {
    const ws = worker();
    ws.handleStimulus(
      AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "a" }),
      GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: "bytes" }, stimulusId: "g" }),
    );
    const gathered = [...ws.stimulusLog].find((e) => e.kind === "GatherDepSuccessEvent");
    expect(gathered && gathered.kind === "GatherDepSuccessEvent" && gathered.data).toEqual({ x: null });
  });

  it("a stimulus batch logs in order, each entry under its own stimulus id", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s1" }), ExecuteSuccessEvent({ key: "x", stimulusId: "s2" }));
    expect(ws.story("x").map((entry) => entry.at(-2))).toEqual(["s1", "s1", "s1", "s1", "s2", "s2"]);
  });
});
