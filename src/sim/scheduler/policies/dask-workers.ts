// dask 2022.12.1's classification of workers (scheduler.md §5): `idle` (few tasks or little
// occupancy: stealing's thieves, the no-dependency fast path), `saturated` (a backlog well above
// the average: stealing's victims) and `idle_task_count` (a free root-ish slot: queuing).
// Refreshed only for the worker touched, at the points where dask calls check_idle_saturated,
// so membership may be stale for the others — as in dask.
import type { ClusterView } from "../policy.js";

export class WorkerClasses {
  readonly idle: Uint8Array;
  readonly saturated: Uint8Array;
  readonly idleTaskCount: Uint8Array;
  idleCount = 0;
  saturatedCount = 0;
  idleTaskCountSize = 0;

  constructor(
    private readonly cluster: ClusterView,
    /** dask's worker-saturation (Infinity: no queuing, never full). */
    readonly saturation: number,
  ) {
    const n = cluster.workers.length;
    this.idle = new Uint8Array(n);
    this.saturated = new Uint8Array(n);
    this.idleTaskCount = new Uint8Array(n);
  }

  /** Root-ish task slots left on a worker (module-level _task_slots_available). */
  slots(worker: number): number {
    const ws = this.cluster.workers[worker]!;
    return Math.max(Math.ceil(this.saturation * ws.nthreads), 1) - (ws.processing.size - ws.longRunning.size);
  }

  full(worker: number): boolean {
    return this.saturation !== Infinity && this.slots(worker) <= 0;
  }

  /** scheduler.py::is_unoccupied. */
  unoccupied(worker: number, occupancy: number, nprocessing: number): boolean {
    const nthreads = this.cluster.workers[worker]!.nthreads;
    return nprocessing < nthreads || occupancy < (nthreads * (this.cluster.totalOccupancy / this.cluster.totalThreads)) / 2;
  }

  /** scheduler.py::check_idle_saturated(ws, occ). */
  check(worker: number, occupancy = -1): void {
    const cluster = this.cluster;
    const ws = cluster.workers[worker]!;
    if (cluster.totalThreads === 0 || ws.status === "closed") return;
    const occ = occupancy < 0 ? ws.occupancy : occupancy;
    const p = ws.processing.size;
    this.setSaturated(worker, false);
    if (this.unoccupied(worker, occ, p)) {
      if (ws.status === "running") this.setIdle(worker, true);
    } else {
      this.setIdle(worker, false);
      const nc = ws.nthreads;
      if (p > nc) {
        const pending = (occ * (p - nc)) / (p * nc);
        if (0.4 < pending && pending > 1.9 * (cluster.totalOccupancy / cluster.totalThreads)) this.setSaturated(worker, true);
      }
    }
    if (!this.full(worker)) {
      if (ws.status === "running") this.setIdleTaskCount(worker, true);
    } else {
      this.setIdleTaskCount(worker, false);
    }
  }

  /** A worker left running (paused, closing): out of idle and idle_task_count. */
  leftRunning(worker: number): void {
    this.setIdle(worker, false);
    this.setIdleTaskCount(worker, false);
  }

  /** A worker is gone: out of every class. */
  removed(worker: number): void {
    this.leftRunning(worker);
    this.setSaturated(worker, false);
  }

  setIdle(worker: number, member: boolean): void {
    const bit = member ? 1 : 0;
    if (this.idle[worker] === bit) return;
    this.idle[worker] = bit;
    this.idleCount += member ? 1 : -1;
  }

  private setSaturated(worker: number, member: boolean): void {
    const bit = member ? 1 : 0;
    if (this.saturated[worker] === bit) return;
    this.saturated[worker] = bit;
    this.saturatedCount += member ? 1 : -1;
  }

  private setIdleTaskCount(worker: number, member: boolean): void {
    const bit = member ? 1 : 0;
    if (this.idleTaskCount[worker] === bit) return;
    this.idleTaskCount[worker] = bit;
    this.idleTaskCountSize += member ? 1 : -1;
  }
}
