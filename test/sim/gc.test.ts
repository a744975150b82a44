// CPython's full garbage collections (docs/sim.md, "Overheads": workerGc, schedulerGc): after
// `first` tasks a process stops for `stop` seconds — its loop handles and sends nothing, its GIL
// is held, so a task thread that must take it back waits (a sleep's end, a releasing CPU part's).
// Every figure by hand, without the other overheads.
import { describe, expect, it } from "vitest";
import { BatchedLink } from "../../src/sim/control-plane.js";
import { GcCounter } from "../../src/sim/gc.js";
import { GraphBuilder, NO_OVERHEADS, simulate, validateClusterProfile, SpecError, type SimReport, type Workload } from "../../src/sim/index.js";
import { reportToJson } from "../../src/cli/report-json.js";
import { VirtualClock } from "../../src/worker/index.js";

type Gc = { first: number; stop: number; every?: number } | false;

async function run(workload: Workload, overheads: { workerGc?: Gc; schedulerGc?: Gc }, threads = 3, workers = 1): Promise<SimReport> {
  const cluster = { overheads: { ...NO_OVERHEADS, ...overheads } };
  return (await simulate(workload, { workers, threads, network: "max-min", latency: 0, bandwidth: 1e9, cluster, validate: true, collectSpans: false })).report;
}

const end = (report: SimReport, key: string): number => report.taskRecords.find((t) => t.key === key)!.end;
const start = (report: SimReport, key: string): number => report.taskRecords.find((t) => t.key === key)!.start;

/** q-0 (0.1 s asleep), c-0 (0.3 s of CPU that releases the GIL), s-0 (0.35 s asleep); r-0 (0.1 s) needs q-0. */
function threeRoots(): Workload {
  const b = new GraphBuilder();
  const q = b.addTask({ key: "q-0", prefix: "q", duration: 0.1, nbytes: 1, cpuShare: 0 });
  b.addTask({ key: "c-0", prefix: "c", duration: 0.3, nbytes: 1, cpuShare: 1 });
  b.addTask({ key: "s-0", prefix: "s", duration: 0.35, nbytes: 1, cpuShare: 0 });
  const r = b.addTask({ key: "r-0", prefix: "r", duration: 0.1, nbytes: 1, cpuShare: 0 });
  b.addDependency(r, q);
  return { name: "gc", description: "", graph: b.build("gc"), faults: [], cluster: {} };
}

function chain(n: number): Workload {
  const b = new GraphBuilder();
  let previous = -1;
  for (let i = 0; i < n; i++) {
    const id = b.addTask({ key: `t-${i}`, prefix: "t", duration: 0.1, nbytes: 1, cpuShare: 0 });
    if (previous >= 0) b.addDependency(id, previous);
    previous = id;
  }
  return { name: "chain", description: "", graph: b.build("chain"), faults: [], cluster: {} };
}

