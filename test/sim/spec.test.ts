import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { problems } from "./spec-problems.js";
import { compileSpec, loadWorkloadFile, SpecError, validateSpec } from "../../src/sim/index.js";


describe("validateSpec", () => {
  it("fills defaults", () => {
    const spec = validateSpec({ tasks: [{ prefix: "load" }] });
    expect(spec.tasks[0]).toEqual({
      prefix: "load",
      count: 1,
      duration: { dist: "constant", value: 0.1 },
      outputSize: { dist: "constant", value: 1_000_000 },
      cpu: 1,
      failureProbability: 0,
      dependsOn: { pattern: "none" },
    });
    expect(spec.faults).toEqual([]);
  });

  it("accepts bare numbers and size strings", () => {
    const spec = validateSpec({ tasks: [{ prefix: "a", duration: 2, outputSize: "64 KiB" }] });
    expect(spec.tasks[0]!.duration).toEqual({ dist: "constant", value: 2 });
    expect(spec.tasks[0]!.outputSize).toEqual({ dist: "constant", value: 65536 });
    const dist = validateSpec({ tasks: [{ prefix: "a", outputSize: { dist: "uniform", low: "1MB", high: "2 MB" } }] });
    expect(dist.tasks[0]!.outputSize).toEqual({ dist: "uniform", low: 1e6, high: 2e6 });
  });

  it("names the path of a bad field", () => {
    expect(problems({ tasks: [{ prefix: "a" }, { prefix: "b" }, { prefix: "c", duration: { dist: "normal", mean: -1, std: 0 } }] })).toEqual([
      "tasks[2].duration.mean: expected a positive number",
    ]);
    expect(problems({ tasks: [{ prefix: "a", count: 1.5 }] })).toEqual(["tasks[0].count: expected an integer"]);
    expect(problems({ tasks: [{ prefix: "a", cpu: 2 }] })).toEqual(["tasks[0].cpu: expected a probability in [0, 1]"]);
    expect(problems({ tasks: [{ prefix: "a", outputSize: "lots" }] })[0]).toMatch(/^tasks\[0\]\.outputSize/);
    expect(problems({ tasks: [{ prefix: "a", duration: { dist: "gamma", mean: 1 } }] })[0]).toMatch(/^tasks\[0\]\.duration\.dist: expected dist to be one of/);
    expect(problems({ tasks: [{ prefix: "a", typo: 1 }] })[0]).toMatch(/^tasks\[0\]: Unrecognized key.*typo/);
    expect(problems({ tasks: [] })).toEqual(["tasks: expected at least one task group"]);
    expect(problems({})).toEqual(["tasks: expected a list of task groups"]);
    expect(problems({ tasks: [{ prefix: "a-1" }] })[0]).toMatch(/^tasks\[0\]\.prefix: expected a prefix/);
    expect(problems({ tasks: [{ prefix: "a" }], faults: [{ kind: "worker-death", worker: 0, at: -1 }] })).toEqual([
      "faults[0].at: expected a number ≥ 0",
    ]);
    expect(problems({ tasks: [{ prefix: "a", duration: { dist: "uniform", low: 2, high: 1 } }] })).toEqual([
      "tasks[0].duration.high: expected high ≥ low",
    ]);
  });

  it("rejects unknown prefixes and mismatched counts, naming them", () => {
    expect(problems({ tasks: [{ prefix: "a" }, { prefix: "b", dependsOn: { pattern: "one-to-one", on: "zzz" } }] })).toEqual([
      'tasks[1].dependsOn.on: unknown task prefix "zzz" (known: a, b)',
    ]);
    expect(problems({ tasks: [{ prefix: "a", count: 3 }, { prefix: "b", count: 2, dependsOn: { pattern: "one-to-one", on: "a" } }] })).toEqual([
      'tasks[1].dependsOn: one-to-one needs equal counts, but "b" has 2 and "a" has 3',
    ]);
    expect(problems({ tasks: [{ prefix: "a", count: 10 }, { prefix: "b", count: 2, dependsOn: { pattern: "reduce", on: "a", fanIn: 4 } }] })).toEqual([
      'tasks[1].dependsOn: reduce of 10 "a" tasks with fanIn 4 needs count 3, not 2',
    ]);
    expect(problems({ tasks: [{ prefix: "a" }, { prefix: "a" }] })).toEqual(['tasks[1].prefix: duplicate prefix "a"']);
    expect(problems({ tasks: [{ prefix: "a" }], outputs: ["b"] })).toEqual(['outputs[0]: unknown task prefix "b"']);
  });

  it("rejects cycles between groups and between keys, naming them", () => {
    expect(
      problems({
        tasks: [
          { prefix: "a", dependsOn: { pattern: "one-to-one", on: "b" } },
          { prefix: "b", dependsOn: { pattern: "all-to-all", on: "a" } },
        ],
      }),
    ).toEqual(["tasks: dependency cycle between task groups: a → b → a"]);
    expect(
      problems({
        tasks: [{ prefix: "x", count: 3, dependsOn: { pattern: "explicit", deps: [["x-2"], ["x-0"], ["x-1"]] } }],
      }),
    ).toEqual(["tasks: dependency cycle (a → b: a needs b): x-0 → x-2 → x-1 → x-0"]);
  });

  it("rejects unknown explicit dependencies with their path", () => {
    expect(problems({ tasks: [{ prefix: "a", count: 2 }, { prefix: "b", dependsOn: { pattern: "explicit", deps: [["a-0", "a-7"]] } }] })).toEqual([
      'tasks[1].dependsOn.deps[0][1]: unknown dependency "a-7"',
    ]);
    expect(problems({ tasks: [{ prefix: "a" }, { prefix: "b", dependsOn: { pattern: "explicit", deps: { "b-4": ["a-0"] } } }] })[0]).toMatch(
      /^tasks\[1\]\.dependsOn\.deps\.b-4: "b-4" is not a task of this group/,
    );
  });
});

