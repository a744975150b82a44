// Hostile and mistaken specs (issue 12, items 9-11): keys are data, sizes are bounded by the
// one table of limits, and every message names the real problem at its real path.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { LIMITS } from "../../src/sim/limits.js";
import { compileSpec, loadWorkloadFile, parseSize, simulate, SimulationError, SpecError, validateSpec, type SimInput } from "../../src/sim/index.js";
import { problems } from "./spec-problems.js";


const twoGroups = (deps: unknown) => ({ tasks: [{ prefix: "a", count: 2 }, { prefix: "b", dependsOn: { pattern: "explicit", deps } }] });

describe("prototype-named keys are ordinary keys", () => {
  it("an explicit entry named __proto__ is rejected like any key that is not a task of the group (JSON)", () => {
    const spec = JSON.parse('{"tasks":[{"prefix":"a","count":2},{"prefix":"b","dependsOn":{"pattern":"explicit","deps":{"__proto__":["a-0"]}}}]}') as unknown;
    expect(problems(spec)).toEqual(['tasks[1].dependsOn.deps.__proto__: "__proto__" is not a task of this group (use its index or its key)']);
  });

  it("… and from YAML", () => {
    const spec = parseYaml("tasks:\n  - { prefix: a, count: 2 }\n  - prefix: b\n    dependsOn: { pattern: explicit, deps: { __proto__: [a-0], constructor: [a-1] } }\n") as unknown;
    expect(problems(spec)).toEqual([
      'tasks[1].dependsOn.deps.__proto__: "__proto__" is not a task of this group (use its index or its key)',
      'tasks[1].dependsOn.deps.constructor: "constructor" is not a task of this group (use its index or its key)',
    ]);
  });

  it("a dependency named __proto__ or constructor is an unknown dependency", () => {
    expect(problems(twoGroups([["__proto__", "constructor"]]))).toEqual([
      'tasks[1].dependsOn.deps[0][0]: unknown dependency "__proto__"',
      'tasks[1].dependsOn.deps[0][1]: unknown dependency "constructor"',
    ]);
  });

  it("a __proto__ field in a spec object is an unknown field", () => {
    expect(problems(JSON.parse('{"tasks":[{"prefix":"a","__proto__":{"count":5}}]}'))).toEqual(['tasks[0]: Unrecognized key: "__proto__"']);
    expect(problems(JSON.parse('{"tasks":[{"prefix":"a"}],"cluster":{"__proto__":{"workers":5}}}'))).toEqual(['cluster: Unrecognized key: "__proto__"']);
  });

  it("a size unit named like an Object method is not a unit", () => {
    expect(parseSize("5 constructor")).toBeNull();
    expect(parseSize("5 valueOf")).toBeNull();
    expect(problems({ tasks: [{ prefix: "a", outputSize: "5 constructor" }] })).toEqual([
      'tasks[0].outputSize: cannot parse "5 constructor" as a size (examples: 64 KiB, 1.5GB, 200MB)',
    ]);
  });

  it("a workload named like an Object property is an unknown workload", async () => {
    for (const name of ["constructor", "__proto__", "toString"]) {
      await expect(simulate(name)).rejects.toThrow(`unknown workload "${name}"`);
      await expect(simulate(name)).rejects.toBeInstanceOf(SpecError);
    }
  });
});