describe("a worker's full garbage collection (workerGc)", () => {
  it("after its first task the process stops: the loop handles nothing (the dependent starts after it), a sleep's and a releasing CPU part's ends wait for the lock", async () => {
    const off = await run(threeRoots(), {});
    expect(start(off, "r-0")).toBeCloseTo(0.1, 12);
    expect(end(off, "c-0")).toBeCloseTo(0.3, 12);
    expect(end(off, "s-0")).toBeCloseTo(0.35, 12);
    const on = await run(threeRoots(), { workerGc: { first: 1, stop: 0.5 } });
    // q-0 ends at 0.1: the collection holds the process from 0.1 to 0.6
    expect(end(on, "q-0")).toBeCloseTo(0.1, 12);
    // its done event waits for the loop: the scheduler hears of q-0 at 0.6, r-0 runs 0.6-0.7
    expect(start(on, "r-0")).toBeCloseTo(0.6, 12);
    expect(end(on, "r-0")).toBeCloseTo(0.7, 12);
    // c-0's CPU (it let go of the lock) ends at 0.3, s-0's sleep at 0.35: both take the lock back at 0.6
    expect(end(on, "c-0")).toBeCloseTo(0.6, 12);
    expect(end(on, "s-0")).toBeCloseTo(0.6, 12);
    expect(on.makespan).toBeCloseTo(0.7, 12);
    // the loop's time: the stop is its busy seconds, and the report says how much of them it was
    expect(on.perWorker[0]!.gcSeconds).toBeCloseTo(0.5, 12);
    expect(on.perWorker[0]!.eventLoopSeconds).toBeCloseTo(0.5, 12);
    expect(off.perWorker[0]!.gcSeconds).toBeUndefined();
    expect(on.cluster.overheads.workerGc).toEqual({ first: 1, stop: 0.5 });
  });

  it("only the first unless `every` is set; then every further `every` tasks", async () => {
    // six chained tasks of 0.1 s: one stop after t-0 (0.2 s), or after t-0, t-2 and t-4
    const once = await run(chain(6), { workerGc: { first: 1, stop: 0.2 } }, 1);
    expect(once.makespan).toBeCloseTo(0.8, 12);
    expect(once.perWorker[0]!.gcSeconds).toBeCloseTo(0.2, 12);
    const every = await run(chain(6), { workerGc: { first: 1, stop: 0.2, every: 2 } }, 1);
    expect(every.makespan).toBeCloseTo(1.2, 12);
    expect(every.perWorker[0]!.gcSeconds).toBeCloseTo(0.6, 12);
    expect(start(every, "t-1")).toBeCloseTo(0.3, 12);
    expect(start(every, "t-2")).toBeCloseTo(0.4, 12);
    expect(start(every, "t-3")).toBeCloseTo(0.7, 12);
  });

  it("counts per worker process: a worker that has not reached the count does not stop", async () => {
    // two workers, each one 0.1 s root; first: 2 — neither worker finishes two tasks
    const b = new GraphBuilder();
    b.addTask({ key: "a-0", prefix: "a", duration: 0.1, nbytes: 1, cpuShare: 0 });
    b.addTask({ key: "a-1", prefix: "a", duration: 0.1, nbytes: 1, cpuShare: 0 });
    const report = await run({ name: "two", description: "", graph: b.build("two"), faults: [], cluster: {} }, { workerGc: { first: 2, stop: 1 } }, 1, 2);
    expect(report.perWorker.map((w) => w.tasksExecuted)).toEqual([1, 1]);
    expect(report.perWorker.map((w) => w.gcSeconds)).toEqual([0, 0]);
    expect(report.makespan).toBeCloseTo(0.1, 12);
  });

  it("off (unset, false, or a stop of 0) leaves the run byte-identical", async () => {
    // 400 tasks of 5 ms on 2 workers x 2 threads, the default overheads (a distribution drawn per done event)
    const b = new GraphBuilder();
    for (let i = 0; i < 400; i++) b.addTask({ key: `m-${i}`, prefix: "m", duration: 0.005, nbytes: 1000, cpuShare: 0 });
    const graph = b.build("wide");
    const overheadsOf = (extra: Record<string, unknown>) => ({ workerHandling: { dist: "lognormal" as const, mean: 0.00117, sigma: 1.06 }, ...extra });
    const json = async (overheads: Record<string, unknown>) =>
      reportToJson((await simulate({ name: "wide", description: "", graph, faults: [], cluster: {} }, { seed: 3, workers: 2, threads: 2, cluster: { overheads: overheadsOf(overheads) } })).report);
    const unset = await json({});
    expect(unset).not.toMatch(/gcSeconds|workerGc|schedulerGc/);
    expect(await json({ workerGc: false, schedulerGc: false })).toBe(unset);
    expect(await json({ workerGc: { first: 1, stop: 0 } })).toBe(unset);
    // and one that stops does change it
    expect(await json({ workerGc: { first: 5, stop: 0.05 } })).not.toBe(unset);
  });
});

