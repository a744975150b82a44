import { describe, expect, it } from "vitest";
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
