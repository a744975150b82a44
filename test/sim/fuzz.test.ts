import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simulate } from "../../src/sim/index.js";
import { fault, networks, TIGHT_MEMORY, workloads } from "../testing/cluster-fuzz.js";

describe("random faults on random workloads", () => {
  it("always end with every task in memory or erred, as long as a worker survives", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(workloads) as Array<keyof typeof workloads>)),
        fc.array(fault, { maxLength: 4 }),
        fc.constantFrom(...networks),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        async (workload, faults, network, seed, tight) => {
          // Worker 0 never dies, so the run can always finish.
          const survivable = faults.filter((f) => f.kind !== "worker-death" || f.worker !== 0);
          const { report } = await simulate(workload, {
            size: workloads[workload],
            seed,
            network,
            faults: survivable,
            validate: true,
            ...(tight ? TIGHT_MEMORY : {}),
          });
          if (!report.complete) throw new Error(`${workload} seed ${seed} ${network}: ${report.completion} ${JSON.stringify(report.stuck)}`);
          expect(report.tasks.completed + report.tasks.erred).toBe(report.tasks.total);
        },
      ),
      { numRuns: 12, seed: 20261129 },
    );
  });
});
