// Policies in whole simulated runs: selection (options, spec, modules), determinism, the
// report's scheduler fields, and stealing that never loses or duplicates a task.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NO_OVERHEADS, SCHEDULER_POLICY_NAMES, SimulationError, simulate, validateSpec, type SimOptions, type SimReport } from "../../src/sim/index.js";

function completeOnce(report: SimReport): void {
  if (!report.complete) throw new Error(`${report.workload} seed ${report.seed} ${report.scheduler.policy}: ${report.completion}`);
  expect(report.tasks.lost).toBe(0);
  // Without faults every task runs to a result exactly once: a steal moves it, never copies it.
  const ok = new Map<string, number>();
  for (const record of report.taskRecords) if (record.outcome === "ok") ok.set(record.key, (ok.get(record.key) ?? 0) + 1);
  expect(ok.size).toBe(report.tasks.total);
  for (const [key, runs] of ok) if (runs !== 1) throw new Error(`${key} ran ${runs} times under ${report.scheduler.policy}`);
}

describe("choosing the policy", () => {
  it("defaults to dask with stealing, records the policy and its options", async () => {
    const { report } = await simulate("map", { size: 40 });
    expect(report.scheduler).toEqual({ policy: "dask", options: { stealing: true, "stealing-interval": 0.1, amm: true, "amm-interval": 2 }, steals: report.scheduler.steals });
    const off = await simulate("map", { size: 40, scheduler: "dask:stealing=false,worker-saturation=inf" });
    expect(off.report.scheduler.options).toEqual({ stealing: false, "stealing-interval": 0.1, "worker-saturation": "inf", amm: true, "amm-interval": 2 });
  });

  it("takes it from the spec's cluster.scheduler, the run option winning", async () => {
    const spec = validateSpec({ tasks: [{ prefix: "a", count: 12 }], cluster: { workers: 2, scheduler: { name: "round-robin" } } });
    expect((await simulate(spec)).report.scheduler.policy).toBe("round-robin");
    expect((await simulate(spec, { scheduler: "random" })).report.scheduler.policy).toBe("random");
    expect(() => validateSpec({ tasks: [{ prefix: "a" }], cluster: { scheduler: { name: "dask", options: { stealing: "sometimes" } } } })).toThrow(
      'cluster.scheduler: scheduler policy "dask" option stealing: expected true or false, got "sometimes"',
    );
    expect(() => validateSpec({ tasks: [{ prefix: "a" }], cluster: { scheduler: { name: "best" } } })).toThrow(/^cluster\.scheduler: unknown scheduler policy "best"/);
  });

  it("loads a module path relative to the working directory", async () => {
    const { report } = await simulate("shuffle", { size: 150, scheduler: "./examples/earliest-start-policy.ts:transfer-weight=3" });
    expect(report.scheduler).toMatchObject({ policy: "./examples/earliest-start-policy.ts", options: { "transfer-weight": 3 } });
    completeOnce(report);
  });

  it("rejects a bad selection or a failing policy with one line and no half-run report", async () => {
    await expect(simulate("map", { scheduler: "fastest" })).rejects.toThrow(SimulationError);
    await expect(simulate("map", { scheduler: "./examples/none.ts" })).rejects.toThrow(/none\.ts: no such file/);
    const started = performance.now();
    const failing = simulate("shuffle", {
      size: 150,
      // no memory limit: a paused worker would fail the policy's task % 4 first
      memoryLimit: null,
      scheduler: { name: "flaky", create: (context) => ({ decideWorker: (task) => (context.cluster.assignments > 40 ? 99 : task % 4) }) },
    });
    await expect(failing).rejects.toThrow(/^scheduler policy "flaky": decideWorker\(task "shuffle-[a-z]+-[\d-]+", "ready"\): returned 99, which is not a worker id \(0–3\)/);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("every policy", () => {
  for (const name of SCHEDULER_POLICY_NAMES) {
    it(`${name}: finishes each task once, and the same seed gives the same report`, async () => {
      const options: SimOptions = { size: 160, seed: 11, workers: 3, scheduler: name, maxTaskRecords: 1e6 };
      const one = await simulate("random-dag", options);
      const two = await simulate("random-dag", options);
      completeOnce(one.report);
      expect(JSON.stringify(two.report)).toBe(JSON.stringify(one.report));
      const b = one.report.balance;
      expect(b.tasks).toBeGreaterThanOrEqual(1);
      expect(b.busy).toBeGreaterThanOrEqual(1);
    });
  }

  it("random: another seed, other placements", async () => {
    const placements = async (seed: number) =>
      (await simulate("map", { size: 60, seed, scheduler: "random" })).report.taskRecords.map((r) => r.worker).join();
    expect(await placements(1)).not.toBe(await placements(2));
  });
});

describe("work stealing in whole runs", () => {
  it("moves tasks, records every request, and the counts agree with the records", async () => {
    // seed 2: seed 1 confirms none since the scheduler reads its batches in arrival order (7 requests refused, 1 aborted)
    const { report } = await simulate("shuffle", { workers: 2, seed: 2, maxTaskRecords: 1e6 });
    completeOnce(report);
    const { steals } = report.scheduler;
    expect(steals.confirmed).toBeGreaterThan(0);
    const records = report.steals ?? [];
    expect(records).toHaveLength(steals.requested);
    expect(records.filter((s) => s.outcome === "confirmed")).toHaveLength(steals.confirmed);
    expect(records.filter((s) => s.outcome === "rejected")).toHaveLength(steals.rejected);
    // A confirmed steal's task ran on its thief (it may be stolen again later, so: the last one).
    const last = new Map(records.filter((s) => s.outcome === "confirmed").map((s) => [s.key, s.thief]));
    const ranOn = new Map(report.taskRecords.filter((r) => r.outcome === "ok").map((r) => [r.key, r.worker]));
    for (const [key, thief] of last) expect(ranOn.get(key)).toBe(thief);
  });

  it("confirms at least as many steals as the victims refuse (default shuffle, 8 workers, seeds 1–6)", async () => {
    // balance() tries a victim's tasks in hash order, as stealing.py's set iteration does. In
    // the order they were assigned it asked for each victim's oldest task first, which its
    // threads were running: seeds 1–6 then had 59 steals confirmed and 79 refused. Control
    // messages instant, as when that was measured: with the default overheads (dask's message
    // and event-loop costs, docs/sim.md) seeds 1–6 confirm 57 and refuse 63.
    let confirmed = 0;
    let rejected = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const { steals } = (await simulate("shuffle", { workers: 8, seed, cluster: { overheads: NO_OVERHEADS } })).report.scheduler;
      confirmed += steals.confirmed;
      rejected += steals.rejected;
    }
    expect(confirmed).toBeGreaterThanOrEqual(rejected);
  });

  it("never loses or duplicates a task, over random graphs, networks and policies", async () => {
    const workloads = { "random-dag": 90, shuffle: 200, "tree-reduce": 40, map: 50, chain: 10, "spill-pressure": 12 } as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(workloads) as Array<keyof typeof workloads>)),
        fc.constantFrom("dask", "dask:stealing-interval=0.02", "dask:worker-saturation=inf", ...SCHEDULER_POLICY_NAMES),
        fc.constantFrom("instant" as const, "latency-bandwidth" as const, "max-min" as const),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        async (workload, scheduler, network, workers, seed) => {
          // no nanny terminating a worker whose memory runs full: that would be a fault, and a task would run twice
          const cluster = { memory: { terminate: false as const } };
          const { report } = await simulate(workload, { size: workloads[workload], scheduler, network, workers, seed, validate: true, maxTaskRecords: 1e6, cluster });
          completeOnce(report);
        },
      ),
      { numRuns: 40, seed: 20261201 },
    );
  });
});
