// dask's memory manager for the simulated workers (worker_memory.py), plus the bounded memory
// samples of the report. Process memory = managed memory (the SpillBuffer's in-memory weight
// plus the bytes of transfers arriving, which land in memory before they are stored) +
// unmanaged memory (the worker process itself: a constant, plus a term per task it has
// executed — its logs and the allocator's fragmentation grow with them). The monitor compares
// process memory with the fractions of the worker's limit: above `pause` the worker pauses
// (and unpauses once back below), above `spill` it evicts until process memory is below
// `target`, above `terminate` the nanny kills it. docs/sim.md, "Memory".
import { MEMORY_FRACTIONS } from "../worker/memory-fractions.js";
import type { Worker } from "../worker/worker.js";
import type { MemorySample } from "./report.js";

export { MEMORY_FRACTIONS };

export interface MemoryModel {
  /** Fractions of the memory limit (false = that threshold is off, as dask's config allows). */
  target: number | false;
  spill: number | false;
  pause: number | false;
  terminate: number | false;
  /** Bytes of a worker process before it holds any data. */
  unmanaged: number;
  /** Bytes of unmanaged memory added by each task the worker executed. */
  unmanagedPerTask: number;
  /** Seconds between two checks of the memory monitor (dask's monitor-interval, 0.1 s); 0 = after every change. */
  monitorInterval: number;
}

/**
 * dask 2022.12.1's fractions and monitor interval. Unmanaged memory depends on the machine and
 * on what the tasks import, so it is 0 unless a spec or profile says (a spec's memoryLimit is
 * then all for data); profiles/dask-localcluster-2x2.yaml has the figures measured for a dask
 * worker on the machine of the fidelity set (docs/sim.md, "Memory").
 */
export const DEFAULT_MEMORY_MODEL: Readonly<MemoryModel> = Object.freeze({
  ...MEMORY_FRACTIONS,
  unmanaged: 0,
  unmanagedPerTask: 0,
  monitorInterval: 0.1,
});

interface Series {
  times: number[];
  memory: number[];
  spilled: number[];
  interval: number;
}

/** What one check decided. */
export interface MemoryCheck {
  readonly shouldPause: boolean;
  /** Process memory (after spilling) above the terminate fraction: the nanny kills the worker. */
  readonly terminate: boolean;
  /** Process memory when checked (before any spilling). */
  readonly processMemory: number;
}

export class MemoryMonitor {
  private readonly series: Series[];
  readonly peak: Float64Array;

  constructor(
    readonly model: Readonly<MemoryModel>,
    private readonly limits: ReadonlyArray<number | null>,
    private readonly maxSamples: number,
  ) {
    this.series = limits.map(() => ({ times: [], memory: [], spilled: [], interval: 0 }));
    this.peak = new Float64Array(limits.length);
  }

  static managed(worker: Worker): number {
    return (worker.spillBuffer?.fast.totalWeight ?? 0) + Math.max(0, worker.state.transferIncomingBytes);
  }

  unmanaged(worker: Worker): number {
    return this.model.unmanaged + this.model.unmanagedPerTask * worker.state.executedCount;
  }

  processMemory(worker: Worker): number {
    return MemoryMonitor.managed(worker) + this.unmanaged(worker);
  }

  /**
   * One check of the monitor, in dask's order: pause or unpause on the process memory, then,
   * above the spill fraction, evict until it is below the target (or nothing more can go).
   * When checks follow every change (monitorInterval 0) the pause decision is taken again
   * after spilling, since the spill was a change. Samples memory.
   */
  check(index: number, worker: Worker, now: number): MemoryCheck {
    const limit = this.limits[index]!;
    const { spill, target, pause, terminate } = this.model;
    let memory = this.processMemory(worker);
    const checked = memory;
    let shouldPause = limit !== null && pause !== false && memory > pause * limit;
    if (limit !== null && spill !== false && memory > spill * limit) {
      const floor = (target === false ? spill : target) * limit;
      while (memory > floor && worker.evict() >= 0) memory = this.processMemory(worker);
      if (this.model.monitorInterval === 0) shouldPause = pause !== false && memory > pause * limit;
    }
    this.sample(index, worker, now, false);
    // The nanny checks on its own cadence; here it sees what the worker's spilling left.
    return { shouldPause, terminate: limit !== null && terminate !== false && memory > terminate * limit, processMemory: checked };
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