describe("compileSpec", () => {
  it("wires every dependency pattern", () => {
    const graph = compileSpec(
      validateSpec({
        tasks: [
          { prefix: "a", count: 4 },
          { prefix: "b", count: 4, dependsOn: { pattern: "one-to-one", on: "a" } },
          { prefix: "c", count: 2, dependsOn: { pattern: "reduce", on: "b", fanIn: 2 } },
          { prefix: "d", count: 1, dependsOn: [{ pattern: "all-to-all", on: "c" }, { pattern: "explicit", deps: [["a-3"]] }] },
        ],
      }),
      7,
    );
    const depsOf = (key: string): string[] => {
      const id = graph.idOf(key)!;
      return Array.from(graph.deps.subarray(graph.depStart[id]!, graph.depStart[id + 1]!), (d) => graph.keys[d]!);
    };
    expect(depsOf("b-2")).toEqual(["a-2"]);
    expect(depsOf("c-1")).toEqual(["b-2", "b-3"]);
    expect(depsOf("d-0")).toEqual(["a-3", "c-0", "c-1"]);
    expect(Array.from(graph.isOutput)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(graph.prefix[graph.idOf("c-1")!]).toBe("c");
  });

  it("draws random dependencies and durations from the seed", () => {
    const spec = validateSpec({
      tasks: [
        { prefix: "a", count: 50, duration: { dist: "exponential", mean: 1 } },
        { prefix: "b", count: 50, dependsOn: { pattern: "random", on: "a", p: 0.2 } },
        { prefix: "c", count: 50, dependsOn: { pattern: "random", on: "c", p: 0.1 } },
      ],
    });
    const one = compileSpec(spec, 3);
    const two = compileSpec(spec, 3);
    const other = compileSpec(spec, 4);
    expect(Array.from(one.deps)).toEqual(Array.from(two.deps));
    expect(Array.from(one.duration)).toEqual(Array.from(two.duration));
    expect(Array.from(one.deps)).not.toEqual(Array.from(other.deps));
    // Self-random links each task only to earlier ones of its group.
    for (let i = 0; i < 50; i++) {
      const id = one.idOf(`c-${i}`)!;
      for (let e = one.depStart[id]!; e < one.depStart[id + 1]!; e++) expect(one.deps[e]!).toBeLessThan(id);
    }
    const edges = one.depStart[one.idOf("b-49")! + 1]! - one.depStart[one.idOf("b-0")!]!;
    expect(edges).toBeGreaterThan(250);
    expect(edges).toBeLessThan(750);
  });
});

describe("loadWorkloadFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "spanwork-spec-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads YAML and JSON, naming the file in errors", () => {
    const yaml = join(dir, "ok.yaml");
    writeFileSync(yaml, "tasks:\n  - prefix: load\n    count: 3\n    duration: { dist: uniform, low: 1, high: 2 }\n");
    const spec = loadWorkloadFile(yaml);
    expect(spec.name).toBe("ok");
    expect(spec.tasks[0]!.count).toBe(3);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ tasks: [{ prefix: "load", count: -2 }] }));
    expect(() => loadWorkloadFile(bad)).toThrow(`${bad}: tasks[0].count: expected a positive integer`);
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, "tasks: [\n");
    expect(() => loadWorkloadFile(broken)).toThrow(/broken\.yaml: not valid YAML/);
    expect(() => loadWorkloadFile(join(dir, "missing.yaml"))).toThrow(/missing\.yaml: cannot read the file \(ENOENT\)/);
  });

  it("loads the example workloads of the repository", () => {
    for (const file of ["etl.yaml", "faulty-shuffle.json"]) {
      const spec = loadWorkloadFile(join(import.meta.dirname, "../../workloads", file));
      expect(() => compileSpec(spec, 1)).not.toThrow();
    }
  });
});
