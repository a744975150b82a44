// fidelity/tools/overrun_load.py: the competition a case met, read from how often its tasks'
// sleeps woke late, on the case's own line through a quiet and a known-competition calibration.
// Synthetic sets with one case, so every fraction and estimate is known by hand.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectRefusal, runTool } from "./python-tool.js";

const PYTHON = process.env.SPANWORK_PYTHON ?? "/usr/bin/python3";
const dir = mkdtempSync(join(tmpdir(), "spanwork-overrun-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Transfer {
  from: string;
  to: string;
  start: number;
  duration: number;
  bytes: number;
  keys: number;
}

/** A run of 10 tasks of 10 ms on worker 0, one after another: the first `late` of them 3 ms late. */
function run(late: number, extra: { key: string; worker: number; start: number; end: number }[] = [], transfers: Transfer[] = []) {
  const records = Array.from({ length: 10 }, (_, i) => ({ key: `t-${i}`, worker: 0, start: i * 0.02, end: i * 0.02 + 0.01 + (i < late ? 0.003 : 0.0001) }));
  return { run: 0, makespan: 0.2, task_records: [...records, ...extra], transfers, spill: { count_read: 0 } };
}

function graph(extraKeys: string[] = []) {
  return { tasks: [...Array.from({ length: 10 }, (_, i) => `t-${i}`), ...extraKeys].map((key) => ({ key, duration: 0.01, deps: [], nbytes: 0 })) };
}

/** A set with case `c` (c-s1.json in real/raw and graphs), its runs as given, and probe lines. */
function set(name: string, runs: ReturnType<typeof run>[], shares: number[] = [], extraKeys: string[] = []): string {
  const path = join(dir, name);
  for (const sub of ["graphs", join("real", "raw")]) mkdirSync(join(path, sub), { recursive: true });
  writeFileSync(join(path, "real", "raw", "c-s1.json"), JSON.stringify({ name: "c", runs }));
  writeFileSync(join(path, "graphs", "c-s1.json"), JSON.stringify(graph(extraKeys)));
  const lines = shares.map((s, i) => `probe ${i % 2 === 0 ? "before" : "after"} c:1: ${JSON.stringify({ at: "00:00:00", busy_share: s })}`);
  writeFileSync(join(path, "log.txt"), lines.join("\n") + "\n");
  return path;
}

interface Estimates {
  median: number;
  sets: Record<string, { cases: Record<string, { others: number; low: number; high: number; fraction: number }>; probes?: Record<string, number> }>;
}

function estimate(args: string[]): Estimates {
  const out = join(dir, `out-${args.length}-${Math.random().toString(36).slice(2)}.json`);
  const child = runTool("overrun_load.py", [...args, "--json", out], PYTHON);
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(readFileSync(out, "utf8"));
}

describe("fidelity/tools/overrun_load.py", () => {
  // quiet: 1 of 10 late; known: 5 of 10 late beside probes that read 2/3 and 1/2 of the cores
  // (others 2 and 3: mean 2.5); so others = 2.5 * (f - 0.1) / 0.4
  const zero = set("zero", [run(1), run(1)]);
  const known = set("known", [run(5), run(5), run(5)], [2 / 3, 1 / 2]);

  it("reads a case's others on the line through its quiet and known runs, each run giving the range", () => {
    const target = set("target", [run(2), run(3), run(4)]);
    const result = estimate(["--zero", zero, "--known", known, target]);
    const c = result.sets[target]!.cases.c!;
    expect(c.fraction).toBeCloseTo(0.3, 9);
    expect(c.others).toBeCloseTo(1.25, 9);
    expect(c.low).toBeCloseTo(0.625, 9);
    expect(c.high).toBeCloseTo(1.875, 9);
    expect(result.median).toBeCloseTo(1.25, 9);
  });

  it("counts a wake late only past --over: the 3 ms wakes are on time at 4 ms, and the case then has no line", () => {
    const target = set("target-over", [run(3)]);
    expect(estimate(["--zero", zero, "--known", known, "--over", "4", target]).sets[target]!.cases).toEqual({});
  });

  it("leaves out the tasks that ended while their worker received bytes (the deserialisation holds the GIL)", () => {
    // a transfer into worker 1 over [0.3, 0.8] s, after worker 0's tasks; two late tasks of worker 1
    // end inside it, and a task that waited for it starts right after (which tells the tool the
    // receiver's address is worker 1)
    const into1: Transfer = { from: "tcp://a", to: "tcp://b", start: 0.3, duration: 0.5, bytes: 1e6, keys: 1 };
    const onWorker1 = [
      { key: "x-0", worker: 1, start: 0.4, end: 0.415 },
      { key: "x-1", worker: 1, start: 0.5, end: 0.515 },
      { key: "x-2", worker: 1, start: 0.81, end: 0.8201 },
    ];
    const target = set("target-recv", [run(2, onWorker1, [into1])], [], ["x-0", "x-1", "x-2"]);
    const c = estimate(["--zero", zero, "--known", known, target]).sets[target]!.cases.c!;
    // 2 late of the 11 tasks classed `none` (t-0..t-9 and x-2); x-0 and x-1 are `recv-wire`
    expect(c.fraction).toBeCloseTo(2 / 11, 9);
  });

  it("with --runs, prints each run's makespan, late fraction and mean overrun, and the quiet set's fraction for the case", () => {
    const target = set("target-runs", [run(2), run(4)]);
    const child = runTool("overrun_load.py", ["--runs", "--zero", zero, target], PYTHON);
    expect(child.status, child.stderr).toBe(0);
    const row = child.stdout.split("\n").find((line) => line.includes("c-s1"));
    // run(2): 2 tasks 3 ms late, 8 of 0.1 ms: mean 0.68 ms; run(4): 1.26 ms
    expect(row).toMatch(/0\.200s 0\.20 0\.68ms {2}0\.200s 0\.40 1\.26ms {2}\(quiet 0\.10\)$/);
  });

  it("refuses a target that is not a fidelity set, or a raw file without its graph, in one line", () => {
    expectRefusal(runTool("overrun_load.py", ["--runs", "--zero", zero, join(dir, "nowhere")], PYTHON), "no set", /^overrun_load\.py: .*nowhere: no real\/raw/);
    const lonely = set("lonely", [run(1)]);
    rmSync(join(lonely, "graphs", "c-s1.json"));
    expectRefusal(runTool("overrun_load.py", ["--runs", "--zero", zero, lonely], PYTHON), "no graph", /^overrun_load\.py: cannot read .*c-s1\.json/);
    expectRefusal(runTool("overrun_load.py", ["--run", zero], PYTHON), "abbreviated flag", /^overrun_load\.py: /);
  });

  it("with --check, estimates a probed set's case beside its own probes", () => {
    const check = set("check", [run(3)], [0.8, 0.8]);
    const result = estimate(["--zero", zero, "--known", known, "--check", check, zero]);
    expect(result.sets[check]!.cases.c!.others).toBeCloseTo(1.25, 9);
    expect(result.sets[check]!.probes).toEqual({ c: expect.closeTo(1.5, 9) as number });
    expect(result.sets[zero]!.cases.c!.others).toBeCloseTo(0, 9);
  });
});
