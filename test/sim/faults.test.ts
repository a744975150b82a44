import { describe, expect, it } from "vitest";
import { GraphBuilder, NETWORK_KINDS, NO_OVERHEADS, simulate, workerAddress, type FaultSpec, type SimReport, type Workload } from "../../src/sim/index.js";

function expectNothingLost(report: SimReport): void {
  expect(report.complete).toBe(true);
  expect(report.tasks.lost).toBe(0);
  expect(report.tasks.completed + report.tasks.erred).toBe(report.tasks.total);
  expect(report.stuck).toBeUndefined();
}

async function run(faults: FaultSpec[], workload = "tree-reduce", size = 64, seed = 5): Promise<SimReport> {
  const { report } = await simulate(workload, { size, seed, faults, validate: true });
  return report;
}

describe("faults end with nothing lost", () => {
  it("a worker dying mid-run: its data is recomputed and its tasks run elsewhere", async () => {
    const report = await run([{ kind: "worker-death", worker: 1, at: 2 }]);
    expectNothingLost(report);
    expect(report.tasks.erred).toBe(0);
    expect(report.faults).toContainEqual({ time: 2, kind: "worker-death", detail: `${workerAddress(1)} died` });
    expect(report.perWorker.map((w) => w.died)).toEqual([false, true, false, false]);
    // Work was cut short on the dead worker and done again elsewhere.
    const cancelled = report.taskRecords.filter((r) => r.outcome === "cancelled");
    expect(cancelled.length).toBeGreaterThan(0);
    expect(cancelled.every((r) => r.worker === workerAddress(1) && r.end === 2)).toBe(true);
    expect(report.taskRecords.filter((r) => r.worker === workerAddress(1) && r.start > 2)).toEqual([]);
  });

  it("a worker that dies holding data is no holder when its tasks' dependents are placed again", async () => {
    // The dead worker's replicas were dropped one at a time, each lost one recomputed at once:
    // dask's placement then chose the dead worker, still holding the next replica, and the run
    // failed ("returned worker 1 …, which is closed").
    const { report } = await simulate("shuffle", { size: 200, workers: 3, seed: 13, faults: [{ kind: "worker-death", worker: 1, at: 1.2 }], maxTaskRecords: 1e6 });
    expect(report.complete).toBe(true);
    expect(report.tasks.lost).toBe(0);
  });

  it("transfers failing: the peer is treated as dead, the scheduler tells where the data is", async () => {
    const report = await run([{ kind: "transfer-failure", probability: 0.3 }]);
    expectNothingLost(report);
    expect(report.tasks.erred).toBe(0);
    expect(report.transfers.filter((t) => t.outcome === "failed").length).toBeGreaterThan(0);
    expect(report.metrics.some((m) => m.name[0] === "gather-dep" && m.outcome === "failed")).toBe(true);
  });

  it("peers answering busy: the fetch is retried later", async () => {
    const report = await run([{ kind: "busy", probability: 0.5, worker: 0 }]);
    expectNothingLost(report);
    const busy = report.transfers.filter((t) => t.outcome === "busy");
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.every((t) => t.from === workerAddress(0))).toBe(true);
    expect(report.metrics.some((m) => m.name[0] === "gather-dep" && m.outcome === "busy")).toBe(true);
  });

  it("tasks failing with a probability: they and their dependents err, as in dask", async () => {
    const report = await run([{ kind: "task-failure", probability: 0.05, prefix: "load" }]);
    expectNothingLost(report);
    expect(report.tasks.erred).toBeGreaterThan(0);
    const failed = report.taskRecords.filter((r) => r.outcome === "failed");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((r) => r.prefix === "load")).toBe(true);
    // The final reduce depends on everything: it erred without running.
    expect(report.taskRecords.some((r) => r.prefix === "reduce" && r.key === "reduce-2-0")).toBe(false);
  });

  it("all of them at once, on every network model", async () => {
    for (const network of NETWORK_KINDS) {
      const { report } = await simulate("random-dag", {
        size: 150,
        seed: 11,
        network,
        memoryLimit: 50e6,
        validate: true,
        faults: [
          { kind: "worker-death", worker: 2, at: 1 },
          { kind: "worker-death", worker: 0, at: 3 },
          { kind: "transfer-failure", probability: 0.1 },
          { kind: "busy", probability: 0.1 },
          { kind: "task-failure", probability: 0.01 },
        ],
      });
      expectNothingLost(report);
    }
  });

  it("a run that cannot finish says so, with the stuck keys and the seed", async () => {
    const { report } = await simulate("tree-reduce", {
      size: 16,
      workers: 2,
      seed: 42,
      faults: [
        { kind: "worker-death", worker: 0, at: 0.5 },
        { kind: "worker-death", worker: 1, at: 0.5 },
      ],
    });
    expect(report.complete).toBe(false);
    expect(report.tasks.lost).toBe(report.tasks.total);
    expect(report.completion).toMatch(/^19 of 19 tasks did not finish .*replay with seed 42$/);
    expect(report.stuck![0]).toEqual({ key: "load-0", state: "queued" });
  });

  it("counts the probabilistic faults by kind, with their first and last time", async () => {
    const report = await run([
      { kind: "transfer-failure", probability: 0.2 },
      { kind: "task-failure", probability: 0.05, prefix: "load" },
    ]);
    const counts = new Map(report.faultCounts.map((fault) => [fault.kind, fault]));
    const failedTransfers = report.transfers.filter((t) => t.outcome === "failed");
    const failedTasks = report.taskRecords.filter((r) => r.outcome === "failed");
    expect(failedTransfers.length).toBeGreaterThan(0);
    expect(failedTasks.length).toBeGreaterThan(0);
    expect(counts.get("transfer-failure")).toEqual({
      kind: "transfer-failure",
      count: failedTransfers.length,
      first: Math.min(...failedTransfers.map((t) => t.end)),
      last: Math.max(...failedTransfers.map((t) => t.end)),
    });
    expect(counts.get("task-failure")).toEqual({
      kind: "task-failure",
      count: failedTasks.length,
      first: Math.min(...failedTasks.map((r) => r.end)),
      last: Math.max(...failedTasks.map((r) => r.end)),
    });
    // Counted, not listed one by one.
    expect(report.faults.filter((f) => f.kind === "transfer-failure" || f.kind === "task-failure")).toEqual([]);
    const busy = await run([{ kind: "busy", probability: 0.5, worker: 0 }]);
    const busyCount = busy.faultCounts.find((fault) => fault.kind === "busy");
    expect(busyCount?.count).toBeGreaterThan(0);
    expect(busyCount!.count).toBeLessThanOrEqual(busy.transfers.filter((t) => t.outcome === "busy").length);
  });

  it("counts worker deaths and lists each of them", async () => {
    const report = await run([{ kind: "worker-death", worker: 1, at: 2 }]);
    expect(report.faultCounts).toContainEqual({ kind: "worker-death", count: 1, first: 2, last: 2 });
  });

  it("a stuck run names the time of its last progress, not the watchdog's", async () => {
    const builder = new GraphBuilder();
    const a = builder.addTask({ key: "a-0", prefix: "a", duration: 1, nbytes: 1 });
    const b = builder.addTask({ key: "b-0", prefix: "b", duration: 10, nbytes: 1 });
    builder.addDependency(b, a);
    const workload: Workload = { name: "halt", description: "", graph: builder.build("halt"), faults: [], cluster: {} };
    const { report } = await simulate(workload, { workers: 1, faults: [{ kind: "worker-death", worker: 0, at: 5 }], stallTimeout: 60, cluster: { overheads: NO_OVERHEADS } });
    expect(report.complete).toBe(false);
    expect(report.completion).toContain("stuck at t=1s");
  });

  it("rejects a fault naming a worker the cluster does not have", async () => {
    await expect(simulate("map", { size: 4, workers: 2, faults: [{ kind: "worker-death", worker: 5, at: 1 }] })).rejects.toThrow(
      /^options\.faults\[0\]\.worker: no worker 5 in this cluster/,
    );
  });
});

