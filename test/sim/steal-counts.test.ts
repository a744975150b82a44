// report.scheduler.steals accounts for every steal request: each of stealing.py's outcomes
// (confirm, already-computing, reschedule, already-aborted) has its count, and a request still
// in flight when the run ends is counted as unanswered, so the five add up to `requested`.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simulate, type SimReport } from "../../src/sim/index.js";
import { StealLedger } from "../../src/sim/scheduler/steals.js";

const OUTCOMES = ["confirmed", "rejected", "rescheduled", "aborted"] as const;

function checkCounts(report: SimReport): void {
  const steals = report.scheduler.steals;
  const records = report.steals ?? [];
  expect(report.stealsDropped ?? 0).toBe(0);
  expect(steals.confirmed + steals.rejected + steals.rescheduled + steals.aborted + steals.unanswered).toBe(steals.requested);
  for (const outcome of OUTCOMES) expect(records.filter((s) => s.outcome === outcome).length, outcome).toBe(steals[outcome]);
  expect(steals.unanswered).toBe(steals.requested - records.length);
}

describe("steal counts", () => {
  it("add up to the requests and match the records, over random small clusters with stealing on", async () => {
    const workloads = { "random-dag": 120, shuffle: 200, "tree-reduce": 64, map: 80 } as const;
    const seen = { confirmed: 0, rejected: 0, rescheduled: 0, aborted: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(workloads) as Array<keyof typeof workloads>)),
        fc.constantFrom("dask", "dask:stealing-interval=0.02"),
        fc.constantFrom("instant" as const, "latency-bandwidth" as const, "max-min" as const),
        fc.integer({ min: 2, max: 5 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.option(fc.record({ worker: fc.nat(4), at: fc.double({ min: 0, max: 2, noNaN: true }) }), { nil: undefined }),
        async (workload, scheduler, network, workers, seed, death) => {
          // a worker's death puts its tasks (and steals towards it) back: reschedules and aborts
          const faults = death === undefined ? [] : [{ kind: "worker-death" as const, worker: death.worker % workers, at: death.at }];
          const { report } = await simulate(workload, { size: workloads[workload], scheduler, network, workers, seed, faults, maxTaskRecords: 1e6 });
          checkCounts(report);
          for (const outcome of OUTCOMES) seen[outcome] += report.scheduler.steals[outcome];
        },
      ),
      { numRuns: 40, seed: 20261202 },
    );
    // the runs reached the outcomes a steal usually ends in, not only the trivial zero
    expect(seen.confirmed).toBeGreaterThan(0);
    expect(seen.rejected).toBeGreaterThan(0);
    expect(seen.aborted).toBeGreaterThan(0);
  });

  it("counts a request still in flight at the end as unanswered", () => {
    const ledger = new StealLedger(10);
    ledger.open(1, 0, 1);
    ledger.open(2, 0, 1);
    expect(ledger.answer(2, "steal-1")).not.toBeNull();
    ledger.record(0.1, 2, 0, 1, "rescheduled");
    expect(ledger.counts).toEqual({ requested: 2, confirmed: 0, rejected: 0, rescheduled: 1, aborted: 0 });
    expect(ledger.unanswered).toBe(1);
  });

});
