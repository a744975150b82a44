// The state benchmark's option parser (bench/state.ts): values that contain "=" survive.
import { describe, expect, it } from "vitest";
import { parseOptions } from "../../bench/state.js";

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
});
