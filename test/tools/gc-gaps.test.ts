// fidelity/tools/gc_gaps.py finds where a dask process stood still in recorded runs: a span with
// none of a worker's tasks progressing (no task running, or only tasks past their prefix's median
// length), classified as one worker's own collection, all workers' own at a fresh worker's
// first-collection count, or the scheduler's. Synthetic runs, every stop placed by hand.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectRefusal, runTool, type ToolRun } from "./python-tool.js";

const dir = mkdtempSync(join(tmpdir(), "spanwork-gc-gaps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const gaps = (...args: string[]): ToolRun => runTool("gc_gaps.py", args);

interface Stop {
  /** After this round (both threads' 5 ms tasks) of the worker. */
  round: number;
  seconds: number;
  /** The round's tasks end late (a sleep waiting for the lock) instead of the next ones starting late. */
  late?: boolean;
}

/** One run: each worker's two threads run 5 ms tasks in rounds 0.5 ms apart; `stops[w]` hold worker w. */
function runOf(index: number, rounds: number, stops: Stop[][]): Record<string, unknown> {
  const records: Array<{ key: string; worker: number; start: number; end: number }> = [];
  stops.forEach((mine, worker) => {
    let t = 0;
    for (let round = 0; round < rounds; round++) {
      const stop = mine.find((s) => s.round === round);
      const end = t + 0.005 + (stop?.late === true ? stop.seconds : 0);
      for (let thread = 0; thread < 2; thread++) records.push({ key: `tiny-${records.length}`, worker, start: t, end });
      t = end + 0.0005 + (stop !== undefined && stop.late !== true ? stop.seconds : 0);
    }
  });
  return { run: index, tasks: records.length, tasks_per_worker: stops.map(() => 2 * rounds), makespan: Math.max(...records.map((r) => r.end)), transfer: { count: 0 }, task_records: records };
}

describe("fidelity/tools/gc_gaps.py", () => {
  it("one worker alone, both at the first-collection count, all at once elsewhere (the scheduler's), and late ends", () => {
    const raw = join(dir, "wide.json");
    writeFileSync(
      raw,
      JSON.stringify({
        name: "wide",
        runs: [
          runOf(0, 120, [[{ round: 30, seconds: 0.04 }], []]),
          runOf(1, 120, [
            [{ round: 30, seconds: 0.04 }, { round: 80, seconds: 0.06 }],
            [{ round: 30, seconds: 0.04 }, { round: 80, seconds: 0.06 }],
          ]),
          runOf(2, 120, [[], [{ round: 30, seconds: 0.04, late: true }]]),
        ],
      }),
    );
    const out = join(dir, "out.json");
    const run = gaps(raw, "--min-tasks", "100", "--json", out);
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { files: Array<{ runs: Array<{ alone: Array<Record<string, number | string>>; together: Array<Array<Record<string, number | string>>> }> }>; pooled: Record<string, Record<string, unknown>> };
    const [r0, r1, r2] = result.files[0]!.runs;
    // worker 0 alone after its 31st round: 62 tasks, a 40 ms stop
    expect(r0!.alone).toEqual([{ worker: 0, at: expect.closeTo(31 * 0.0055 - 0.0005, 6), tasks: 62, ms: 40.5, kind: "worker" }]);
    expect(r0!.together).toEqual([]);
    // both at 62 (the first-collection count): each its own; both at 162: the scheduler's
    expect(r1!.together.map((g) => g.map((s) => [s.worker, s.tasks, s.kind]))).toEqual([
      [[0, 62, "workers"], [1, 62, "workers"]],
      [[0, 162, "scheduler"], [1, 162, "scheduler"]],
    ]);
    // a round whose tasks end 40 ms late: the stop runs from their median length (+2 ms) to the next start
    expect(r2!.alone).toEqual([{ worker: 1, at: expect.closeTo(30 * 0.0055 + 0.007, 6), tasks: 60, ms: 38.5, kind: "worker" }]);
    const pooled = result.pooled;
    expect(pooled.first_collection_tasks).toBe(62);
    // the first stops: all four (60 is within 10 % of 62); two workers of the three runs had none
    expect(pooled.worker).toMatchObject({ stops: 4, first: { stops: 4, tasks_min: 60, tasks_max: 62 }, workers_without_first: 2 });
    // the scheduler's stop: all workers' tasks, the longest worker's stop
    expect(pooled.scheduler).toMatchObject({ stops: 1, tasks_median: 324, ms_median: 60.5, runs_with_one: 1 });
    // --json writes what it prints
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(result);
  });

  it("skips runs with too few tasks per worker, or with transfers", () => {
    const raw = join(dir, "small.json");
    const busy = { ...runOf(1, 120, [[], []]), transfer: { count: 3 } };
    writeFileSync(raw, JSON.stringify({ name: "small", runs: [runOf(0, 20, [[{ round: 5, seconds: 0.05 }], []]), busy] }));
    const result = JSON.parse(gaps(raw).stdout) as { files: Array<{ runs: unknown[]; skipped: Array<{ why: string }> }> };
    expect(result.files[0]!.runs).toEqual([]);
    expect(result.files[0]!.skipped.map((s) => s.why)).toEqual(["fewer than 200 tasks per worker", "3 transfers (a wait for data is a gap too; --with-transfers)"]);
  });

  it("bad input: one line naming the problem, exit 2", () => {
    const notJson = join(dir, "bad.json");
    writeFileSync(notJson, "{");
    const shapeless = join(dir, "shapeless.json");
    writeFileSync(shapeless, JSON.stringify({ runs: [{ task_records: [{ key: "a" }] }] }));
    for (const [args, message] of [
      [[], /the following arguments are required: raw/],
      [[join(dir, "missing.json")], /cannot read .*missing\.json/],
      [[notJson], /bad\.json is not JSON/],
      [["fidelity/quiet/calibration.json"], /expected the driver's raw runs \(an object with runs\[\]\)/],
      [[shapeless], /runs\[0\]\.task_records: expected a list of \{key, worker, start, end\}/],
      [[notJson, "--min-gap", "0"], /--min-gap: expected seconds > 0/],
      [[notJson, "--bogus"], /unrecognized arguments: --bogus/],
    ] as const) {
      expectRefusal(gaps(...args), args.join(" "), message);
    }
  });
});
