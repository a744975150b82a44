// Closure of the thread-time ledger in simulated reports: per worker, the buckets add up to
// nthreads × the run's length within 1e-9 relative, on every built-in workload and on
// workloads/faulty-shuffle.json (a worker dies); the death's cost is visible (killed work,
// recomputations, dead slots); `validate: true` fails a run that does not close.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { builtInWorkloads, simulate, type SimReport } from "../../src/sim/index.js";
import { threadTimeProblems } from "../../src/sim/report-builder.js";
import { THREAD_TIME_CLOSURE_TOLERANCE } from "../../src/sim/report.js";

const faultyShuffle = JSON.parse(readFileSync(new URL("../../workloads/faulty-shuffle.json", import.meta.url), "utf8")) as Parameters<typeof simulate>[0];

function sum(record: Readonly<Record<string, number>>): number {
  return Object.values(record).reduce((a, b) => a + b, 0);
}

/** Checks closure from the report's own numbers: per-worker buckets, and the `worker` context of `metrics`. */
function expectCloses(report: SimReport): void {
  expect(threadTimeProblems(report)).toEqual([]);
  const lifetime = report.perWorker[0]!.threadTime.lifetime;
  expect(lifetime).toBeGreaterThanOrEqual(report.makespan);
  let capacity = 0;
  for (const worker of report.perWorker) {
    const time = worker.threadTime;
    expect(time.lifetime, worker.address).toBe(lifetime);
    expect(time.capacity).toBe(worker.nthreads * lifetime);
    const total = sum(time.executing) + sum(time.idle);
    expect(Math.abs(total - time.capacity), worker.address).toBeLessThanOrEqual(THREAD_TIME_CLOSURE_TOLERANCE * time.capacity);
    expect(Math.abs(time.total - total)).toBeLessThanOrEqual(1e-12 * time.capacity);
    capacity += time.capacity;
  }
  // the worker context of the summed metrics closes too: its seconds alone are the cluster's thread capacity
  const contextSeconds = report.metrics.filter((m) => m.name[0] === "worker" && m.name.at(-1) === "seconds").reduce((a, m) => a + m.value, 0);
  expect(Math.abs(contextSeconds - capacity)).toBeLessThanOrEqual(THREAD_TIME_CLOSURE_TOLERANCE * capacity);
  // every executing second of a first run that went well is also in the execute context
  for (const worker of report.perWorker) expect(worker.threadTime.executing.running).toBe(0);
}

describe("thread time closes in every simulated report", () => {
  for (const name of Object.keys(builtInWorkloads)) {
    it(`${name} (default size)`, async () => {
      const { report } = await simulate(name, { seed: 2 });
      expect(report.complete).toBe(true);
      expectCloses(report);
      const idle = report.perWorker.reduce((a, w) => a + sum(w.threadTime.idle), 0);
      const executing = report.perWorker.reduce((a, w) => a + sum(w.threadTime.executing), 0);
      expect(executing).toBeGreaterThan(0);
      expect(idle).toBeGreaterThan(0);
    });
  }

  it("faulty-shuffle: the dead worker's slots are dead after its death, its running tasks killed, lost data recomputed", async () => {
    let killedSomewhere = false;
    let recomputedSomewhere = false;
    // several seeds: in some the worker dies with a task running, in some its outputs must be recomputed
    for (let seed = 1; seed <= 8; seed++) {
      const { report } = await simulate(faultyShuffle, { seed });
      expectCloses(report);
      const dead = report.perWorker.filter((w) => w.died);
      expect(dead).toHaveLength(1);
      const death = report.faults.find((f) => f.kind === "worker-death")!;
      const [worker] = dead;
      // dead from the death to the end of the run on every slot
      // (to rounding: sub-nanosecond roundings of task times may be paid from idle time, see src/worker/thread-ledger.ts)
      expect(worker!.threadTime.idle.dead).toBeCloseTo(worker!.nthreads * (worker!.threadTime.lifetime - death.time), 8);
      for (const alive of report.perWorker.filter((w) => !w.died)) expect(alive.threadTime.idle.dead).toBe(0);
      if (worker!.threadTime.executing.killed > 0) {
        killedSomewhere = true;
        expect(report.metrics.some((m) => m.name[0] === "execute" && m.outcome === "killed")).toBe(true);
      }
      // what losing the worker cost the others: the lost outputs computed again
      if (report.perWorker.some((w) => w.threadTime.executing.recompute > 0)) {
        recomputedSomewhere = true;
        expect(report.metrics.some((m) => m.name[0] === "worker" && m.outcome === "recompute")).toBe(true);
      }
    }
    expect([killedSomewhere, recomputedSomewhere]).toEqual([true, true]);
  });

  it("validate: true runs check closure (and pass on a run with a death and pauses)", async () => {
    const { report } = await simulate("spill-pressure", { size: 24, workers: 3, validate: true, faults: [{ kind: "worker-death", worker: 2, at: 1 }] });
    expectCloses(report);
  });

  it("names the worker and the gap of a report that does not close", () => {
    const report = { perWorker: [{ address: "tcp://w", nthreads: 2, threadTime: { lifetime: 1, capacity: 2, executing: { ok: 1 }, idle: { dead: 0.5 }, total: 1.5 } }] } as unknown as SimReport;
    expect(threadTimeProblems(report)).toEqual(["thread time of worker tcp://w does not close: 1.5 s accounted for 2 s of thread capacity (gap -0.5 s)"]);
  });
});
