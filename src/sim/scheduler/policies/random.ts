// A baseline: every ready task goes to a running worker drawn uniformly at random from the
// run's seed (its own stream, so the graph and faults do not move). No queuing.
import type { ClusterView, PolicyContext, PolicyEntry, SchedulerPolicy } from "../policy.js";
import { NO_WORKER } from "../policy.js";

class RandomPolicy implements SchedulerPolicy {
  private readonly cluster: ClusterView;

  constructor(private readonly context: PolicyContext) {
    this.cluster = context.cluster;
  }

  decideWorker(): number {
    const workers = this.cluster.workers;
    const running = this.cluster.runningCount;
    if (running === 0) return NO_WORKER;
    let pick = Math.floor(this.context.random() * running);
    for (let w = 0; w < workers.length; w++) {
      if (workers[w]!.status !== "running") continue;
      if (pick-- === 0) return w;
    }
    return NO_WORKER;
  }
}

export const randomPolicy: PolicyEntry = {
  description: "a running worker drawn at random (seeded by the run's seed) for every ready task; no queuing",
  options: {},
  create: (context) => new RandomPolicy(context),
};
