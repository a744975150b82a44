// The simulator's first placement rule, kept so its reports stay reproducible: root-ish tasks
// (a group larger than 2 × the threads whose *other* dependency groups hold fewer than 5 tasks)
// always queue and go, best priority first, to the least busy worker with a free slot
// (ceil(1.1 × nthreads), long-running excluded), after every stimulus; other tasks go to the
// worker holding most of their dependency bytes, load (processing per thread) breaking ties.
import type { ClusterView, DecisionOrigin, PolicyContext, PolicyEntry, QueueView, SchedulerPolicy, Stimulus } from "../policy.js";
import { NO_WORKER, QUEUE } from "../policy.js";

class LocalityPolicy implements SchedulerPolicy {
  private readonly cluster: ClusterView;
  /** Scratch per worker: dependency bytes held. */
  private readonly heldBytes: Float64Array;

  constructor(
    context: PolicyContext,
    private readonly saturation: number,
  ) {
    this.cluster = context.cluster;
    this.heldBytes = new Float64Array(this.cluster.workers.length);
  }

  decideWorker(task: number, origin: DecisionOrigin): number {
    if (origin === "queued") {
      const worker = this.rootishWorker();
      return worker < 0 ? QUEUE : worker;
    }
    const g = this.cluster.graph;
    if (g.groupSize[task]! > 2 * this.cluster.totalThreads && g.groupDependencyTasks[task]! < 5) return QUEUE;
    return this.byHeldBytes(task);
  }

  releaseQueued(stimulus: Stimulus, queue: QueueView): number[] {
    if (stimulus === "pause") return [];
    let slots = 0;
    for (let w = 0; w < this.cluster.workers.length; w++) {
      if (this.cluster.workers[w]!.status === "running") slots += Math.max(0, this.slots(w));
    }
    return queue.peek(slots);
  }

  private slots(worker: number): number {
    const ws = this.cluster.workers[worker]!;
    return Math.max(Math.ceil(this.saturation * ws.nthreads), 1) - (ws.processing.size - ws.longRunning.size);
  }

  private load(worker: number): number {
    const ws = this.cluster.workers[worker]!;
    return (ws.processing.size - ws.longRunning.size) / ws.nthreads;
  }

  private byHeldBytes(task: number): number {
    const cluster = this.cluster;
    const g = cluster.graph;
    const held = this.heldBytes;
    held.fill(0);
    let any = false;
    for (let e = g.depStart[task]!; e < g.depStart[task + 1]!; e++) {
      const dep = g.deps[e]!;
      for (const w of cluster.whoHas(dep)) {
        held[w]! += cluster.nbytes(dep);
        any = true;
      }
    }
    let best = -1;
    for (let w = 0; w < cluster.workers.length; w++) {
      if (cluster.workers[w]!.status !== "running") continue;
      if (best < 0) {
        best = w;
        continue;
      }
      if (any && held[w]! !== held[best]!) {
        if (held[w]! > held[best]!) best = w;
        continue;
      }
      if (this.load(w) < this.load(best)) best = w;
    }
    return best < 0 ? NO_WORKER : best;
  }

  private rootishWorker(): number {
    let best = -1;
    let bestLoad = Number.POSITIVE_INFINITY;
    for (let w = 0; w < this.cluster.workers.length; w++) {
      if (this.cluster.workers[w]!.status !== "running") continue;
      if (this.slots(w) <= 0) continue;
      const load = this.load(w);
      if (load < bestLoad) {
        best = w;
        bestLoad = load;
      }
    }
    return best;
  }
}

export const localityPolicy: PolicyEntry = {
  description: "the simulator's first rule: most dependency bytes held, then least loaded; root-ish tasks always queue",
  options: {},
  create: (context) => new LocalityPolicy(context, context.workerSaturation),
};
