import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileSpec, loadWorkloadFile, simulate, validateSpec, type TaskGraph } from "../../src/sim/index.js";
import { problems } from "./spec-problems.js";

function dependencies(graph: TaskGraph, key: string): string[] {
  const id = graph.idOf(key)!;
  const keys: string[] = [];
  for (let e = graph.depStart[id]!; e < graph.depStart[id + 1]!; e++) keys.push(graph.keys[graph.deps[e]!]!);
  return keys.sort();
}

const DIAMOND = {
  name: "diamond",
  taskTable: [
    { key: "('load-8f1c', 0)", duration: 0.5, outputSize: "2 MB" },
    { key: "('load-8f1c', 1)", duration: 0.25, outputSize: 1_000_000 },
    { key: "add-1f2e3d", prefix: "add", duration: 0.125, outputSize: 8, dependencies: ["('load-8f1c', 0)", "('load-8f1c', 1)"], cpu: 0.5 },
    { key: "__proto__", duration: 0, outputSize: 0, dependencies: ["add-1f2e3d"] },
  ],
};

describe("per-task table specs", () => {
  const dir = mkdtempSync(join(tmpdir(), "spanwork-task-table-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("compiles every row into a task with its own duration, size, prefix and dependencies", () => {
    const graph = compileSpec(validateSpec(DIAMOND), 1);
    expect(graph.size).toBe(4);
    expect([...graph.keys]).toEqual(DIAMOND.taskTable.map((row) => row.key));
    // dask's key_split names a prefix that is not given (and strips the underscores of "__proto__").
    expect([...graph.prefix]).toEqual(["load", "load", "add", "proto"]);
    expect([...graph.duration]).toEqual([0.5, 0.25, 0.125, 0]);
    expect([...graph.nbytes]).toEqual([2e6, 1e6, 8, 0]);
    expect([...graph.cpuShare]).toEqual([1, 1, 0.5, 1]);
    expect(dependencies(graph, "add-1f2e3d")).toEqual(["('load-8f1c', 0)", "('load-8f1c', 1)"]);
    expect(dependencies(graph, "__proto__")).toEqual(["add-1f2e3d"]);
    expect([...graph.isOutput]).toEqual([0, 0, 0, 1]);
  });

  it("keeps the rows marked output, and only those, when any row says", () => {
    const rows = DIAMOND.taskTable.map((row, i) => ({ ...row, output: i === 2 }));
    expect([...compileSpec(validateSpec({ taskTable: rows }), 1).isOutput]).toEqual([0, 0, 1, 0]);
    expect([...compileSpec(validateSpec({ ...DIAMOND, outputs: ["load"] }), 1).isOutput]).toEqual([1, 1, 0, 0]);
  });

  it("is the same graph whatever the seed: the table is measured, not drawn", () => {
    expect(validateSpec(validateSpec(DIAMOND))).toEqual(validateSpec(DIAMOND));
    const a = compileSpec(validateSpec(DIAMOND), 1);
    const b = compileSpec(validateSpec(DIAMOND), 99);
    expect([...a.duration]).toEqual([...b.duration]);
    expect([...a.nbytes]).toEqual([...b.nbytes]);
  });

  it("names every problem with its path", () => {
    expect(
      problems({
        taskTable: [
          { key: "a", duration: -1, outputSize: 1 },
          { key: "b", duration: 1, outputSize: "lots" },
          { key: "", duration: 1, outputSize: 1 },
          { key: "c", duration: 1, outputSize: 1, dependencies: "a" },
          { key: "d", duration: 1, outputSize: 1, typo: true },
        ],
      }),
    ).toEqual([
      "taskTable[0].duration: expected seconds ≥ 0",
      'taskTable[1].outputSize: cannot parse "lots" as a size (examples: 64 KiB, 1.5GB, 200MB)',
      "taskTable[2].key: expected a non-empty task key",
      "taskTable[3].dependencies: expected a list of task keys",
      'taskTable[4]: Unrecognized key: "typo"',
    ]);
    expect(
      problems({
        taskTable: [
          { key: "a", duration: 1, outputSize: 1 },
          { key: "b", duration: 1, outputSize: 1, dependencies: ["a", "zz", "b"] },
          { key: "a", duration: 1, outputSize: 1 },
        ],
        outputs: ["nothing"],
      }),
    ).toEqual([
      'taskTable[2].key: duplicate task key "a" (also taskTable[0])',
      'taskTable[1].dependencies[1]: unknown task key "zz"',
      'taskTable[1].dependencies[2]: task "b" cannot depend on itself',
      'outputs[0]: no task of prefix "nothing" in the taskTable',
    ]);
    expect(problems({ taskTable: [] })).toEqual(["taskTable: expected at least one task"]);
    expect(problems({ taskTable: [{ key: "a", duration: 1, outputSize: 1 }], tasks: [{ prefix: "a" }] })).toEqual([
      "taskTable: a spec has either tasks (task groups) or taskTable (one row per task), not both",
    ]);
  });

  it("rejects a dependency cycle, naming its keys", () => {
    const found = problems({
      taskTable: [
        { key: "x", duration: 1, outputSize: 1, dependencies: ["z"] },
        { key: "y", duration: 1, outputSize: 1, dependencies: ["x"] },
        { key: "z", duration: 1, outputSize: 1, dependencies: ["y"] },
      ],
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^taskTable: dependency cycle.*x.*/);
  });

  it("loads from a JSON file, takes the cluster and faults as any spec, and simulates to completion", async () => {
    const path = join(dir, "diamond.json");
    writeFileSync(path, JSON.stringify({ ...DIAMOND, cluster: { workers: 2, threads: 1 }, faults: [{ kind: "busy", probability: 0.1 }] }));
    const spec = loadWorkloadFile(path);
    expect(spec.taskTable).toHaveLength(4);
    const { report } = await simulate(spec, { seed: 3 });
    expect(report).toMatchObject({ workload: "diamond", workers: 2, complete: true, tasks: { total: 4, completed: 4, lost: 0 } });
    // The two loads run in parallel on the two workers, then add, then the last task.
    expect(report.makespan).toBeCloseTo(0.5 + 0.125, 1);
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "taskTable:\n  - { key: a, duration: 1, outputSize: 1, dependencies: [b] }\n");
    expect(() => loadWorkloadFile(bad)).toThrow(`${bad}: taskTable[0].dependencies[0]: unknown task key "b"`);
  });
});
