// fidelity/tools/make_profile.py writes a cluster profile from a fidelity set's raw dask runs and
// the micro-tools' outputs. On the quiet set's four calibration cases it must give the figures
// the hand-assembled quiet profile took from the same sources, load through spanwork's own
// profile reader, and, where it derives a figure differently, the figure its source gives.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadClusterProfile } from "../../src/sim/index.js";
import { expectRefusal, ROOT, runTool, type ToolRun } from "./python-tool.js";

const dir = mkdtempSync(join(tmpdir(), "spanwork-make-profile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const makeProfile = (...args: string[]): ToolRun => runTool("make_profile.py", args);

const QUIET_CASES = ["--cases", "chain-s1,map-s1,shuffle-s1,tree-s1"];
const QUIET_TOOLS = ["--fetch-cost", "fidelity/quiet/tools/fetch_cost.json", "--disk-shared", "fidelity/quiet/tools/disk_shared.json", "--cores", "2"];

describe("fidelity/tools/make_profile.py", () => {
  it("derives the quiet profile's figures from the quiet runs, calibration and tools", () => {
    const run = makeProfile("fidelity/quiet", ...QUIET_CASES, ...QUIET_TOOLS);
    expect(run.status, run.stderr).toBe(0);
    const path = join(dir, "quiet.yaml");
    writeFileSync(path, run.stdout);
    const made = loadClusterProfile(path);
    const committed = loadClusterProfile(join(ROOT, "profiles", "dask-localcluster-2x2-quiet.yaml"));
    // The committed profile rounds its figures to 2-3 significant digits.
    const close = (actual: number | undefined, expected: number | undefined, label: string): void => {
      expect(actual, label).toBeDefined();
      expect(Math.abs(actual! / expected! - 1), `${label}: ${actual} against ${expected}`).toBeLessThan(0.02);
    };
    expect(made.workers).toBe(2);
    expect(made.threads).toBe(2);
    expect(made.workersPerHost).toBe(2);
    expect(made.network).toBe("shared-host");
    for (const field of ["latency", "bandwidth", "loopBandwidth", "deserializeBandwidth", "transferSpread"] as const) {
      close(made[field] as number, committed[field] as number, field);
    }
    // The lone transfer's rate and the host's cores, no in-run host capacity: as the quiet profile.
    expect(made.hostBandwidth).toBeUndefined();
    expect(committed.hostBandwidth).toBeUndefined();
    expect(made.host).toEqual(committed.host);
    for (const field of ["bandwidth", "latency", "hostBandwidth"] as const) close(made.disk?.[field] as number, committed.disk?.[field] as number, `disk.${field}`);
    for (const field of ["messageLatency", "workerHandling", "taskOverrun", "schedulerDecision", "workerMessage", "schedulerBatch", "workerBatch"] as const) {
      close(made.overheads?.[field] as number, committed.overheads?.[field] as number, `overheads.${field}`);
    }
    for (const field of ["target", "spill", "pause", "terminate", "unmanaged", "unmanagedPerTask", "monitorInterval"] as const) {
      close(made.memory?.[field] as number, committed.memory?.[field] as number, `memory.${field}`);
    }
    // The in-run rates are printed as the check, with the quiet calibration's 1.62 ms latency taken
    // off each transfer (derive.py took the shared set's 1.14 ms and said 492 MB/s).
    expect(run.stdout).toMatch(/# in the runs .*: transfers with none in the other direction 509 MB\/s \(413 MB\), overlapping one the other way 269 MB\/s each/);
    // The connection cost comes from the quiet fetch_cost.py run (1.41 ms; the quiet profile keeps
    // the loaded machine's 2.3 ms).
    close(made.overheads?.connectLatency as number, 0.00141, "overheads.connectLatency");
    // What it cannot derive it leaves to spanwork's defaults, and says so: the quiet disk_shared.py
    // run is older than its timed removals.
    expect(made.disk?.removeBandwidth).toBeUndefined();
    expect(run.stdout).toMatch(/# removeLatency, removeBandwidth: not derived \(disk_shared.py --paced's timed removals/);
  }, 60_000);

  it("derives a spilled file's removal from disk_shared.py's timed removals: the value's size over their median, no per-file term", () => {
    const set = "fidelity/held-out";
    const run = makeProfile(set, ...QUIET_CASES, "--disk-shared", `${set}/tools/disk_shared.json`, "--cores", "2");
    expect(run.status, run.stderr).toBe(0);
    const path = join(dir, "held-out.yaml");
    writeFileSync(path, run.stdout);
    const made = loadClusterProfile(path);
    // 256 removals of 25 MB values alone, median 1.90 ms (tools/disk_shared.json's per_value).
    expect(made.disk?.removeLatency).toBe(0);
    expect(Math.abs(made.disk!.removeBandwidth! / (25e6 / 1.8986e-3) - 1)).toBeLessThan(0.01);
    expect(run.stdout).toMatch(/removeBandwidth: 13.2 GB +# disk_shared --paced: zict's File.__delitem__ timed in place, median 1.90 ms per 25 MB value \(256 values/);
  }, 60_000);

  it("leaves out what a tool's output would give when that output is not passed", () => {
    const run = makeProfile("fidelity/quiet", ...QUIET_CASES);
    expect(run.status, run.stderr).toBe(0);
    const path = join(dir, "bare.yaml");
    writeFileSync(path, run.stdout);
    const made = loadClusterProfile(path);
    expect(made.deserializeBandwidth).toBeUndefined();
    expect(made.overheads?.connectLatency).toBeUndefined();
    expect(made.disk?.hostBandwidth).toBeUndefined();
    expect(made.host).toBeUndefined();
    expect(run.stdout).toMatch(/# deserializeBandwidth: not measured \(fetch_cost\.py, then --fetch-cost\)/);
  }, 60_000);

  it("--cores and --load give the host section (the loaded profile: the quiet machine with load 1.5)", () => {
    const run = makeProfile("fidelity/quiet", ...QUIET_CASES, ...QUIET_TOOLS, "--load", "1.5");
    expect(run.status, run.stderr).toBe(0);
    const path = join(dir, "loaded.yaml");
    writeFileSync(path, run.stdout);
    expect(loadClusterProfile(path).host).toEqual(loadClusterProfile(join(ROOT, "profiles", "dask-localcluster-2x2.yaml")).host);
  }, 60_000);

  it("a name is data: one with ': ' and '#' in it comes back as it was given", () => {
    const run = makeProfile("fidelity/quiet", ...QUIET_CASES, "--name", "lab: rack #3");
    expect(run.status, run.stderr).toBe(0);
    const path = join(dir, "named.yaml");
    writeFileSync(path, run.stdout);
    expect(loadClusterProfile(path).name).toBe("lab: rack #3");
  }, 60_000);

  it("derive.py takes a set's own calibrated latency off each transfer (the quiet set's 1.62 ms, not the shared 1.14)", () => {
    const run = runTool("derive.py", ["fidelity/quiet", ...QUIET_CASES]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/isolated transfers: 509 MB\/s \(413 MB; latency 1\.62 ms, its calibration\.json\)/);
  }, 60_000);

  it("--gc: a worker's first full collection from gc_gaps.py's output, the scheduler's as a comment unless --gc-scheduler", () => {
    const heldOut = ["fidelity/held-out", "--cases", "chain-s1,map-s1,shuffle-s1,tree-s1"];
    const run = makeProfile(...heldOut, "--gc", "fidelity/held-out/tools/gc_gaps.json");
    expect(run.status, run.stderr).toBe(0);
    const path = join(dir, "gc.yaml");
    writeFileSync(path, run.stdout);
    const made = loadClusterProfile(path);
    // the medians of the 20 fresh workers' first stops in the set's wide-map and mid-map runs
    expect(made.overheads?.workerGc).toEqual({ first: 227, stop: 0.054 });
    expect(made.overheads?.schedulerGc).toBeUndefined();
    expect(run.stdout).toMatch(/workerGc: .*# gc_gaps\.py fidelity\/held-out\/tools\/gc_gaps\.json: medians of 20 fresh workers' first stops in 10 runs/);
    expect(run.stdout).toMatch(/# schedulerGc: \{ first: 1405, stop: 0\.102 \} .*not written: it depends on the runs the driver's process ran before/);
    const both = makeProfile(...heldOut, "--gc", "fidelity/held-out/tools/gc_gaps.json", "--gc-scheduler");
    expect(both.status, both.stderr).toBe(0);
    writeFileSync(path, both.stdout);
    expect(loadClusterProfile(path).overheads?.schedulerGc).toEqual({ first: 1405, stop: 0.102 });
    // without --gc: said, and nothing modelled
    const bare = makeProfile(...heldOut);
    expect(bare.stdout).toMatch(/# workerGc, schedulerGc: not measured \(gc_gaps\.py or gc_probe\.py, then --gc\)/);
  }, 60_000);

  it("--gc with gc_probe.py's output: the stop timed in place, the count from gc_gaps over the set's runs", () => {
    const run = makeProfile("fidelity/quiet-again", "--cases", "chain-s1,map-s1,shuffle-s1,tree-s1", "--gc", "fidelity/quiet-again/tools/gc_probe.json", "--gc-scheduler");
    expect(run.status, run.stderr).toBe(0);
    const path = join(dir, "probe.yaml");
    writeFileSync(path, run.stdout);
    const made = loadClusterProfile(path);
    // the workers' four gen-2 collections: 36.27, 40.66, 41.01, 46.5 ms; the scheduler's one of 53.11
    expect(made.overheads?.workerGc).toEqual({ first: 233, stop: 0.0408 });
    expect(made.overheads?.schedulerGc).toEqual({ first: 1297, stop: 0.0531 });
    expect(run.stdout).toMatch(/workerGc: .*gc_probe\.py .*the median of 4 gen-2 collections \(36\.27-46\.5 ms\); the count: gc_gaps\.py over fidelity\/quiet-again\/real\/raw/);
  }, 60_000);

  it("bad input: one line naming the problem, exit 2", () => {
    // A set with raw runs but no compiled graph of them.
    const graphless = join(dir, "graphless");
    mkdirSync(join(graphless, "real", "raw"), { recursive: true });
    copyFileSync(join(ROOT, "fidelity", "quiet", "real", "raw", "map-s1.json"), join(graphless, "real", "raw", "map-s1.json"));
    copyFileSync(join(ROOT, "fidelity", "quiet", "calibration.json"), join(graphless, "calibration.json"));
    // A set whose raw file holds no runs, and a calibration that is not an object.
    const runless = join(dir, "runless");
    for (const sub of [join("real", "raw"), "graphs"]) mkdirSync(join(runless, sub), { recursive: true });
    writeFileSync(join(runless, "real", "raw", "map-s1.json"), JSON.stringify({ name: "map", runs: [] }));
    copyFileSync(join(ROOT, "fidelity", "quiet", "graphs", "map-s1.json"), join(runless, "graphs", "map-s1.json"));
    copyFileSync(join(ROOT, "fidelity", "quiet", "calibration.json"), join(runless, "calibration.json"));
    const listed = join(dir, "list.json");
    writeFileSync(listed, "[]");
    for (const [args, message] of [
      [[graphless], /no graphs\/map-s1\.json/],
      [[runless], /no runs in real\/raw of map-s1/],
      [["fidelity/quiet", "--calibration", listed], /calibration .*list\.json: expected a JSON object/],
      [[join(dir, "nowhere")], /no real\/raw folder/],
      [["fidelity/quiet", "--cases", "nope-s1"], /--cases: no raw runs of nope-s1/],
      [["fidelity/quiet", "--calibration", join(dir, "missing.json")], /cannot read calibration .*missing\.json/],
      [["fidelity/quiet", "--scheduler-decision", "-1"], /--scheduler-decision: expected seconds ≥ 0/],
      [["fidelity/quiet", "--disk-shared", "fidelity/quiet/calibration.json"], /--disk-shared .*: no rounds with both processes' disks busy/],
      [["fidelity/quiet", "--bogus"], /unknown option --bogus/],
      [["fidelity/quiet", "--load", "1.5"], /--load needs --cores/],
      [["fidelity/quiet", "--cores", "0"], /--cores: expected at least 1 core/],
      [["fidelity/quiet", "--calibration", "fidelity/quiet/specs/map.json"], /calibration .*map\.json: no network\.small_transfer_seconds_median/],
      [["fidelity/quiet", "--gc-scheduler"], /--gc-scheduler needs --gc/],
      [["fidelity/quiet", "--gc", "fidelity/quiet/calibration.json"], /--gc .*calibration\.json: expected gc_gaps\.py's output \(pooled\) or gc_probe\.py's \(graphs\)/],
      [["fidelity/quiet", "--gc", listed], /--gc .*list\.json: expected gc_gaps\.py's or gc_probe\.py's output/],
      [["fidelity/quiet", "--gc", join(dir, "missing.json")], /cannot read --gc .*missing\.json/],
    ] as const) {
      expectRefusal(makeProfile(...args), args.join(" "), message);
    }
  }, 60_000);
});
