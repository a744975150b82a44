// Static list scheduling (Estee's b-level family, HEFT-like): before the run, tasks are ranked
// by bottom level — their duration plus the longest chain of transfer + duration down to an
// exit task — and, in that order, each is planned on the worker where it would finish first
// given its inputs' planned finish times and transfers and the worker's free threads. At run
// time a ready task goes to its planned worker (or, if that one is not running, to the least
// loaded running worker). Durations and sizes are the graph's own: an oracle, as static
// schedulers assume known costs; transfers are priced at the bandwidth estimate.
import type { ClusterView, PolicyContext, PolicyEntry, SchedulerPolicy } from "../policy.js";
import { NO_WORKER } from "../policy.js";

/** Bottom levels, in seconds (graph.order is topological: dependencies rank first). */
export function bottomLevels(cluster: ClusterView): Float64Array {
  const g = cluster.graph;
  const n = g.size;
  const byRank = new Int32Array(n);
  for (let id = 0; id < n; id++) byRank[g.order[id]!] = id;
  const level = new Float64Array(n);
  for (let rank = n - 1; rank >= 0; rank--) {
    const task = byRank[rank]!;
    const transfer = g.nbytes[task]! / cluster.bandwidth;
    let longest = 0;
    for (let e = g.dependentStart[task]!; e < g.dependentStart[task + 1]!; e++) {
      const below = transfer + level[g.dependents[e]!]!;
      if (below > longest) longest = below;
    }
    level[task] = g.duration[task]! + longest;
  }
  return level;
}

/** The planned worker of every task: earliest estimated finish time, in bottom-level order. */
export function plan(cluster: ClusterView): Int32Array {
  const g = cluster.graph;
  const n = g.size;
  const level = bottomLevels(cluster);
  const sorted = new Int32Array(n);
  for (let id = 0; id < n; id++) sorted[id] = id;
  sorted.sort((a, b) => level[b]! - level[a]! || g.order[a]! - g.order[b]!);
  const workers = cluster.workers;
  const threadFree = workers.map((ws) => new Float64Array(ws.nthreads));
  const finish = new Float64Array(n);
  const planned = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const task = sorted[i]!;
    let bestWorker = 0;
    let bestThread = 0;
    let bestFinish = Infinity;
    for (let w = 0; w < workers.length; w++) {
      let ready = 0;
      for (let e = g.depStart[task]!; e < g.depStart[task + 1]!; e++) {
        const dep = g.deps[e]!;
        const arrives = finish[dep]! + (planned[dep] === w ? 0 : g.nbytes[dep]! / cluster.bandwidth);
        if (arrives > ready) ready = arrives;
      }
      const threads = threadFree[w]!;
      let thread = 0;
      for (let t = 1; t < threads.length; t++) if (threads[t]! < threads[thread]!) thread = t;
      const end = Math.max(ready, threads[thread]!) + g.duration[task]!;
      if (end < bestFinish) {
        bestFinish = end;
        bestWorker = w;
        bestThread = thread;
      }
    }
    finish[task] = bestFinish;
    planned[task] = bestWorker;
    threadFree[bestWorker]![bestThread] = bestFinish;
  }
  return planned;
}

class BlevelPolicy implements SchedulerPolicy {
  private readonly cluster: ClusterView;
  private readonly planned: Int32Array;

  constructor(context: PolicyContext) {
    this.cluster = context.cluster;
    this.planned = plan(this.cluster);
  }

  decideWorker(task: number): number {
    const workers = this.cluster.workers;
    const planned = this.planned[task]!;
    if (workers[planned]!.status === "running") return planned;
    let best = NO_WORKER;
    let bestLoad = Infinity;
    for (let w = 0; w < workers.length; w++) {
      const ws = workers[w]!;
      if (ws.status !== "running") continue;
      const load = ws.processing.size / ws.nthreads;
      if (load < bestLoad) {
        best = w;
        bestLoad = load;
      }
    }
    return best;
  }
}

export const blevelPolicy: PolicyEntry = {
  description: "static list scheduling: bottom-level order, each task planned where it finishes first (known durations)",
  options: {},
  create: (context) => new BlevelPolicy(context),
};
