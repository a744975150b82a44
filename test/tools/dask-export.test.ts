// tools/dask_to_spanwork.py against a real dask cluster: the exported table of a small graph
// replays in spanwork with the same tasks and dependencies dask reports, and the measured
// durations and sizes of its task stream.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { compileSpec, loadWorkloadFile, type TaskGraph } from "../../src/sim/index.js";
import { captureIo } from "../cli/fixtures.js";

/** Debian's python3 with python3-distributed (CI installs it in .ci/run); SPANWORK_PYTHON overrides. */
const PYTHON = process.env.SPANWORK_PYTHON ?? "/usr/bin/python3";
const ROUND_TRIP = fileURLToPath(new URL("./dask_round_trip.py", import.meta.url));

interface Row {
  key: string;
  prefix: string;
  duration: number;
  outputSize: number;
  dependencies: string[];
  output?: boolean;
}

let dir: string;

beforeAll(() => {
  const probe = spawnSync(PYTHON, ["-c", "import distributed"], { encoding: "utf8" });
  if (probe.status !== 0) {
    throw new Error(`${PYTHON} cannot import distributed: install it (apt-get install -y python3-distributed) or set SPANWORK_PYTHON; the importer test needs a real dask (${probe.stderr || probe.error?.message})`);
  }
  dir = mkdtempSync(join(tmpdir(), "spanwork-dask-"));
  // No __pycache__ next to tools/: it would end up in the package.
  const run = spawnSync(PYTHON, [ROUND_TRIP, dir], { encoding: "utf8", timeout: 120_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  if (run.status !== 0) throw new Error(`the dask side failed (status ${run.status}): ${run.stderr}`);
}, 150_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function dependencies(graph: TaskGraph): Record<string, string[]> {
  const result: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (let id = 0; id < graph.size; id++) {
    const deps: string[] = [];
    for (let e = graph.depStart[id]!; e < graph.depStart[id + 1]!; e++) deps.push(graph.keys[graph.deps[e]!]!);
    result[graph.keys[id]!] = deps.sort();
  }
  return result;
}

describe("tools/dask_to_spanwork.py", () => {
  it("exports a graph that spanwork compiles to the tasks and dependencies dask reports", () => {
    const truth = JSON.parse(readFileSync(join(dir, "truth.json"), "utf8")) as { dependencies: Record<string, string[]>; outputs: string[] };
    const spec = loadWorkloadFile(join(dir, "table.json"));
    const graph = compileSpec(spec, 1);
    expect(graph.size).toBe(Object.keys(truth.dependencies).length);
    expect(dependencies(graph)).toEqual(truth.dependencies);
    expect(graph.keys.filter((_, id) => graph.isOutput[id] === 1)).toEqual(truth.outputs);
    expect(new Set(graph.prefix)).toEqual(new Set(["load", "pair", "total"]));
    expect(spec.cluster).toMatchObject({ workers: 2, threads: 1 });
  });

  it("takes each task's compute time and output size from the task stream", () => {
    const rows = (JSON.parse(readFileSync(join(dir, "table.json"), "utf8")) as { taskTable: Row[] }).taskTable;
    const loads = rows.filter((row) => row.prefix === "load");
    expect(loads).toHaveLength(6);
    for (const row of loads) {
      const i = Number(/(\d+)\)$/.exec(row.key)![1]);
      // Each load sleeps 50 ms and returns 10,000 × (i + 1) bytes.
      expect(row.duration).toBeGreaterThanOrEqual(0.05);
      expect(row.duration).toBeLessThan(1);
      expect(row.outputSize).toBeGreaterThanOrEqual(10_000 * (i + 1));
      expect(row.outputSize).toBeLessThan(10_000 * (i + 1) + 1_000);
    }
    for (const row of rows.filter((entry) => entry.prefix === "pair")) expect(row.duration).toBeGreaterThanOrEqual(0.02);
  });

  it("gives the same table from its command line, from a pickled graph and task stream", () => {
    const library = JSON.parse(readFileSync(join(dir, "table.json"), "utf8")) as { taskTable: Row[] };
    const cli = JSON.parse(readFileSync(join(dir, "table-cli.json"), "utf8")) as { taskTable: Row[]; cluster: object; name: string };
    expect(cli.taskTable).toEqual(library.taskTable);
    expect(cli).toMatchObject({ name: "round-trip", cluster: { workers: 2, threads: 1 } });
  });

  it("replays on spanwork with twice the workers", async () => {
    const captured = captureIo({ cwd: dir });
    const code = await main(["run", "table.json", "--workers", "4", "--json", "-"], { io: captured.io });
    expect(code, captured.stderr()).toBe(0);
    const report = JSON.parse(captured.stdout()) as { workload: string; workers: number; tasks: { total: number; completed: number; lost: number }; makespan: number };
    expect(report).toMatchObject({ workload: "round-trip", workers: 4, tasks: { total: 10, completed: 10, lost: 0 } });
    // Three levels: a load (≥ 50 ms), a pair (≥ 20 ms), the total.
    expect(report.makespan).toBeGreaterThanOrEqual(0.07);
  });
});