describe("memory: spilling and pausing", () => {
  it("spills to the virtual disk under memory pressure and reads it back", async () => {
    const { report } = await simulate("spill-pressure", { size: 32, workers: 2, validate: true });
    expectNothingLost(report);
    expect(report.spill.bytesWritten).toBeGreaterThan(0);
    expect(report.spill.countRead).toBeGreaterThan(0);
    const written = report.metrics.filter((m) => m.name.at(-2) === "disk-write" && m.name.at(-1) === "bytes");
    expect(written.length).toBeGreaterThan(0);
    const peak = Math.max(...report.perWorker.map((w) => w.peakMemoryBytes));
    expect(peak).toBeLessThanOrEqual(report.memoryLimit!);
    expect(report.memory.length).toBeGreaterThan(0);
  });

  it("pauses a worker over the pause fraction and unpauses it once memory is freed", async () => {
    const builder = new GraphBuilder();
    const big = builder.addTask({ key: "big-0", prefix: "big", duration: 1, nbytes: 70e6 });
    const pad = builder.addTask({ key: "pad-0", prefix: "pad", duration: 0.5, nbytes: 15e6 });
    const use = builder.addTask({ key: "use-0", prefix: "use", duration: 1, nbytes: 1e6 });
    builder.addDependency(pad, big);
    builder.addDependency(use, big);
    const workload: Workload = { name: "pause", description: "", graph: builder.build("pause"), faults: [], cluster: {} };
    // Nothing can spill (maxSpill 0): at t=1.5 the worker holds 85 MB of 100 MB (> 80%) and
    // pauses; at t=2 use-0 ends, big-0 is freed, 16 MB remain and it unpauses.
    // Checked after every change, with no overheads: the times are the tasks' own.
    const cluster = { overheads: NO_OVERHEADS, memory: { monitorInterval: 0 } };
    const { report } = await simulate(workload, { workers: 1, threads: 2, memoryLimit: 100e6, maxSpill: 0, validate: true, cluster });
    expectNothingLost(report);
    expect(report.faults.filter((f) => f.kind === "pause" || f.kind === "unpause").map((f) => [f.time, f.kind])).toEqual([
      [1.5, "pause"],
      [2, "unpause"],
    ]);
    expect(report.perWorker[0]!.peakMemoryBytes).toBe(85e6);
  });
});

describe("stall detection", () => {
  it("does not mistake one long task for a stall", async () => {
    const builder = new GraphBuilder();
    builder.addTask({ key: "slow-0", prefix: "slow", duration: 5000, nbytes: 1 });
    const workload: Workload = { name: "slow", description: "", graph: builder.build("slow"), faults: [], cluster: {} };
    const { report } = await simulate(workload, { workers: 1, stallTimeout: 60, cluster: { overheads: NO_OVERHEADS } });
    expectNothingLost(report);
    expect(report.makespan).toBe(5000);
  });
});
