// The command in-process against a fake simulator: argument handling, output routing and exit
// codes, without the cost of spawning Node or running a simulation.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { SimReport } from "../../src/sim/report.js";
import { captureIo, fakeSimulator, sampleReport, type FakeSimulatorCalls } from "./fixtures.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-main-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(argv: string[], options: { tty?: boolean; env?: Record<string, string>; report?: SimReport } = {}) {
  const captured = captureIo({ cwd: dir, tty: options.tty, env: options.env });
  const calls: FakeSimulatorCalls = { simulate: [] };
  const code = await main(argv, { io: captured.io, simulator: fakeSimulator(options.report, calls) });
  return { code, stdout: captured.stdout(), stderr: captured.stderr(), calls };
}

describe("spanwork run", () => {
  it("runs the default workload and prints the summary", async () => {
    const result = await run(["run"]);
    expect(result.code).toBe(0);
    expect(result.calls.simulate[0]!.workload.name).toBe("shuffle");
    expect(result.stdout).toContain("spanwork run · shuffle");
    expect(result.stdout).toContain("Fine performance metrics");
    expect(result.stderr).toBe("");
  });

  it("passes the parsed options to the simulator", async () => {
    const result = await run(["run", "map", "--workers", "3", "--threads", "2", "--memory-limit", "1.5GB", "--seed", "7", "--network", "max-min"]);
    expect(result.code).toBe(0);
    const { options } = result.calls.simulate[0]!;
    expect(options).toMatchObject({ workers: 3, threads: 2, memoryLimit: 1.5e9, seed: 7, network: "max-min", collectSpans: false });
    const sized = await run(["run", "map", "--size", "50", "--memory-limit", "none"]);
    expect(sized.calls.simulate[0]!.options).toMatchObject({ size: 50, memoryLimit: null });
  });

  it("passes --latency and --bandwidth, with their units", async () => {
    const result = await run(["run", "map", "--latency", "1.14ms", "--bandwidth", "744MB/s"]);
    expect(result.code).toBe(0);
    expect(result.calls.simulate[0]!.options).toMatchObject({ latency: 0.00114, bandwidth: 744e6 });
  });

  it("leaves unset options to the workload's own defaults", async () => {
    const { options } = (await run(["run", "map"])).calls.simulate[0]!;
    expect(Object.keys(options).sort()).toEqual(["collectSpans", "onProgress", "signal"]);
  });

  it("writes --json, --html and --trace files and says so", async () => {
    const result = await run(["run", "map", "--json", "r.json", "--html", "r.html", "--trace", "t.json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "r.json"), "utf8"))).toMatchObject({ schemaVersion: 2, workload: "map" });
    expect(readFileSync(join(dir, "r.html"), "utf8")).toContain("<!DOCTYPE html>");
    expect(JSON.parse(readFileSync(join(dir, "t.json"), "utf8"))).toEqual({ traceEvents: [] });
    expect(result.calls.simulate[0]!.options.collectSpans).toBe(true);
    expect(result.stdout).toMatch(/wrote r\.json \(report JSON, [\d.]+ KiB\)/);
    expect(result.stdout).toMatch(/wrote r\.html \(HTML report/);
    expect(result.stdout).toMatch(/wrote t\.json \(Chrome trace/);
  });

  it("sends the JSON to stdout with --json - and nothing else", async () => {
    const result = await run(["run", "map", "--json", "-"], { tty: true });
    expect(JSON.parse(result.stdout)).toMatchObject({ workload: "map" });
    expect(result.stdout).not.toContain("\u001b");
  });

  it("prints nothing with --quiet but still writes the files", async () => {
    const result = await run(["run", "map", "--quiet", "--json", "r.json"], { tty: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("");
    expect(readFileSync(join(dir, "r.json"), "utf8")).toContain('"workload": "map"');
  });

  it("shows a progress bar on a terminal only, and colours only there", async () => {
    const tty = await run(["run", "map"], { tty: true });
    expect(tty.stderr).toContain("10/10 tasks");
    expect(tty.stderr).toContain("simulated");
    expect(tty.stdout).toContain("\u001b[");
    const piped = await run(["run", "map"]);
    expect(piped.stderr).toBe("");
    expect(piped.stdout).not.toContain("\u001b[");
    const noColor = await run(["run", "map"], { tty: true, env: { NO_COLOR: "1" } });
    expect(noColor.stdout).not.toContain("\u001b[");
  });

  it("says so and exits 1 when the run ends incomplete, even with --quiet", async () => {
    const report = sampleReport({ complete: false, completion: "8 of 10 tasks finished: 8 in memory, 0 erred, 2 lost", tasks: { total: 10, completed: 8, erred: 0, lost: 2 } });
    const loud = await run(["run", "map"], { report });
    expect(loud.code).toBe(1);
    expect(loud.stdout).toContain("✘ 8 of 10 tasks finished");
    expect(loud.stderr).toBe("error: run incomplete: 8 of 10 tasks finished: 8 in memory, 0 erred, 2 lost\n");
    const quiet = await run(["run", "map", "--quiet"], { report });
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toBe("error: run incomplete: 8 of 10 tasks finished: 8 in memory, 0 erred, 2 lost\n");
  });
});

describe("bad input: exit 2 and one line on stderr", () => {
  it.each([
    [["run", "map", "--memory-limit", "2GiX"], 'error: --memory-limit: cannot parse "2GiX" as a size (examples: 64 KiB, 1.5GB, 200MB)'],
    [["run", "map", "--workers", "two"], 'error: --workers: expected a whole number, got "two"'],
    [["run", "map", "--workers", "0"], "error: --workers: must be between 1 and 10000, got 0"],
    [["run", "map", "--size", "0"], "error: --size: must be between 1 and 1000000, got 0"],
    [["run", "map", "--threads", "1.5"], 'error: --threads: expected a whole number, got "1.5"'],
    [["run", "map", "--seed", "-3"], "error: --seed: expected a whole number, got \"-3\""],
    [["run", "map", "--network", "carrier-pigeon"], 'error: --network: unknown network model "carrier-pigeon" (choose one of: instant, latency-bandwidth, max-min, shared-host)'],
    [["run", "map", "--latency", "soon"], 'error: --latency: cannot parse "soon" as seconds (examples: 0.001, 1.14ms, 300us)'],
    [["run", "map", "--latency=-1"], 'error: --latency: must be ≥ 0 seconds, got "-1"'],
    [["run", "map", "--latency=-2ms"], 'error: --latency: must be ≥ 0 seconds, got "-2ms"'],
    [["run", "map", "--bandwidth", "0"], 'error: --bandwidth: expected a positive size, got "0"'],
    [["run", "map", "--cluster", "no-such-profile.yaml"], "error: --cluster: no-such-profile.yaml: no such file"],
    [["run", "nope"], 'error: unknown workload "nope" (built-in: map, shuffle; or give the path of a JSON/YAML spec file)'],
    [["run", "missing.yaml"], "error: missing.yaml: no such file"],
    [["run", "map", "--json", "no-such-dir/r.json"], "error: --json: cannot write \"no-such-dir/r.json\": directory"],
    [["run", "map", "--html", "-"], 'error: --html: writing to stdout ("-") is supported for --json only; give a file name'],
    [["run", "map", "--json", "r.json", "--trace", "./r.json"], "error: --trace: same file as --json"],
    [["run", "map", "--bogus"], "error: unknown option '--bogus'"],
    [["run", "map", "--jsn", "x"], "error: unknown option '--jsn' (Did you mean --json?)"],
    [["run", "map", "extra"], "error: too many arguments for 'run'"],
    [["run", "map", "--workers"], "error: option '-w, --workers <n>' argument missing"],
    [["frobnicate"], "error: unknown command 'frobnicate'"],
    [["validate"], "error: missing required argument 'file'"],
    [["validate", "nope.json"], "error: nope.json: no such file"],
  ])("%j", async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr.endsWith("\n")).toBe(true);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.calls.simulate).toHaveLength(0);
  });

  it("names the first problem of an invalid spec and its path, and points at validate", async () => {
    writeFileSync(join(dir, "bad.yaml"), "tasks: []\n");
    const result = await run(["run", "bad.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: bad.yaml: tasks[0].count: expected a positive integer (and 1 more problem; `spanwork validate FILE` lists them all)\n");
  });

  it("refuses to write a report over a directory", async () => {
    mkdirSync(join(dir, "out"));
    const result = await run(["run", "map", "--html", "out"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: --html: cannot write "out": it is a directory\n');
  });

  it("prints the stack trace with --debug", async () => {
    const result = await run(["run", "map", "--memory-limit", "2GiX", "--debug"]);
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe('error: --memory-limit: cannot parse "2GiX" as a size (examples: 64 KiB, 1.5GB, 200MB)');
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});

describe("other failures: exit 1", () => {
  it("reports an internal error in one line, with the stack only under --debug", async () => {
    const captured = captureIo({ cwd: dir });
    const simulator = { ...fakeSimulator(), simulate: async () => { throw new TypeError("boom"); } };
    const code = await main(["run", "map"], { io: captured.io, simulator });
    expect(code).toBe(1);
    expect(captured.stderr()).toBe("error: internal error: boom (run with --debug for the stack trace)\n");
    const debugged = captureIo({ cwd: dir });
    expect(await main(["run", "map", "--debug"], { io: debugged.io, simulator })).toBe(1);
    expect(debugged.stderr()).toMatch(/^error: internal error: boom\nTypeError: boom\n\s+at /);
  });
});

describe("spanwork list and validate", () => {
  it("lists built-in workloads one per line", async () => {
    const result = await run(["list"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("map      independent tasks\nshuffle  an all-to-all shuffle (default)\n");
  });

  it("lists every problem of an invalid spec on stdout and exits 2", async () => {
    writeFileSync(join(dir, "bad.json"), "{}");
    const result = await run(["validate", "bad.json"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("bad.json: tasks[0].count: expected a positive integer\nbad.json: tasks[1].prefix: expected a string\n");
    expect(result.stderr).toBe("error: bad.json: 2 problems in the workload spec (listed above)\n");
  });
});

describe("--help and --version everywhere", () => {
  const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

  it.each([["--version"], ["-V"], ["run", "--version"], ["list", "--version"], ["validate", "--version"], ["sweep", "--version"], ["sweep", "merge", "--version"], ["compare", "-V"]])("%j prints the version", async (...argv) => {
    const result = await run(argv);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it.each([["--help"], [], ["run", "--help"], ["list", "-h"], ["validate", "--help"], ["help", "run"], ["sweep", "--help"], ["sweep", "merge", "--help"], ["compare", "--help"], ["help", "sweep"]])("%j prints help", async (...argv) => {
    const result = await run(argv);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: spanwork/);
    expect(result.stderr).toBe("");
  });

  it("help of a command there is not is one line, exit 2", async () => {
    const result = await run(["help", "nosuch"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: help: unknown command 'nosuch' (commands: run, list, validate, sweep, compare)\n");
    expect(result.stdout).toBe("");
  });

  it("gives the defaults of the run options a new user asks about first", async () => {
    const { stdout } = await run(["run", "--help"]);
    const text = stdout.replace(/\s+/g, " ");
    expect(text).toContain("number of workers (default: the profile's, else the spec's, else 4)");
    expect(text).toContain("threads per worker (default: the profile's, else the spec's, else 2)");
    expect(text).toContain("random seed (same seed, same run; default 1)");
    expect(text).toContain("(default: the profile's, else the spec's, else max-min;");
  });

  it("documents every run option", async () => {
    const { stdout } = await run(["run", "--help"]);
    for (const option of ["--workers", "--threads", "--memory-limit", "--seed", "--size", "--network", "--json", "--html", "--trace", "--quiet", "--debug", "--version", "--help"]) {
      expect(stdout).toContain(option);
    }
  });
});
