import { describe, expect, it } from "vitest";
import { CliUsageError } from "../../src/cli/errors.js";
import { parseBandwidth, parseNetworkModel, parseWholeNumber } from "../../src/cli/parse-options.js";
import { parseMemoryLimit, parseSize } from "../../src/cli/parse-size.js";
import { SpecError, validateSpec } from "../../src/sim/index.js";

describe("parseSize", () => {
  it.each([
    ["2GiB", 2 * 2 ** 30],
    ["500MB", 500e6],
    ["1.5GB", 1.5e9],
    ["1048576", 1048576],
    ["64 KiB", 65536],
    ["64kib", 65536],
    ["0.5KiB", 512],
    ["10B", 10],
    ["1k", 1000],
    ["3Mi", 3 * 2 ** 20],
    [".5MB", 500_000],
    [" 2 GiB ", 2 * 2 ** 30],
  ])("reads %j as %d bytes", (text, bytes) => {
    expect(parseSize(text, "--memory-limit")).toBe(bytes);
  });

  it("rounds fractions of a byte to the nearest", () => {
    expect(parseSize("1.1KiB", "--x")).toBe(1126);
    expect(parseSize("1.15 MB", "--x")).toBe(1_150_000);
    expect(parseSize("0.6", "--x")).toBe(1);
  });

  it("reads an exponent, as a spec does", () => {
    expect(parseSize("1e9", "--x")).toBe(1e9);
    expect(parseSize("2.5e3 KiB", "--x")).toBe(2_560_000);
  });

  it.each(["2GiX", "", "GiB", "0x10", "1,5GB", "2 G i B", "1..5MB", "12 bytes", "1e", "--1MB"])("rejects %j naming the option and giving examples", (text) => {
    expect(() => parseSize(text, "--memory-limit")).toThrow(CliUsageError);
    expect(() => parseSize(text, "--memory-limit")).toThrow(`--memory-limit: cannot parse "${text}" as a size (examples: 64 KiB, 1.5GB, 200MB)`);
  });

  it("rejects a negative size as negative", () => {
    expect(() => parseSize("-1MB", "--x")).toThrow('--x: expected a size ≥ 0, got "-1MB"');
  });

  it("rejects sizes beyond the limit on bytes", () => {
    expect(() => parseSize("9000PiB", "--memory-limit")).toThrow('--memory-limit: expected at most 1 PiB (1,125,899,906,842,624 bytes), got "9000PiB"');
  });
});

describe("parseMemoryLimit", () => {
  it("accepts none for no limit", () => {
    expect(parseMemoryLimit("none")).toBeNull();
    expect(parseMemoryLimit("NONE")).toBeNull();
  });
  it("rejects zero and negative sizes with a hint", () => {
    expect(() => parseMemoryLimit("0")).toThrow('--memory-limit: expected a positive size, got "0" (use "none" for no limit)');
    expect(() => parseMemoryLimit("-2 GiB")).toThrow('--memory-limit: expected a positive size, got "-2 GiB" (use "none" for no limit)');
  });
  it("passes sizes through", () => {
    expect(parseMemoryLimit("1MiB")).toBe(2 ** 20);
  });
});

// The command line and a spec read sizes with one reader: the same values, the same words.
describe("sizes on the command line and in a spec", () => {
  const specProblem = (field: "memoryLimit" | "bandwidth", text: string): string => {
    try {
      validateSpec({ tasks: [{ prefix: "a" }], cluster: { [field]: text } });
    } catch (error) {
      if (error instanceof SpecError) return error.message;
      throw error;
    }
    return "";
  };
  const specValue = (field: "memoryLimit" | "bandwidth", text: string) => validateSpec({ tasks: [{ prefix: "a" }], cluster: { [field]: text } }).cluster?.[field];

  it.each([
    ["12XB", 'cannot parse "12XB" as a size (examples: 64 KiB, 1.5GB, 200MB)'],
    ["1e300", 'expected at most 1 PiB (1,125,899,906,842,624 bytes), got "1e300"'],
    ["-1 MB", 'expected a positive size, got "-1 MB"'],
    ["0 B", 'expected a positive size, got "0 B"'],
  ])("rejects %j in the same words", (text, problem) => {
    expect(specProblem("memoryLimit", text)).toBe(`cluster.memoryLimit: ${problem}`);
    expect(specProblem("bandwidth", text)).toBe(`cluster.bandwidth: ${problem}`);
    expect(() => parseBandwidth(text)).toThrow(new CliUsageError(`--bandwidth: ${problem}`));
    const hint = problem.startsWith("expected a positive size") ? ' (use "none" for no limit)' : "";
    expect(() => parseMemoryLimit(text)).toThrow(new CliUsageError(`--memory-limit: ${problem}${hint}`));
  });

  it.each([
    [" 10 MiB ", 10 * 2 ** 20],
    ["10MB", 10e6],
    ["0.5 GB", 500e6],
  ])("reads %j as %d bytes", (text, bytes) => {
    expect(specValue("memoryLimit", text)).toBe(bytes);
    expect(specValue("bandwidth", text)).toBe(bytes);
    expect(parseMemoryLimit(text)).toBe(bytes);
    expect(parseBandwidth(text)).toBe(bytes);
  });
});

describe("parseWholeNumber", () => {
  it("reads whole numbers in range", () => {
    expect(parseWholeNumber("4", "--workers", 1, 10)).toBe(4);
    expect(parseWholeNumber("0", "--seed", 0, 10)).toBe(0);
  });
  it.each(["4.5", "1e3", "0x10", "-1", "", "four", " "])("rejects %j", (text) => {
    expect(() => parseWholeNumber(text, "--workers", 1, 10)).toThrow(`--workers: expected a whole number, got "${text}"`);
  });
  it("rejects numbers out of range", () => {
    expect(() => parseWholeNumber("0", "--workers", 1, 10)).toThrow("--workers: must be between 1 and 10, got 0");
    expect(() => parseWholeNumber("11", "--workers", 1, 10)).toThrow("--workers: must be between 1 and 10, got 11");
  });
  it("rejects numbers beyond exact integers", () => {
    expect(() => parseWholeNumber("99999999999999999999", "--seed", 0, Number.MAX_SAFE_INTEGER)).toThrow('--seed: expected a whole number, got "99999999999999999999"');
  });
});

describe("parseNetworkModel", () => {
  it("accepts the three models", () => {
    expect(parseNetworkModel("instant")).toBe("instant");
    expect(parseNetworkModel("latency-bandwidth")).toBe("latency-bandwidth");
    expect(parseNetworkModel("max-min")).toBe("max-min");
  });
  it("lists the models when the name is unknown", () => {
    expect(() => parseNetworkModel("fast")).toThrow('--network: unknown network model "fast" (choose one of: instant, latency-bandwidth, max-min, shared-host)');
  });
});
