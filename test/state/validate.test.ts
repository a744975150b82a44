// Reference §14: validateState() holds in every reachable state and names the broken
// invariant when something outside the state machine corrupts it.
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent, InvalidTaskState, UpdateDataEvent } from "../../src/state/index.js";
import { freshWorkerState, taskInState, type ReachableState } from "../../src/testing/index.js";
import { W3, worker } from "./helpers.js";

const ALL_STATES: ReachableState[] = [
  "waiting",
  "ready",
  "constrained",
  "executing",
  "long-running",
  "fetch",
  "flight",
  "missing",
  "memory",
  "error",
  "cancelled(executing)",
  "cancelled(long-running)",
  "cancelled(flight)",
  "resumed(executing->fetch)",
  "resumed(long-running->fetch)",
  "resumed(flight->waiting)",
];

describe("validateState on reachable states", () => {
  it.each(ALL_STATES)("%s is valid", (state) => {
    const ws = worker({ nthreads: 2 });
    taskInState(ws, "x", state);
    expect(() => ws.validateState()).not.toThrow();
  });

  it("all states at once on one worker are valid", () => {
    const ws = worker({ nthreads: 8 });
    // "ready" occupies every free thread with fillers, so it goes last
    const ordered = [...ALL_STATES.filter((s) => s !== "ready"), "ready" as const];
    ordered.forEach((state, i) => {
      // a fresh peer per task keeps earlier transfers from blocking later ones
      taskInState(ws, `t${i}`, state, { peer: `127.0.0.1:${10 + i}` });
    });
    expect(() => ws.validateState()).not.toThrow();
  });
});

describe("validateState detects corruption", () => {
  it("a value removed from the data store behind the worker's back", () => {
    const ws = freshWorkerState();
    ws.handleStimulus(UpdateDataEvent({ data: { x: 1 }, stimulusId: "s1" }));
    ws.data.delete("x");
    expect(() => ws.validateState()).toThrow(/x/);
  });

  it("an unregistered key in the data store", () => {
    const ws = freshWorkerState();
    ws.data.set("ghost", 1);
    expect(() => ws.validateState()).toThrow(/ghost/);
  });

  it("who_has and has_what out of sync", () => {
    const ws = freshWorkerState();
    const { ts } = taskInState(ws, "x", "fetch");
    (ts.whoHas as Set<string>).add(W3);
    expect(() => ws.validateState()).toThrow(/x/);
  });

  it("a task state that its collections disagree with", () => {
    const ws = freshWorkerState();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s1" }));
    const ts = ws.tasks.get("x")!;
    (ts as { state: string }).state = "ready";
    let error: unknown;
    try {
      ws.validateState();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/x/);
    if (error instanceof InvalidTaskState) {
      expect(error.key).toBe("x");
    }
  });
});
