// A user scheduling policy, loaded with --scheduler PATH (docs/sim.md, "Writing a policy"):
// every ready task goes to the running worker where it would start first — dask's
// worker_objective, but over every running worker rather than only the holders of its
// dependencies — with the transfer estimate weighted by the option `transfer-weight`.
//
//   npx spanwork run shuffle --scheduler ./examples/earliest-start-policy.ts
//   npx spanwork run shuffle --scheduler ./examples/earliest-start-policy.ts:transfer-weight=4
//
// The default export is a factory: it gets the read-only cluster view, the options (values
// typed: true/false, numbers, strings) and a seeded random(), and returns the policy. Only
// decideWorker is required; without releaseQueued the policy never queues (QUEUE is never
// answered), and without balance nothing is stolen.
import { NO_WORKER, type PolicyFactory } from "../src/sim/index.js";

const earliestStart: PolicyFactory = ({ cluster, options }) => {
  const weight = typeof options["transfer-weight"] === "number" ? options["transfer-weight"] : 1;
  return {
    decideWorker(task) {
      let best = NO_WORKER;
      let bestStart = Infinity;
      for (const ws of cluster.workers) {
        if (ws.status !== "running") continue;
        // Seconds of work already assigned per thread, plus moving the inputs it lacks.
        const start = ws.occupancy / ws.nthreads + weight * cluster.commCost(task, ws.index);
        if (start < bestStart) {
          best = ws.index;
          bestStart = start;
        }
      }
      return best;
    },
  };
};

export default earliestStart;
