import { describe, expect, it } from "vitest";
import { builtInWorkloads, shuffleShape, simulate, SpecError, validateSpec } from "../../src/sim/index.js";

describe("built-in workloads", () => {
  it("are the ones the CLI lists, each with a one-line description", () => {
    expect(Object.keys(builtInWorkloads)).toEqual(["map", "tree-reduce", "shuffle", "chain", "random-dag", "spill-pressure"]);
    for (const workload of Object.values(builtInWorkloads)) {
      expect(workload.description).not.toMatch(/\n/);
      expect(workload.defaultSize).toBeGreaterThan(0);
    }
  });

  it("each runs to completion at a small size", async () => {
    for (const name of Object.keys(builtInWorkloads)) {
      const { report } = await simulate(name, { size: 24, workers: 3, validate: true });
      expect(report.workload).toBe(name);
      expect(report.complete).toBe(true);
      expect(report.tasks.completed).toBe(report.tasks.total);
      expect(report.makespan).toBeGreaterThan(0);
      expect(report.tasksPerSecond).toBeCloseTo(report.tasks.completed / report.makespan, 9);
    }
  });

  it("size the tree-reduce and the shuffle as documented", () => {
    const tree = builtInWorkloads["tree-reduce"]!.generate({ size: 64, seed: 1, workers: 4, threads: 2 });
    expect(tree.graph.size).toBe(64 + 8 + 1);
    expect(shuffleShape(100_000, 8)).toEqual({ partitions: 2702, stages: 4 });
    const shuffle = builtInWorkloads.shuffle!.generate({ size: 2000, seed: 1, workers: 4, threads: 2 });
    const { partitions, stages } = shuffleShape(2000, 8);
    expect(shuffle.graph.size).toBeLessThanOrEqual(partitions * (1 + stages * 9));
    expect(shuffle.cluster.memoryLimit).toBeGreaterThan(0);
  });

  it("names the built-ins when the workload is unknown", async () => {
    await expect(simulate("nope")).rejects.toThrow(SpecError);
    await expect(simulate("nope")).rejects.toThrow('unknown workload "nope" (built-in: map, tree-reduce, shuffle, chain, random-dag, spill-pressure)');
  });

  it("runs a spec object, with its cluster defaults and faults, and keeps span records on request", async () => {
    const spec = validateSpec({
      name: "tiny",
      tasks: [
        { prefix: "load", count: 6, duration: 0.5, outputSize: "10 MB" },
        { prefix: "sum", count: 1, duration: 0.1, dependsOn: { pattern: "all-to-all", on: "load" } },
      ],
      cluster: { workers: 2, threads: 1, network: "latency-bandwidth" },
      faults: [{ kind: "busy", probability: 0.2 }],
    });
    const { report, spanRecords } = await simulate(spec, { collectSpans: true });
    expect(report.workload).toBe("tiny");
    expect([report.workers, report.threadsPerWorker, report.network]).toEqual([2, 1, "latency-bandwidth"]);
    expect(report.complete).toBe(true);
    expect(spanRecords.some(({ record }) => record.name[0] === "execute")).toBe(true);
    expect(spanRecords.some(({ record }) => record.name[0] === "gather-dep")).toBe(true);
    expect((await simulate(spec)).spanRecords).toEqual([]);
  });

  it("keepOutputs: false releases the results as they finish", async () => {
    const kept = await simulate("map", { size: 40, workers: 2 });
    const released = await simulate("map", { size: 40, workers: 2, keepOutputs: false });
    expect(kept.report.complete && released.report.complete).toBe(true);
    expect(released.report.memory.at(-1)!.memoryBytes).toBe(0);
    expect(kept.report.memory.at(-1)!.memoryBytes).toBeGreaterThan(0);
  });

  it("rejects bad options with a clear error", async () => {
    await expect(simulate("map", { workers: 0 })).rejects.toThrow("option workers must be a positive integer, got 0");
    await expect(simulate("map", { seed: -1 })).rejects.toThrow("option seed must be an integer ≥ 0, got -1");
    await expect(simulate("map", { memoryLimit: -5 })).rejects.toThrow(/option memoryLimit must be a positive number/);
  });
});
