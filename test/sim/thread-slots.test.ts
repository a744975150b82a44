// The simulator's task records name thread slots 0…nthreads-1 (issue 12, item 1), and a
// slot runs one task at a time, whatever the graph.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, simulate, type TaskRecord, type Workload } from "../../src/sim/index.js";

/** Problems with the slots of `records` on workers of `nthreads` threads (empty when fine). */
function slotProblems(records: readonly TaskRecord[], nthreads: number): string[] {
  const problems: string[] = [];
  const bySlot = new Map<string, TaskRecord[]>();
  for (const r of records) {
    if (!Number.isInteger(r.thread) || r.thread < 0 || r.thread >= nthreads) problems.push(`${r.key} on ${r.worker} ran on thread ${r.thread}`);
    const slot = `${r.worker}#${r.thread}`;
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), r]);
  }
  for (const [slot, runs] of bySlot) {
    runs.sort((a, b) => a.start - b.start);
    for (let i = 1; i < runs.length; i++) {
      if (runs[i]!.start < runs[i - 1]!.end) problems.push(`${runs[i - 1]!.key} and ${runs[i]!.key} overlap on ${slot}`);
    }
  }
  return problems;
}

function independentTasks(count: number, duration: number): Workload {
  const builder = new GraphBuilder();
  for (let i = 0; i < count; i++) builder.addTask({ key: `t-${i}`, prefix: "t", duration, nbytes: 10 });
  return { name: "independent", description: "", graph: builder.build("independent"), faults: [], cluster: {} };
}

describe("simulated task records: thread slots", () => {
  for (const threads of [1, 2]) {
    it(`${threads}-thread workers: every record is on a thread below ${threads}`, async () => {
      const { report } = await simulate(independentTasks(12, 1), { workers: 1, threads, network: "instant", validate: true });
      expect(report.complete).toBe(true);
      expect(report.taskRecords).toHaveLength(12);
      expect(slotProblems(report.taskRecords, threads)).toEqual([]);
      expect(new Set(report.taskRecords.map((r) => r.thread)).size).toBe(threads);
    });
  }

  it("random task graphs on random clusters never use a slot ≥ nthreads", async () => {
    const graph = fc
      .array(
        fc.record({
          duration: fc.double({ min: 0, max: 3, noNaN: true }),
          nbytes: fc.integer({ min: 0, max: 1e6 }),
          prefix: fc.constantFrom("a", "b", "c"),
          // dependencies among the earlier tasks, by offset back from this one
          deps: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }),
        }),
        { minLength: 1, maxLength: 40 },
      )
      .map((tasks): Workload => {
        const builder = new GraphBuilder();
        tasks.forEach((t, i) => builder.addTask({ key: `${t.prefix}-${i}`, prefix: t.prefix, duration: t.duration, nbytes: t.nbytes }));
        tasks.forEach((t, i) => {
          for (const back of t.deps) if (i - back >= 0) builder.addDependency(i, i - back);
        });
        return { name: "random", description: "", graph: builder.build("random"), faults: [], cluster: {} };
      });
    await fc.assert(
      fc.asyncProperty(
        graph,
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom("instant" as const, "latency-bandwidth" as const),
        async (workload, workers, threads, network) => {
          const { report } = await simulate(workload, { workers, threads, network, validate: true });
          expect(report.complete).toBe(true);
          expect(slotProblems(report.taskRecords, threads)).toEqual([]);
        },
      ),
      { numRuns: 60, seed: 20261201 },
    );
  });
});
