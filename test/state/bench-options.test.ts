// The state benchmark's options beyond parsing (bench/options.ts is tested in
// test/bench/options.test.ts) and its W1 floor.
import { describe, expect, it } from "vitest";
import { parseOptions } from "../../bench/state.js";
import { floorIndependent } from "../../bench/state-floor.js";

describe("bench state options", () => {
  it("warms up once by default; --trace and --child run in-process", () => {
    expect(parseOptions([]).warmup).toBe(1);
    expect(parseOptions(["--warmup", "0"]).warmup).toBe(0);
    expect(parseOptions(["--trace"]).inProcess).toBe(true);
    expect(parseOptions(["--child"]).inProcess).toBe(true);
  });

  it("offers the W1 floor, which answers W1's events with W1's instructions", () => {
    expect(parseOptions(["--only", "w1,w1-floor"]).only).toEqual(["w1", "w1-floor"]);
    let between = 0;
    const run = floorIndependent(200, () => between++);
    expect(between).toBe(1);
    expect(run.events).toBe(600);
    expect(run.instructions).toBe(600);
    expect(run.instructionsByType).toEqual({ Execute: 200, TaskFinishedMsg: 200, ReleaseWorkerDataMsg: 200 });
  });
});
