// The `spanwork/testing` helpers themselves, plus the worked example of docs/testing.md
// (kept identical to the doc so that the doc cannot rot).
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  AddKeysMsg,
  ComputeTaskEvent,
  Execute,
  ExecuteSuccessEvent,
  GatherDep,
  GatherDepSuccessEvent,
  ReleaseWorkerDataMsg,
  TaskFinishedMsg,
} from "../../src/state/index.js";
import {
  InstructionMatcher,
  LOCAL_ADDRESS,
  assertInstructions,
  assertStory,
  deepEqual,
  describeState,
  freshWorkerState,
  match,
  taskInState,
  workerWithRunningTask,
  type ReachableState,
} from "../../src/testing/index.js";
import { track } from "./helpers.js";

describe("docs/testing.md worked example", () => {
  // --- begin docs example ---
  it("a dependency fetched from a peer unblocks its dependent", () => {
    const ws = freshWorkerState(); // address 127.0.0.1:1, 1 thread, validate: true

    // The scheduler asks us to compute y, whose input x lives on 127.0.0.1:2.
    let instructions = ws.handleStimulus(
      ComputeTaskEvent({ key: "y", whoHas: { x: ["127.0.0.1:2"] }, nbytes: { x: 8 }, stimulusId: "compute" }),
    );
    expect(instructions).toEqual([
      GatherDep({ worker: "127.0.0.1:2", toGather: ["x"], totalNbytes: 8, stimulusId: "compute" }),
    ]);

    // The gather returns: x lands in memory, y starts on the free thread.
    instructions = ws.handleStimulus(
      GatherDepSuccessEvent({ worker: "127.0.0.1:2", totalNbytes: 8, data: { x: 41 }, stimulusId: "gathered" }),
    );
    assertInstructions(instructions, [
      match(AddKeysMsg, { keys: ["x"] }),
      match(Execute, { key: "y" }),
    ]);

    // y finishes; only the fields we care about are checked.
    instructions = ws.handleStimulus(ExecuteSuccessEvent({ key: "y", value: 42, nbytes: 8, stimulusId: "done" }));
    expect(instructions).toEqual([match(TaskFinishedMsg, { key: "y", nbytes: 8 })]);

    assertStory(ws.story("y"), [
      ["y", "compute-task", "released"],
      ["y", "released", "waiting", "waiting", { x: "fetch" }],
      ["y", "waiting", "ready", "ready", { y: "executing" }],
      ["y", "executing", "memory", "memory", {}],
    ]);
    ws.validateState();
  });
  // --- end docs example ---

  it("docs/testing.md shows exactly the example above", () => {
    const read = (relative: string) => readFileSync(new URL(relative, import.meta.url), "utf8");
    const source = read("./testing-entry.test.ts");
    const begin = "  // --- begin docs example ---\n";
    const example = source.slice(source.indexOf(begin) + begin.length, source.indexOf("  // --- end docs example ---"));
    const dedented = example
      .split("\n")
      .map((line) => (line.startsWith("  ") ? line.slice(2) : line))
      .join("\n")
      .trimEnd();
    expect(read("../../docs/testing.md")).toContain("```ts\n" + dedented + "\n```");
  });
});

describe("runner independence", () => {
  it("spanwork/testing never imports a test runner", () => {
    const dir = new URL("../../src/testing/", import.meta.url);
    const files = readdirSync(dir).filter((name) => name.endsWith(".ts"));
    expect(files).toContain("index.ts");
    for (const name of files) {
      const text = readFileSync(new URL(name, dir), "utf8");
      expect(text, name).not.toMatch(/from\s+["'](vitest|jest|@jest\/[^"']*|mocha|node:test)["']/);
    }
  });
});

