import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simulate, type FaultSpec } from "../../src/sim/index.js";

const workloads = { "random-dag": 60, "tree-reduce": 24, shuffle: 150, "spill-pressure": 12, chain: 12, map: 30 } as const;

const fault: fc.Arbitrary<FaultSpec> = fc.oneof(
  fc.record({ kind: fc.constant("worker-death" as const), worker: fc.integer({ min: 0, max: 3 }), at: fc.double({ min: 0, max: 4, noNaN: true }) }),
  fc.record({ kind: fc.constant("transfer-failure" as const), probability: fc.double({ min: 0, max: 0.3, noNaN: true }) }),
  fc.record({ kind: fc.constant("busy" as const), probability: fc.double({ min: 0, max: 0.5, noNaN: true }) }),
  fc.record({ kind: fc.constant("task-failure" as const), probability: fc.double({ min: 0, max: 0.05, noNaN: true }) }),
);

describe("random faults on random workloads", () => {
  it("always end with every task in memory or erred, as long as a worker survives", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(workloads) as Array<keyof typeof workloads>)),
        fc.array(fault, { maxLength: 4 }),
        fc.constantFrom("instant" as const, "latency-bandwidth" as const, "max-min" as const),
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
            ...(tight ? { memoryLimit: 40e6 } : {}),
          });
          if (!report.complete) throw new Error(`${workload} seed ${seed} ${network}: ${report.completion} ${JSON.stringify(report.stuck)}`);
          expect(report.tasks.completed + report.tasks.erred).toBe(report.tasks.total);
        },
      ),
      { numRuns: 12, seed: 20261129 },
    );
  });
});