describe("the scheduler's full garbage collection (schedulerGc)", () => {
  it("after the first task it hears finish its loop stops: nothing is sent, the dependent waits", async () => {
    const off = await run(chain(2), {}, 1);
    expect(start(off, "t-1")).toBeCloseTo(0.1, 12);
    const on = await run(chain(2), { schedulerGc: { first: 1, stop: 0.5 } }, 1);
    expect(start(on, "t-1")).toBeCloseTo(0.6, 12);
    expect(on.cluster.schedulerGcSeconds).toBeCloseTo(0.5, 12);
    expect(on.cluster.schedulerLoopSeconds).toBeCloseTo(0.5, 12);
    expect(off.cluster.schedulerGcSeconds).toBeUndefined();
  });
});

describe("the parts", () => {
  it("GcCounter stops at first, then every further `every` tasks", () => {
    const stops: number[] = [];
    let done = 0;
    const counter = new GcCounter({ first: 3, stop: 0.1, every: 4 }, () => stops.push(done));
    for (done = 1; done <= 12; done++) counter.taskDone();
    expect(stops).toEqual([3, 7, 11]);
    expect(counter.stops).toBe(3);
  });

  it("a BatchedLink whose loop is stopped writes when the stop ends, with everything sent meanwhile", async () => {
    const clock = new VirtualClock({ settle: "microtasks" });
    const arrived: Array<[string, number]> = [];
    const link = new BatchedLink(clock, 0.002, 0.001, (run) => run(), (now) => (now >= 0.01 && now < 0.5 ? 0.5 : 0));
    const send = (label: string, at: number) => clock.setTimer(at, () => link.send(() => arrived.push([label, clock.now()])));
    send("before", 0);
    send("during", 0.02);
    send("also", 0.3);
    send("after", 0.6);
    await clock.runUntilIdle();
    expect(arrived.map(([label]) => label)).toEqual(["before", "during", "also", "after"]);
    expect(arrived[0]![1]).toBeCloseTo(0.001, 12);
    expect(arrived[1]![1]).toBeCloseTo(0.501, 12);
    expect(arrived[2]![1]).toBeCloseTo(0.501, 12);
    expect(arrived[3]![1]).toBeCloseTo(0.601, 12);
  });
});

describe("validation names the field", () => {
  const problem = (overheads: unknown): string => {
    try {
      validateClusterProfile({ overheads }, "cluster");
    } catch (error) {
      if (error instanceof SpecError) return error.message;
      throw error;
    }
    return "";
  };

  it.each([
    [{ workerGc: { first: 0, stop: 0.05 } }, /cluster\.overheads\.workerGc\.first: expected a positive integer/],
    [{ workerGc: { first: 2.5, stop: 0.05 } }, /cluster\.overheads\.workerGc\.first: expected an integer/],
    [{ workerGc: { stop: 0.05 } }, /cluster\.overheads\.workerGc\.first/],
    [{ workerGc: { first: 10, stop: -1 } }, /cluster\.overheads\.workerGc\.stop: expected a number ≥ 0/],
    [{ workerGc: { first: 10, stop: 0.05, every: 0 } }, /cluster\.overheads\.workerGc\.every: expected a positive integer/],
    [{ workerGc: { first: 10, stop: 0.05, often: 3 } }, /cluster\.overheads\.workerGc: .*often/],
    [{ workerGc: 233 }, /cluster\.overheads\.workerGc: expected \{ first: tasks, stop: seconds, every\?: tasks \} or false/],
    [{ schedulerGc: true }, /cluster\.overheads\.schedulerGc: expected \{ first/],
  ])("%j", (overheads, message) => {
    expect(problem(overheads)).toMatch(message);
  });

  it("a term or false is accepted", () => {
    expect(problem({ workerGc: { first: 233, stop: 0.057 }, schedulerGc: false })).toBe("");
    expect(problem({ workerGc: { first: 233, stop: 0.057, every: 500 } })).toBe("");
  });
});
