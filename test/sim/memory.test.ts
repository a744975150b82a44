import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, simulate, type MemoryModelSpec, type Workload } from "../../src/sim/index.js";
import { DEFAULT_MEMORY_MODEL, MemoryMonitor } from "../../src/sim/memory.js";
import type { Worker } from "../../src/worker/worker.js";

/** The two things the monitor reads of a worker: in-memory weight and spilled weight. */
function fakeWorker(): { worker: Worker; set(memory: number, spilled: number): void } {
  const fast = { totalWeight: 0 };
  const slow = { totalWeight: { memory: 0, disk: 0 } };
  const worker = { spillBuffer: { fast, slow }, state: { transferIncomingBytes: 0 } } as unknown as Worker;
  return {
    worker,
    set(memory, spilled) {
      fast.totalWeight = memory;
      slow.totalWeight.memory = spilled;
    },
  };
}

describe("MemoryMonitor samples", () => {
  it("keep each sample's memory and spill with its own time when the series is thinned", () => {
    const { worker, set } = fakeWorker();
    const monitor = new MemoryMonitor(DEFAULT_MEMORY_MODEL, [null], 8);
    for (let t = 0; t < 100; t++) {
      set(t * 10, t * 3);
      monitor.sample(0, worker, t, true);
    }
    const samples = monitor.samples(["w"]);
    expect(samples.length).toBeGreaterThan(1);
    expect(samples.length).toBeLessThanOrEqual(8);
    for (const sample of samples) expect(sample).toEqual({ time: sample.time, worker: "w", memoryBytes: sample.time * 10, spilledBytes: sample.time * 3 });
    expect(samples.at(-1)!.time).toBe(99);
  });
});

describe("dask's memory manager in a run (docs/sim.md, Memory)", () => {
  // One thread, tasks of 0.1 s each keeping 10 MB, a 100 MB limit: managed memory is 10 MB
  // per task finished. Checks follow every change, so the thresholds are exact.
  function keepers(n: number): Workload {
    const builder = new GraphBuilder();
    for (let i = 0; i < n; i++) builder.addTask({ key: `keep-${i}`, prefix: "keep", duration: 0.1, nbytes: 10e6 });
    return { name: "keep", description: "", graph: builder.build("keep"), faults: [], cluster: {} };
  }
  const run = (n: number, memory: MemoryModelSpec, extra: { workers?: number } = {}) =>
    simulate(keepers(n), { workers: 1, threads: 1, network: "instant", memoryLimit: 100e6, cluster: { overheads: NO_OVERHEADS, memory: { monitorInterval: 0, ...memory } }, ...extra });

  it("unmanaged memory moves the spill point: 50 MB of data spill only once 25 MB of the process's own are counted", async () => {
    // 50 MB managed: below the SpillBuffer's target (60 MB) and, alone, below the spill fraction (70 MB).
    expect((await run(5, { unmanaged: 0 })).report.spill.bytesWritten).toBe(0);
    expect((await run(5, { unmanaged: 15e6 })).report.spill.bytesWritten).toBe(0); // 65 MB ≤ 70 MB
    // 50 + 25 = 75 MB > 70 MB: evict down to the target, 60 MB of process memory: two values (30 + 25 = 55 MB).
    const { report } = await run(5, { unmanaged: 25e6 });
    expect(report.spill.bytesWritten).toBe(20e6);
    expect(report.spill.countWritten).toBe(2);
  });

  it("the per-task term grows with the tasks executed", async () => {
    // 5 tasks × 5 MB = 25 MB of unmanaged memory at the end: the same two values as above.
    const { report } = await run(5, { unmanaged: 0, unmanagedPerTask: 5e6 });
    expect(report.spill.bytesWritten).toBe(20e6);
  });

  it("each fraction is configurable, false turns it off", async () => {
    // the SpillBuffer's target: 0.3 × 100 MB = 30 MB of managed memory; 50 MB → 2 values out
    expect((await run(5, { target: 0.3, spill: false })).report.spill.bytesWritten).toBe(20e6);
    // no monitor spill: only the SpillBuffer's 60 MB target, which 50 MB does not reach
    expect((await run(5, { unmanaged: 25e6, spill: false })).report.spill.bytesWritten).toBe(0);
  });

  it("the nanny terminates a worker whose process memory stays above the terminate fraction", async () => {
    const { report } = await simulate(keepers(4), {
      network: "instant",
      cluster: { groups: [{ count: 1, memoryLimit: 100e6 }, { count: 1, memoryLimit: null }], overheads: NO_OVERHEADS, memory: { unmanaged: 96e6, monitorInterval: 0 } },
    });
    const deaths = report.faults.filter((f) => f.kind === "worker-death");
    expect(deaths).toHaveLength(1);
    expect(deaths[0]!.detail).toMatch(/^tcp:\/\/10\.0\.0\.1:8786 terminated by the nanny: process memory 96000000 bytes above the terminate fraction/);
    expect(report.complete).toBe(true);
    expect(report.perWorker[1]!.tasksExecuted).toBe(4);
  });

  it("checks every monitorInterval: a change is seen at the next tick of the period", async () => {
    // Nothing can spill (maxSpill 0): the worker holds 90 MB (> 80 MB, the pause fraction)
    // from t = 0.9 on; with a 0.25 s period the monitor sees it at its tick t = 1.0.
    const { report } = await simulate(keepers(9), {
      workers: 1,
      threads: 1,
      network: "instant",
      memoryLimit: 100e6,
      maxSpill: 0,
      cluster: { overheads: NO_OVERHEADS, memory: { monitorInterval: 0.25 } },
    });
    const pause = report.faults.find((f) => f.kind === "pause");
    expect(pause?.time).toBeCloseTo(1, 12);
  });
});