describe("limits, one table for the spec, the options and the graph", () => {
  it("rejects a count beyond the task limit, before building anything", () => {
    expect(problems({ tasks: [{ prefix: "a", count: 1e12 }] })).toEqual(["tasks[0].count: expected at most 2,000,000 (the limit on tasks)"]);
    expect(problems({ tasks: [{ prefix: "a", count: 1_500_000 }, { prefix: "b", count: 1_500_000 }] })).toEqual([
      "tasks: 3,000,000 tasks in all, more than the limit of 2,000,000",
    ]);
  });

  it("rejects a spec whose patterns would make too many dependencies", () => {
    expect(problems({ tasks: [{ prefix: "a", count: 100_000 }, { prefix: "b", count: 100_000, dependsOn: { pattern: "all-to-all", on: "a" } }] })).toEqual([
      "tasks: about 10,000,000,000 dependencies in all, more than the limit of 20,000,000 (10,000,000,000 from tasks[1].dependsOn)",
    ]);
  });

  it("bounds the cluster like the options", async () => {
    expect(problems({ tasks: [{ prefix: "a" }], cluster: { workers: 100_000, threads: 5000 } })).toEqual([
      "cluster.workers: expected at most 10,000 workers",
      "cluster.threads: expected at most 1,024 threads",
    ]);
    await expect(simulate("map", { workers: LIMITS.workers + 1 })).rejects.toThrow("option workers must be at most 10,000");
    await expect(simulate("map", { threads: LIMITS.threads + 1 })).rejects.toThrow("option threads must be at most 1,024");
    await expect(simulate("map", { size: LIMITS.size + 1 })).rejects.toThrow("option size must be at most 1,000,000");
    await expect(simulate("map", { memoryLimit: 1e300 })).rejects.toThrow("option memoryLimit must be at most 1 PiB");
  });

  it("rejects absurd sizes", () => {
    expect(problems({ tasks: [{ prefix: "a", outputSize: 1e300 }] })).toEqual(["tasks[0].outputSize: expected at most 1 PiB (1,125,899,906,842,624 bytes), got 1e+300"]);
    expect(problems({ tasks: [{ prefix: "a", outputSize: { dist: "normal", mean: "2 TiB", std: 1e20 } }] })).toEqual([
      "tasks[0].outputSize.std: expected at most 1 PiB (1,125,899,906,842,624 bytes), got 100000000000000000000",
    ]);
    expect(problems({ tasks: [{ prefix: "a" }], cluster: { memoryLimit: 1e18, bandwidth: "2000 TB" } })).toEqual([
      "cluster.memoryLimit: expected at most 1 PiB (1,125,899,906,842,624 bytes), got 1000000000000000000",
      'cluster.bandwidth: expected at most 1 PiB (1,125,899,906,842,624 bytes), got "2000 TB"',
    ]);
  });

  it("sizes every built-in within the task limit at the size limit", () => {
    expect(LIMITS.size * 1.25).toBeLessThanOrEqual(LIMITS.tasks);
  });
});

describe("messages name the real problem at its real path", () => {
  it("a bad size string in outputSize is a bad size, not a bad dist", () => {
    expect(problems({ tasks: [{ prefix: "a", outputSize: "lots" }] })).toEqual(['tasks[0].outputSize: cannot parse "lots" as a size (examples: 64 KiB, 1.5GB, 200MB)']);
    expect(problems({ tasks: [{ prefix: "a", outputSize: { dist: "uniform", low: "1 MB", high: "2 XB" } }] })).toEqual([
      'tasks[0].outputSize.high: cannot parse "2 XB" as a size (examples: 64 KiB, 1.5GB, 200MB)',
    ]);
    expect(problems({ tasks: [{ prefix: "a", duration: "fast" }] })[0]).toMatch(/^tasks\[0\]\.duration: expected a number of seconds or a distribution/);
  });

  it("a bad memoryLimit says which size did not parse", () => {
    expect(problems({ tasks: [{ prefix: "a" }], cluster: { memoryLimit: "12XB" } })).toEqual([
      'cluster.memoryLimit: cannot parse "12XB" as a size (examples: 64 KiB, 1.5GB, 200MB)',
    ]);
    expect(problems({ tasks: [{ prefix: "a" }], cluster: { memoryLimit: true } })).toEqual(['cluster.memoryLimit: expected a number of bytes or a size such as "64 KiB"']);
    expect(validateSpec({ tasks: [{ prefix: "a" }], cluster: { memoryLimit: null } }).cluster?.memoryLimit).toBeNull();
  });

  it("an explicit key containing '.' is named whole", () => {
    expect(problems(twoGroups({ "b.9": ["a-0"] }))).toEqual(['tasks[1].dependsOn.deps["b.9"]: "b.9" is not a task of this group (use its index or its key)']);
  });

  it("control characters in keys are escaped in messages", () => {
    const [message] = problems(twoGroups([["a-0\u0000\u001b[31mred"]]));
    expect(message).toBe('tasks[1].dependsOn.deps[0][0]: unknown dependency "a-0\\u0000\\u001b[31mred"');
    const [unknownKey] = problems({ tasks: [{ prefix: "a", "x\u001b]0;title\u0007": 1 }] });
    expect(unknownKey).toBe('tasks[0]: Unrecognized key: "x\\u001b]0;title\\u0007"');
  });

  it("reports field errors and reference errors at once", () => {
    expect(
      problems({
        tasks: [
          { prefix: "load", count: 4, duration: { dist: "normal", mean: -1, std: 0 } },
          { prefix: "clean", count: "four" },
          { prefix: "total", dependsOn: [{ pattern: "one-to-one", on: "lod" }, { pattern: "reduce", on: "load", fanIn: 2 }, { pattern: "explicit", deps: [["load-9"]] }] },
        ],
      }),
    ).toEqual([
      "tasks[0].duration.mean: expected a positive number",
      "tasks[1].count: expected an integer",
      'tasks[2].dependsOn[0].on: unknown task prefix "lod" (known: load, clean, total)',
      'tasks[2].dependsOn[1]: reduce of 4 "load" tasks with fanIn 2 needs count 2, not 1',
      'tasks[2].dependsOn[2].deps[0][0]: unknown dependency "load-9"',
    ]);
    // A reference to a group whose prefix is broken is not called unknown.
    expect(problems({ tasks: [{ prefix: "lo ad" }, { prefix: "b", dependsOn: { pattern: "one-to-one", on: "load" } }] })).toEqual([
      "tasks[0].prefix: expected a prefix of letters and underscores, words joined by '-' (e.g. load-csv)",
    ]);
  });
});

