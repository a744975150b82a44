// A baseline: ready tasks go to the running workers in turn (worker order), whatever they hold
// or have queued. No queuing.
import type { ClusterView, PolicyContext, PolicyEntry, SchedulerPolicy } from "../policy.js";
import { NO_WORKER } from "../policy.js";

class RoundRobinPolicy implements SchedulerPolicy {
  private readonly cluster: ClusterView;
  private next = 0;

  constructor(context: PolicyContext) {
    this.cluster = context.cluster;
  }

  decideWorker(): number {
    const workers = this.cluster.workers;
    for (let i = 0; i < workers.length; i++) {
      const w = (this.next + i) % workers.length;
      if (workers[w]!.status !== "running") continue;
      this.next = (w + 1) % workers.length;
      return w;
    }
    return NO_WORKER;
  }
}

export const roundRobinPolicy: PolicyEntry = {
  description: "ready tasks to the running workers in turn, whatever they hold; no queuing",
  options: {},
  create: (context) => new RoundRobinPolicy(context),
};
