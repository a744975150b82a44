// dask's memory monitor for the simulated workers, plus the bounded memory samples of the
// report. Managed memory = the SpillBuffer's in-memory weight plus the bytes of transfers
// arriving (they land in memory before they are stored).
import { MEMORY_FRACTIONS } from "../worker/memory-fractions.js";
import type { Worker } from "../worker/worker.js";
import type { MemorySample } from "./report.js";

export { MEMORY_FRACTIONS };

interface Series {
  times: number[];
  memory: number[];
  spilled: number[];
  interval: number;
}

export class MemoryMonitor {
  private readonly series: Series[];
  readonly peak: Float64Array;

  constructor(
    private readonly limit: number | null,
    private readonly maxSamples: number,
    workers: number,
  ) {
    this.series = Array.from({ length: workers }, () => ({ times: [], memory: [], spilled: [], interval: 0 }));
    this.peak = new Float64Array(workers);
  }

  static managed(worker: Worker): number {
    return (worker.spillBuffer?.fast.totalWeight ?? 0) + Math.max(0, worker.state.transferIncomingBytes);
  }

  /**
   * Spills (like dask's monitor) while managed memory is over the spill fraction and above
   * the target, then says whether the worker should be paused. Samples memory.
   */
  check(index: number, worker: Worker, now: number): { shouldPause: boolean } {
    let managed = MemoryMonitor.managed(worker);
    let shouldPause = false;
    if (this.limit !== null) {
      if (managed > MEMORY_FRACTIONS.spill * this.limit) {
        const target = MEMORY_FRACTIONS.target * this.limit;
        while (managed > target && worker.evict() >= 0) managed = MemoryMonitor.managed(worker);
      }
      shouldPause = managed > MEMORY_FRACTIONS.pause * this.limit;
    }
    this.sample(index, worker, now, false);
    return { shouldPause };
  }

  /** Records a sample unless one was taken too recently; keeps at most maxSamples per worker
   * by dropping every other sample and doubling the spacing when full. */
  sample(index: number, worker: Worker, now: number, force: boolean): void {
    const managed = MemoryMonitor.managed(worker);
    if (managed > this.peak[index]!) this.peak[index] = managed;
    if (this.maxSamples <= 0) return;
    const s = this.series[index]!;
    const last = s.times.length - 1;
    if (last >= 0 && !force && now - s.times[last]! < s.interval) return;
    const spilled = worker.spillBuffer?.slow.totalWeight.memory ?? 0;
    if (last >= 0 && s.times[last] === now) {
      s.memory[last] = managed;
      s.spilled[last] = spilled;
      return;
    }
    s.times.push(now);
    s.memory.push(managed);
    s.spilled.push(spilled);
    if (s.times.length >= this.maxSamples) {
      // Every other sample and the newest one, the same indices in all three series.
      const newest = s.times.length - 1;
      const keep = (_: number, i: number): boolean => i % 2 === 0 || i === newest;
      s.times = s.times.filter(keep);
      s.memory = s.memory.filter(keep);
      s.spilled = s.spilled.filter(keep);
      const span = s.times[s.times.length - 1]! - s.times[0]!;
      s.interval = Math.max(s.interval * 2, span / Math.max(1, this.maxSamples / 2));
    }
  }

  samples(addresses: readonly string[]): MemorySample[] {
    const out: MemorySample[] = [];
    this.series.forEach((s, w) => {
      for (let i = 0; i < s.times.length; i++) {
        out.push({ time: s.times[i]!, worker: addresses[w]!, memoryBytes: s.memory[i]!, spilledBytes: s.spilled[i]! });
      }
    });
    return out;
  }
}