describe("freshWorkerState / workerWithRunningTask", () => {
  it("has the documented defaults and accepts overrides", () => {
    const ws = track(freshWorkerState());
    expect(ws.nthreads).toBe(1);
    expect(ws.running).toBe(true);
    expect(ws.tasks.size).toBe(0);
    const wide = track(freshWorkerState({ nthreads: 4 }));
    expect(wide.nthreads).toBe(4);
    // the local address is stripped from who_has
    ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [LOCAL_ADDRESS, "127.0.0.1:2"] }, stimulusId: "s" }));
    expect([...ws.tasks.get("x")!.whoHas]).toEqual(["127.0.0.1:2"]);
  });

  it("validates by default: an invalid stimulus sequence is caught", () => {
    const ws = freshWorkerState();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s" }));
    ws.data.set("ghost", 1);
    expect(() => ws.validateState()).toThrow();
  });

  it.each(["executing", "long-running"] as const)("workerWithRunningTask(%s)", (state) => {
    const { ws, ts, instructions } = workerWithRunningTask({ state });
    track(ws);
    expect(ts.state).toBe(state);
    expect(ts.key).toBe("x");
    expect(ws.availableResources).toEqual({ R: 0 });
    expect(instructions[0]).toEqual(Execute({ key: "x", stimulusId: "compute" }));
    expect(instructions.map((i) => i.kind)).toEqual(state === "executing" ? ["Execute"] : ["Execute", "LongRunningMsg"]);
  });
});

describe("taskInState", () => {
  const states: ReachableState[] = [
    "waiting", "ready", "constrained", "executing", "long-running", "fetch", "flight", "missing", "memory", "error",
    "cancelled(executing)", "cancelled(long-running)", "cancelled(flight)", "resumed(executing->fetch)",
    "resumed(long-running->fetch)", "resumed(flight->waiting)",
  ];

  it.each(states)("reaches %s", (state) => {
    const ws = track(freshWorkerState());
    const { ts, instructions } = taskInState(ws, "k", state);
    expect(describeState(ts)).toBe(state);
    expect(ws.tasks.get("k")).toBe(ts);
    expect(instructions.every((i) => i.stimulusId.startsWith("k-setup-"))).toBe(true);
  });

  it("refuses an existing key and names it", () => {
    const ws = track(freshWorkerState());
    taskInState(ws, "k", "memory");
    expect(() => taskInState(ws, "k", "fetch")).toThrow(/k/);
  });

  it("refuses a peer that is already in flight", () => {
    const ws = track(freshWorkerState());
    taskInState(ws, "a", "flight");
    expect(() => taskInState(ws, "b", "flight")).toThrow(/127\.0\.0\.1:2/);
    expect(() => taskInState(ws, "b", "flight", { peer: "127.0.0.1:3" })).not.toThrow();
  });
});

describe("match", () => {
  const release = ReleaseWorkerDataMsg({ key: "x", stimulusId: "s1" });

  it("matches kind and listed fields only (dask's Instruction.match)", () => {
    expect(match(ReleaseWorkerDataMsg, { key: "x" }).matches(release)).toBe(true);
    expect(match(ReleaseWorkerDataMsg, { stimulusId: "s1" }).matches(release)).toBe(true);
    expect(match("ReleaseWorkerDataMsg").matches(release)).toBe(true);
    expect(match(ReleaseWorkerDataMsg, { key: "y" }).matches(release)).toBe(false);
    expect(match(ReleaseWorkerDataMsg, { stimulusId: "s2" }).matches(release)).toBe(false);
    expect(match("RescheduleMsg", { key: "x" }).matches(release)).toBe(false);
    expect(match(Execute).matches(null)).toBe(false);
  });

  it("works inside vitest's toEqual, in both directions of failure", () => {
    expect([release]).toEqual([match(ReleaseWorkerDataMsg, { key: "x" })]);
    expect([release]).not.toEqual([match(ReleaseWorkerDataMsg, { key: "y" })]);
    expect(() => expect([release]).toEqual([match(Execute, { key: "x" })])).toThrow();
  });

  it("compares fields deeply and accepts nested asymmetric matchers", () => {
    const gather = GatherDep({ worker: "w", toGather: ["a", "b"], totalNbytes: 2, stimulusId: "s" });
    expect(match(GatherDep, { toGather: ["a", "b"] }).matches(gather)).toBe(true);
    expect(match(GatherDep, { toGather: ["b", "a"] }).matches(gather)).toBe(false);
    expect(match(GatherDep, { toGather: expect.arrayContaining(["b"]) }).matches(gather)).toBe(true);
    expect(match(GatherDep, { toGather: match("Nope") as unknown as string[] }).matches(gather)).toBe(false);
  });

  it("rejects undefined fields instead of silently ignoring them", () => {
    expect(() => match(Execute, { key: undefined })).toThrow(/key/);
  });

  it("is an InstructionMatcher with a readable description", () => {
    const matcher = match(Execute, { key: "x" });
    expect(matcher).toBeInstanceOf(InstructionMatcher);
    expect(matcher.toAsymmetricMatcher()).toBe('Execute.match({key: "x"})');
    expect(matcher.mismatches(Execute({ key: "y", stimulusId: "s" }))).toEqual(['key: expected "x", got "y"']);
  });
});

