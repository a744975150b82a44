// The state benchmark's option parser (bench/state.ts): values that contain "=" survive.
import { describe, expect, it } from "vitest";
import { parseOptions } from "../../bench/state.js";
import { floorIndependent } from "../../bench/state-floor.js";

describe("bench state options", () => {
  it("keeps the whole value after the first '='", () => {
    const options = parseOptions(["--node-flags=--max-semi-space-size=4 --optimize-for-size", "--w1-n=100000"]);
    expect(options.nodeFlags).toEqual(["--max-semi-space-size=4", "--optimize-for-size"]);
    expect(options.w1N).toBe(100_000);
  });

  it("warms up once by default and names bad values", () => {
    expect(parseOptions([]).warmup).toBe(1);
    expect(parseOptions(["--warmup", "0"]).warmup).toBe(0);
    expect(() => parseOptions(["--only", "w9"])).toThrow(/unknown workload "w9"/);
    expect(() => parseOptions(["--repeat=0"])).toThrow(/--repeat must be a positive integer/);
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
