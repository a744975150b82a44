// scheduler.py::worker_objective (scheduler.md §6.6): the estimated start time of a task on a
// worker — its occupancy per thread plus the transfer of the dependencies it lacks — with the
// bytes it already stores as the tie-break. Compared without building tuples.
import type { ClusterView } from "../policy.js";

export function startTime(cluster: ClusterView, task: number, worker: number): number {
  const ws = cluster.workers[worker]!;
  return ws.occupancy / ws.nthreads + cluster.missingBytes(task, worker) / cluster.bandwidth;
}

/** The candidate with the smallest (start time, stored bytes); the first one on ties (min()). */
export function bestByObjective(cluster: ClusterView, task: number, candidates: readonly number[]): number {
  let best = candidates[0]!;
  let bestStart = startTime(cluster, task, best);
  let bestBytes = cluster.workers[best]!.nbytes;
  for (let i = 1; i < candidates.length; i++) {
    const w = candidates[i]!;
    const start = startTime(cluster, task, w);
    if (start > bestStart) continue;
    const bytes = cluster.workers[w]!.nbytes;
    if (start < bestStart || bytes < bestBytes) {
      best = w;
      bestStart = start;
      bestBytes = bytes;
    }
  }
  return best;
}