describe("a validated spec validates again to itself", () => {
  it("keeps explicit dependencies given as an object (a Map once validated)", async () => {
    const spec = validateSpec(twoGroups({ "b-0": ["a-0", "a-1"] }));
    expect(validateSpec(spec)).toEqual(spec);
    const graph = compileSpec(validateSpec(spec), 1);
    const id = graph.idOf("b-0")!;
    expect(Array.from(graph.deps.subarray(graph.depStart[id]!, graph.depStart[id + 1]!), (d) => graph.keys[d])).toEqual(["a-0", "a-1"]);
    const { report } = await simulate(spec, { workers: 1 });
    const start = (key: string): number => report.taskRecords.find((r) => r.key === key)!.start;
    expect(start("b-0")).toBeGreaterThan(start("a-1"));
  });
});

describe("spec files and the simulate() signature", () => {
  const dir = mkdtempSync(join(tmpdir(), "spanwork-spec-input-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("accepts a UTF-8 byte-order mark in JSON and YAML", () => {
    for (const [file, text] of [
      ["bom.json", '\ufeff{"tasks":[{"prefix":"a","count":3}]}'],
      ["bom.yaml", "\ufefftasks:\n  - { prefix: a, count: 3 }\n"],
    ] as const) {
      writeFileSync(join(dir, file), text);
      expect(loadWorkloadFile(join(dir, file)).tasks[0]!.count).toBe(3);
    }
  });

  it("simulate() takes a plain spec without faults, as documented", async () => {
    const plain = { name: "plain", tasks: [{ prefix: "a", count: 3 }] };
    expectTypeOf(plain).toExtend<SimInput>();
    const { report } = await simulate(plain, { workers: 1 });
    expect(report.complete).toBe(true);
    expect(report.tasks.total).toBe(3);
  });

  it("simulate() rejects a size for a spec, which has its own counts", async () => {
    await expect(simulate({ tasks: [{ prefix: "a" }] }, { size: 10 })).rejects.toThrow(SimulationError);
    await expect(simulate({ tasks: [{ prefix: "a" }] }, { size: 10 })).rejects.toThrow("option size sets the size of a built-in workload");
  });

  it("names options.faults apart from the spec's faults", async () => {
    await expect(
      simulate({ tasks: [{ prefix: "a" }], faults: [{ kind: "busy", probability: 0.1, worker: 9 }] }, { workers: 2, faults: [{ kind: "worker-death", worker: 7, at: 1 }] }),
    ).rejects.toThrow(/^2 problems:\n {2}faults\[0\]\.worker: no worker 9 in this cluster .*\n {2}options\.faults\[0\]\.worker: no worker 7/);
  });
});