describe("assertInstructions", () => {
  const actual = [Execute({ key: "a", stimulusId: "s" }), Execute({ key: "b", stimulusId: "s" })];

  it("passes on a full match", () => {
    expect(() => assertInstructions(actual, [match(Execute, { key: "a" }), Execute({ key: "b", stimulusId: "s" })])).not.toThrow();
  });

  it("reports every position with a diff", () => {
    let message = "";
    try {
      assertInstructions(actual, [match(Execute, { key: "a" }), match(Execute, { key: "c" }), match(Execute, { key: "d" })]);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("got 2, expected 3");
    expect(message).toContain("✓ [0]");
    expect(message).toContain('✗ [1] expected Execute.match({key: "c"})');
    expect(message).toContain('key: expected "c", got "b"');
    expect(message).toContain("✗ [2] missing");
  });

  it("reports unexpected extra instructions", () => {
    expect(() => assertInstructions(actual, [match(Execute, { key: "a" })])).toThrow(/unexpected Execute\(key="b"/);
  });
});

describe("assertStory", () => {
  const story = [
    ["x", "compute-task", "released", "s1", 1],
    ["x", "released", "waiting", "waiting", { x: "ready" }, "s1", 1],
    ["gather-dependencies", "w", new Set(["x", "y"]), "s2", 2],
    ["x", "waiting", "ready", "ready", {}, "s2", 2],
  ];

  it("finds an ordered subsequence, ignoring stimulus id and sequence number", () => {
    assertStory(story, [["x", "compute-task", "released"], ["x", "waiting", "ready", "ready", {}]]);
  });

  it("accepts entries with the stimulus id, or complete entries", () => {
    assertStory(story, [["x", "compute-task", "released", "s1"], ["x", "waiting", "ready", "ready", {}, "s2", 2]]);
    expect(() => assertStory(story, [["x", "compute-task", "released", "s2"]])).toThrow();
  });

  it("compares sets and arrays as unordered collections and calls predicates", () => {
    assertStory(story, [["gather-dependencies", "w", ["y", "x"]]]);
    assertStory(story, [["gather-dependencies", "w", (keys: unknown) => keys instanceof Set && keys.has("x")]]);
  });

  it("fails on the wrong order, naming the missing entry and printing the story", () => {
    expect(() =>
      assertStory(story, [["x", "waiting", "ready", "ready", {}], ["x", "compute-task", "released"]]),
    ).toThrow(/expected entry 1 \("x", "compute-task", "released"\) not found[\s\S]*story:/);
  });

  it("a prefix is not enough: the element count must line up", () => {
    expect(() => assertStory(story, [["x", "compute-task"]])).toThrow();
  });

  it("strict mode requires exactly the expected entries", () => {
    expect(() => assertStory(story, [["x", "compute-task", "released"]], { strict: true })).toThrow(/4 entries, expected exactly 1/);
    assertStory(
      story,
      [
        ["x", "compute-task", "released"],
        ["x", "released", "waiting", "waiting", { x: "ready" }],
        ["gather-dependencies", "w", ["x", "y"]],
        ["x", "waiting", "ready", "ready", {}],
      ],
      { strict: true },
    );
  });

  it("rejects malformed story entries", () => {
    expect(() => assertStory([["x", "compute-task"]], [])).toThrow(/malformed/);
  });
});

describe("deepEqual", () => {
  it("treats undefined properties as absent and compares Maps and Sets by content", () => {
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual(new Map([["a", new Set([1, 2])]]), new Map([["a", new Set([2, 1])]]))).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual(NaN, NaN)).toBe(true);
    expect(deepEqual({ a: [1] }, { a: [1, 2] })).toBe(false);
  });
});
