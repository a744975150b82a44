import { describe, expect, it } from "vitest";
import { CliUsageError } from "../../src/cli/errors.js";
import { parseNetworkModel, parseWholeNumber } from "../../src/cli/parse-options.js";
import { parseMemoryLimit, parseSize } from "../../src/cli/parse-size.js";

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

  it("rounds fractions of a byte down", () => {
    expect(parseSize("1.1KiB", "--x")).toBe(1126);
  });

  it.each(["2GiX", "", "GiB", "-1MB", "1e9", "0x10", "1,5GB", "2 G i B", "1..5MB", "12 bytes"])("rejects %j naming the option and giving examples", (text) => {
    expect(() => parseSize(text, "--memory-limit")).toThrow(CliUsageError);
    expect(() => parseSize(text, "--memory-limit")).toThrow(`--memory-limit: cannot parse "${text}" as a size (examples: 2GiB, 500MB)`);
  });

  it("rejects sizes beyond exact integers", () => {
    expect(() => parseSize("9000PiB", "--memory-limit")).toThrow('--memory-limit: "9000PiB" is too large a size');
  });
});

describe("parseMemoryLimit", () => {
  it("accepts none for no limit", () => {
    expect(parseMemoryLimit("none")).toBeNull();
    expect(parseMemoryLimit("NONE")).toBeNull();
  });
  it("rejects zero with a hint", () => {
    expect(() => parseMemoryLimit("0")).toThrow('--memory-limit: must be greater than zero, got "0" (use "none" for no limit)');
  });
  it("passes sizes through", () => {
    expect(parseMemoryLimit("1MiB")).toBe(2 ** 20);
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
