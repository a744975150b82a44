// The benchmark suites' one option parser (bench/options.ts): each suite keeps its options
// and defaults, a value keeps everything after its first "=", bad values are named, and
// `npm run bench` hands each suite only its own options.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BenchOptionError, parseSuiteOptions, splitSuiteArgs, type OptionSpecs } from "../../bench/options.js";
import { parse as parseSim } from "../../bench/sim.js";
import { parse as parseSpans } from "../../bench/spans.js";
import { parse as parseSpill } from "../../bench/spill.js";
import { parseOptions as parseState } from "../../bench/state.js";
import { parse as parseWorker } from "../../bench/worker.js";

describe("each suite's options", () => {
  it("keep their defaults", () => {
    expect(parseSpans([])).toEqual({ tasks: 30_000, awaits: 200_000, repeat: 3 });
    expect(parseWorker([])).toEqual({ series: 2_000, steps: 100_000, tasks: 5_000, repeat: 5 });
    expect(parseSim([])).toMatchObject({ only: undefined, shuffleSize: 100_000, mapSizes: [10_000, 100_000, 1_000_000], workers: 16 });
    expect(parseSpill([])).toMatchObject({ only: undefined, fastN: 200_000, heavyN: 20_000, heavyRepeat: 1, repeat: 5, layouts: ["keys", "slots"], dask: false });
    expect(parseState([])).toMatchObject({ w1N: 20_000, w2N: 5_000, w3N: 20_000, repeat: 3, warmup: 1, only: ["w1", "w2", "w3"], inProcess: false, nodeFlags: [] });
  });

  it("keep a value's second '=' (every suite, inline and separate)", () => {
    expect(parseSpill(["--dir=/tmp/a=b"]).dir).toBe("/tmp/a=b");
    expect(parseSpill(["--dir", "/tmp/c=d"]).dir).toBe("/tmp/c=d");
    expect(parseState(["--node-flags=--max-semi-space-size=4 --optimize-for-size"]).nodeFlags).toEqual([
      "--max-semi-space-size=4",
      "--optimize-for-size",
    ]);
    expect(parseSim(["--map-sizes=10,20", "--only=map"])).toMatchObject({ mapSizes: [10, 20], only: "map" });
    expect(parseSpans(["--tasks=7"]).tasks).toBe(7);
    expect(parseWorker(["--steps=9"]).steps).toBe(9);
  });

  it("name bad values and unknown options", () => {
    expect(() => parseSpans(["--tasks=1=2"])).toThrow('bench spans: --tasks must be an integer >= 1, got "1=2"');
    expect(() => parseWorker(["--repeat", "0"])).toThrow('bench worker: --repeat must be an integer >= 1, got "0"');
    expect(() => parseSim(["--map-sizes=10,x"])).toThrow('bench sim: --map-sizes must be an integer >= 1, got "x"');
    expect(() => parseSim(["--only=both"])).toThrow('bench sim: --only takes shuffle, map, got "both"');
    expect(() => parseSpill(["--layout=disk"])).toThrow('bench spill: --layout takes keys, slots, both, got "disk"');
    expect(() => parseState(["--only", "w1,w9"])).toThrow('bench state: --only takes w1, w2, w3, got "w9"');
    expect(() => parseState(["--warmup=-1"])).toThrow(/--warmup must be an integer >= 0, got "-1"/);
    expect(() => parseState(["--bogus"])).toThrow(/^bench state: unknown option --bogus \(options: --w1-n, /);
    expect(() => parseSpill(["--dir"])).toThrow(BenchOptionError);
    expect(() => parseSpill(["--dir"])).toThrow(/^bench spill: .*--dir/);
  });
});

describe("one command line for several suites", () => {
  const specs: Record<string, OptionSpecs> = {
    a: { repeat: { kind: "integer", default: 1 }, dir: { kind: "string" } },
    b: { repeat: { kind: "integer", default: 2 }, fast: { kind: "boolean" } },
  };

  it("gives each suite its own options, values whole", () => {
    expect(splitSuiteArgs(specs, ["--repeat", "4", "--dir", "x=y", "--fast"])).toEqual({
      a: ["--repeat=4", "--dir=x=y"],
      b: ["--repeat=4", "--fast"],
    });
    expect(parseSuiteOptions("a", specs["a"]!, ["--repeat=4", "--dir=x=y"])).toEqual({ repeat: 4, dir: "x=y" });
  });

  it("rejects an option no chosen suite knows, and a flag that is a value elsewhere", () => {
    expect(() => splitSuiteArgs(specs, ["--tasks", "3"])).toThrow(/^bench a\/b: unknown option --tasks/);
    expect(() => splitSuiteArgs({ ...specs, c: { fast: { kind: "string" } } }, [])).toThrow(/--fast is a flag in one suite/);
  });

  it("npm run bench: a bad option is one line on stderr and exit 2", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", "bench/index.ts", "state", "spill", "--dir=/x=y", "--w1-n=0"], {
      encoding: "utf8",
    });
    expect(child.status).toBe(2);
    expect(child.stderr.trim()).toBe('bench state: --w1-n must be an integer >= 1, got "0"');
    expect(child.stdout).toBe("");
  });
});
