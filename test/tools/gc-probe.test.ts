// fidelity/tools/gc_probe.py's summary of a process's collections: only those inside the run
// (between its first task start and last task end) count, and the long ones (1 ms or more) are
// listed with their generation, offset into the run and length. Synthetic pauses, no cluster.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Debian's python3 with python3-distributed (the tool imports it; CI installs it in .ci/run). */
const PYTHON = process.env.SPANWORK_PYTHON ?? "/usr/bin/python3";

function summary(pauses: [number, number, number][], first?: number, last?: number): Record<string, unknown> {
  const code = [
    "import json, sys",
    `sys.path.insert(0, ${JSON.stringify(join(ROOT, "fidelity", "tools"))})`,
    "import gc_probe",
    `args = json.loads(${JSON.stringify(JSON.stringify([pauses, first ?? null, last ?? null]))})`,
    "print(json.dumps(gc_probe.summary(args[0]) if args[1] is None else gc_probe.summary(*args)))",
  ].join("\n");
  const run = spawnSync(PYTHON, ["-c", code], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe("fidelity/tools/gc_probe.py", () => {
  const pauses: [number, number, number][] = [
    [2, 99.0, 0.05], // a full collection before the run (the graph's submission)
    [0, 100.2, 0.0002],
    [1, 100.5, 0.0015],
    [2, 103.1, 0.041],
    [0, 104.0, 0.0003], // after the last task ended
  ];

  it("counts every collection by generation without a run's bounds", () => {
    const s = summary(pauses);
    expect(s.collections).toBe(5);
    expect(s.by_generation).toEqual({ "0": 2, "1": 1, "2": 2 });
    expect(s.pause_ms_max).toBe(50);
    expect(s.pauses_1ms_or_more).toBe(3);
  });

  it("inside the run: only the collections between its first start and last end, the long ones with their offset", () => {
    const s = summary(pauses, 100, 103.5);
    expect(s.collections).toBe(3);
    expect(s.pause_ms_total).toBeCloseTo(42.7, 6);
    expect(s.long).toEqual([
      [1, 0.5, 1.5],
      [2, 3.1, 41],
    ]);
  });
});
