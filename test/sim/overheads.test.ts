// The overheads (docs/sim.md, "Overheads"), each alone and computed by hand: message latency,
// the BatchedSend windows, the worker's handling cost (which is the `other` time of its
// execute and gather-dep roots) and the scheduler's decision cost.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchedLink, GraphBuilder, NO_OVERHEADS, SerialLoop, simulate, type Overheads, type SimReport, type Workload } from "../../src/sim/index.js";
import { VirtualClock } from "../../src/worker/clock.js";

function chain(n: number, duration: number, nbytes = 10): Workload {
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) {
    const id = builder.addTask({ key: `link-${i}`, prefix: "link", duration, nbytes });
    if (i > 0) builder.addDependency(id, id - 1);
  }
  return { name: "chain", description: "", graph: builder.build("chain"), faults: [], cluster: {} };
}

function independent(n: number, duration: number, name = "map"): Workload {
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) builder.addTask({ key: `${name}-${i}`, prefix: name, duration, nbytes: 10 });
  return { name, description: "", graph: builder.build(name), faults: [], cluster: {} };
}

function only(overheads: Partial<Overheads>) {
  return { overheads: { ...NO_OVERHEADS, ...overheads } };
}

function metric(report: SimReport, ...name: string[]): number {
  return report.metrics.filter((m) => m.name.join("/") === name.join("/")).reduce((sum, m) => sum + m.value, 0);
}

describe("message latency", () => {
  it("a chain of n tasks on one worker takes n × duration + (n − 1) × 2L: every hop is a round trip to the scheduler", async () => {
    const L = 0.003;
    const n = 12;
    const { report } = await simulate(chain(n, 0.1), { workers: 1, threads: 1, network: "instant", cluster: only({ messageLatency: L }), validate: true });
    expect(report.complete).toBe(true);
    expect(report.makespan).toBeCloseTo(n * 0.1 + (n - 1) * 2 * L, 12);
    // The first task starts one latency after the run begins (its compute-task travels too).
    expect(report.taskRecords[0]!.start).toBeCloseTo(L, 12);
    const starts = report.taskRecords.map((r) => r.start);
    for (let i = 1; i < n; i++) expect(starts[i]! - report.taskRecords[i - 1]!.end).toBeCloseTo(2 * L, 12);
  });

  it("does not touch a worker's own queue: tasks already there start as soon as a thread frees", async () => {
    // Root-ish queuing sends ceil(1.1 × 1) = 2 tasks to the single thread: the second starts
    // right after the first, the third waits for the round trip of the first's task-finished.
    const L = 0.01;
    const { report } = await simulate(independent(30, 0.1), { workers: 1, threads: 1, network: "instant", cluster: only({ messageLatency: L }) });
    const records = [...report.taskRecords].sort((a, b) => a.start - b.start);
    const gaps = records.slice(1).map((r, i) => r.start - records[i]!.end);
    for (const gap of gaps) expect(gap).toBeCloseTo(0, 12);
  });
});

describe("the worker's handling cost", () => {
  it("is the `other` time of every execute root: exactly the cost per done event", async () => {
    const h = 0.002;
    const n = 20;
    const { report } = await simulate(independent(n, 0.05), { workers: 1, threads: 1, network: "instant", cluster: only({ workerHandling: h }) });
    expect(report.complete).toBe(true);
    const other = metric(report, "execute", "map", "other", "seconds");
    // (span durations carry float residue of a few nanoseconds: 7 digits)
    expect(other).toBeCloseTo(n * h, 7);
    expect(metric(report, "execute", "map", "thread-cpu", "seconds")).toBeCloseTo(n * 0.05, 7);
  });

  it("is zero other time without it (the state machine's own time is instant in a simulation)", async () => {
    const { report } = await simulate(independent(10, 0.05), { workers: 1, threads: 1, network: "instant", cluster: only({}) });
    expect(metric(report, "execute", "map", "other", "seconds")).toBe(0);
  });

  it("delays a thread's next task by the cost of the done event that starts it", async () => {
    const h = 0.004;
    const { report } = await simulate(independent(10, 0.1), { workers: 1, threads: 1, network: "instant", cluster: only({ workerHandling: h }) });
    const records = [...report.taskRecords].sort((a, b) => a.start - b.start);
    // Messages from the scheduler cost workerMessage (0 here): the first task starts at once;
    // then one done event per gap (the next task is already on the worker).
    expect(records[0]!.start).toBe(0);
    for (let i = 1; i < records.length; i++) expect(records[i]!.start - records[i - 1]!.end).toBeCloseTo(h, 12);
  });

  it("is paid one stimulus at a time: two done events at once are handled one after the other", async () => {
    const h = 0.01;
    const { report } = await simulate(independent(2, 0.1), { workers: 1, threads: 2, network: "instant", cluster: only({ workerHandling: h }) });
    // Both tasks start at 0 and end together; their done events are done after h and 2h:
    // other = h + 2h in all.
    expect(metric(report, "execute", "map", "other", "seconds")).toBeCloseTo(3 * h, 7);
  });

  it("is the `other` time of gather-dep roots too", async () => {
    const h = 0.003;
    const builder = new GraphBuilder();
    const a = builder.addTask({ key: "a-0", prefix: "a", duration: 0.1, nbytes: 1e6 });
    const b = builder.addTask({ key: "b-0", prefix: "b", duration: 0.1, nbytes: 2e6 });
    const c = builder.addTask({ key: "c-0", prefix: "c", duration: 0.1, nbytes: 1 });
    builder.addDependency(c, a);
    builder.addDependency(c, b);
    const workload: Workload = { name: "join", description: "", graph: builder.build("join"), faults: [], cluster: {} };
    const { report } = await simulate(workload, { workers: 2, threads: 1, network: "latency-bandwidth", latency: 0.001, bandwidth: 1e9, cluster: only({ workerHandling: h }) });
    expect(report.transfer.count).toBe(1);
    const gatherOther = report.metrics.filter((m) => m.name[0] === "gather-dep" && m.name.at(-2) === "other").reduce((s, m) => s + m.value, 0);
    expect(gatherOther).toBeCloseTo(h, 7);
  });

  it("is busy while it spills: a disk write on the loop delays the next done event by its service time", async () => {
    // One thread, three tasks of 0.1 s keeping 10 MB, 55 MB of unmanaged memory against a 100 MB
    // limit: the second task's done event crosses 70 % and spills two values (20 MB, 0.2 s of disk)
    // on the loop; the third task's done event, 0.1 s later, waits the other 0.1 s for it.
    const builder = new GraphBuilder();
    for (let i = 0; i < 3; i++) builder.addTask({ key: `keep-${i}`, prefix: "keep", duration: 0.1, nbytes: 10e6 });
    const workload: Workload = { name: "keep", description: "", graph: builder.build("keep"), faults: [], cluster: {} };
    const h = 0.01;
    const run = (workerHandling: number) =>
      simulate(workload, {
        workers: 1, threads: 1, network: "instant", memoryLimit: 100e6, disk: { bandwidth: 100e6, latency: 0 },
        cluster: { overheads: { ...NO_OVERHEADS, workerHandling }, memory: { monitorInterval: 0, unmanaged: 55e6, unmanagedPerTask: 0 } },
      });
    const { report } = await run(h);
    expect(report.spill.bytesWritten).toBe(20e6);
    expect(metric(report, "execute", "keep", "other", "seconds")).toBeCloseTo(3 * h + 0.1, 6);
    expect(report.perWorker[0]!.eventLoopSeconds).toBeCloseTo(3 * h + 0.2, 9);
    // Without an event-loop model the disk costs no loop time.
    expect(metric((await run(0)).report, "execute", "keep", "other", "seconds")).toBe(0);
  });

  it("starts a task once the loop is through what was queued before it: the spill of the done event that starts it comes first", async () => {
    // One thread, 35 MB per task, a 100 MB limit: the second task's done event puts managed
    // memory at 70 MB > 60 % and the SpillBuffer writes the first value (0.35 s) inside the
    // handling, as dask's data[key] = value does; the third task, which that handling starts,
    // starts after the write (dask: its coroutine runs after the handler returns).
    const builder = new GraphBuilder();
    for (let i = 0; i < 3; i++) builder.addTask({ key: `keep-${i}`, prefix: "keep", duration: 0.1, nbytes: 35e6 });
    const workload: Workload = { name: "keep", description: "", graph: builder.build("keep"), faults: [], cluster: {} };
    const h = 0.01;
    const { report } = await simulate(workload, {
      workers: 1, threads: 1, network: "instant", memoryLimit: 100e6, disk: { bandwidth: 100e6, latency: 0 },
      cluster: { overheads: { ...NO_OVERHEADS, workerHandling: h }, memory: { monitorInterval: 0, unmanaged: 0, unmanagedPerTask: 0 } },
    });
    expect(report.spill.bytesWritten).toBe(70e6); // and the third's done event spills the second
    const starts = report.taskRecords.map((r) => r.start);
    expect(starts[1]).toBeCloseTo(0.1 + h, 9);
    expect(starts[2]).toBeCloseTo(0.2 + 2 * h + 0.35, 9);
    // the wait is inside the third task's execute root: its `other` time
    expect(metric(report, "execute", "keep", "other", "seconds")).toBeCloseTo(3 * h + 0.35, 6);
  });
});

describe("BatchedSend windows", () => {
  it("send at once after a quiet interval, and batch what comes within one", async () => {
    const clock = new VirtualClock();
    const link = new BatchedLink(clock, 0.005, 0.001);
    const arrivals: Array<[string, number]> = [];
    const send = (name: string) => link.send(() => arrivals.push([name, clock.now()]));
    clock.setTimer(0, () => send("a"));
    clock.setTimer(0.002, () => send("b"));
    clock.setTimer(0.004, () => send("c"));
    clock.setTimer(0.02, () => send("d"));
    await clock.run();
    // a goes at 0 (arrives 0.001); b and c wait for the window to close at 0.005 (arrive 0.006);
    // d comes after a quiet interval and goes at once.
    expect(arrivals.map(([name, t]) => [name, Math.round(t * 1e6) / 1e6])).toEqual([
      ["a", 0.001],
      ["b", 0.006],
      ["c", 0.006],
      ["d", 0.021],
    ]);
  });

  it("on a chain of zero-length tasks: every hop waits for both windows", async () => {
    // Worker → scheduler 2 ms, scheduler → worker 5 ms, no latency: task-finished of link i
    // waits out the worker's window opened by link i-1's, and the next compute-task the
    // scheduler's window — each hop takes max of the two, 5 ms, after the first ones.
    const { report } = await simulate(chain(8, 0), { workers: 1, threads: 1, network: "instant", cluster: only({ schedulerBatch: 0.005, workerBatch: 0.002 }) });
    const starts = report.taskRecords.map((r) => r.start);
    const hops = starts.slice(1).map((t, i) => Math.round((t - starts[i]!) * 1e6) / 1e6);
    expect(hops.slice(1)).toEqual(Array(hops.length - 1).fill(0.005));
  });

  it("property: arrivals keep the order of sends, and none is earlier than its send plus the latency", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.double({ min: 0, max: 0.05, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0, max: 0.01, noNaN: true }),
        fc.double({ min: 0, max: 0.005, noNaN: true }),
        async (times, interval, latency) => {
          const clock = new VirtualClock();
          const link = new BatchedLink(clock, interval, latency);
          const sorted = [...times].sort((a, b) => a - b);
          const arrived: Array<{ sent: number; at: number; index: number }> = [];
          sorted.forEach((t, index) => clock.setTimer(t, () => link.send(() => arrived.push({ sent: t, at: clock.now(), index }))));
          await clock.run();
          expect(arrived.map((a) => a.index)).toEqual(sorted.map((_, i) => i));
          for (const a of arrived) {
            expect(a.at).toBeGreaterThanOrEqual(a.sent + latency - 1e-12);
            expect(a.at).toBeLessThanOrEqual(a.sent + interval + latency + 1e-12);
          }
        },
      ),
      { numRuns: 60, seed: 15 },
    );
  });
});

describe("the scheduler's decision cost", () => {
  it("serialises placements: k tasks handed out at once are decided s apart, and leave together (send_all)", async () => {
    // dask's update_graph decides all four, then send_all queues each worker's batch; they are
    // written once the handler returns. (Each batch leaving after its own decision started
    // worker 0 first, s before worker 1, every time.)
    const s = 0.01;
    const { report } = await simulate(independent(4, 1), { workers: 4, threads: 1, network: "instant", cluster: only({ schedulerDecision: s }) });
    expect(new Set(report.taskRecords.map((r) => r.worker)).size).toBe(4);
    for (const record of report.taskRecords) expect(record.start).toBeCloseTo(4 * s, 12);
  });

  it("reads the batches that came while it was busy one at a time, in arrival order, each sent before the next is read", async () => {
    // a-0 (0.1 s) and b-0 (0.12 s) land on w0, c-0 (0.105 s) on w1; all leave at 0.03 (three
    // decisions). a-0 ends at 0.13 and makes x-0..x-2 ready on w0: the loop decides them until
    // 0.16. c-0's task-finished (w1) comes at 0.135, b-0's (w0) at 0.15, both while it is busy.
    // dask handles c-0's batch first and writes z-0 (0.17) before it reads b-0's and writes y-0
    // (0.18). Read together when the loop came free, they left in worker order: y-0 first.
    const builder = new GraphBuilder();
    const a = builder.addTask({ key: "a-0", prefix: "a", duration: 0.1, nbytes: 10 });
    const b = builder.addTask({ key: "b-0", prefix: "b", duration: 0.12, nbytes: 10 });
    const c = builder.addTask({ key: "c-0", prefix: "c", duration: 0.105, nbytes: 10 });
    for (let i = 0; i < 3; i++) builder.addDependency(builder.addTask({ key: `x-${i}`, prefix: "x", duration: 1, nbytes: 10 }), a);
    builder.addDependency(builder.addTask({ key: "y-0", prefix: "y", duration: 0.1, nbytes: 10 }), b);
    builder.addDependency(builder.addTask({ key: "z-0", prefix: "z", duration: 0.1, nbytes: 10 }), c);
    const workload: Workload = { name: "arrival", description: "", graph: builder.build("arrival"), faults: [], cluster: {} };
    const { report } = await simulate(workload, { workers: 2, threads: 4, network: "instant", cluster: only({ schedulerDecision: 0.01 }) });
    const record = (key: string) => report.taskRecords.find((r) => r.key === key)!;
    const [w0, w1] = [record("a-0").worker, record("c-0").worker];
    expect(w0 < w1).toBe(true); // address order: w0 is flushed first
    expect([record("b-0").worker, record("x-0").worker, record("y-0").worker, record("z-0").worker]).toEqual([w0, w0, w0, w1]);
    expect(record("z-0").start).toBeCloseTo(0.17, 12);
    expect(record("y-0").start).toBeCloseTo(0.18, 12);
  });

  it("costs schedulerMessage per batch it reads or writes: a chain hop pays it twice", async () => {
    const c = 0.01;
    const n = 5;
    const { report } = await simulate(chain(n, 0.1), { workers: 1, threads: 1, network: "instant", cluster: only({ schedulerMessage: c }) });
    const records = report.taskRecords;
    // the first batch is written (c); every hop reads a task-finished batch and writes the next compute-task
    expect(records[0]!.start).toBeCloseTo(c, 12);
    for (let i = 1; i < n; i++) expect(records[i]!.start - records[i - 1]!.end).toBeCloseTo(2 * c, 12);
  });

  it("decides the tasks of one batch one after the other, and writes the batch once", async () => {
    // 4 tasks for one worker with 4 threads, all sent in one batch: 4 decisions and one write
    const { report } = await simulate(independent(4, 1), { workers: 1, threads: 4, network: "instant", cluster: only({ schedulerDecision: 0.01, schedulerMessage: 0.005 }) });
    for (const record of report.taskRecords) expect(record.start).toBeCloseTo(0.045, 12);
    expect(report.cluster.schedulerLoopSeconds).toBeCloseTo(0.045 + 4 * 0.005, 12);
  });

  it("a serial loop books work in arrival order; work that costs nothing waits its turn", () => {
    const clock = new VirtualClock();
    const loop = new SerialLoop(clock, 0.5);
    expect(loop.handlingDelay()).toBe(0.5);
    expect(loop.reserve(0.25)).toBe(0.75);
    expect(loop.reserve(0)).toBe(0.75);
    expect(loop.busySeconds).toBe(0.75);
  });
});

describe("the worker's cost per scheduler message", () => {
  it("delays what a batch starts by its ops: a chain hop is 2 messages (free-keys, compute-task) but the first", async () => {
    const m = 0.004;
    const n = 6;
    const { report } = await simulate(chain(n, 0.1), { workers: 1, threads: 1, network: "instant", cluster: only({ workerMessage: m }) });
    const records = report.taskRecords;
    expect(records[0]!.start).toBeCloseTo(m, 12);
    // link-1's batch is its compute-task alone (link-0 has no dependency to free); later ones carry the free of the link before.
    expect(records[1]!.start - records[0]!.end).toBeCloseTo(m, 12);
    for (let i = 2; i < n; i++) expect(records[i]!.start - records[i - 1]!.end).toBeCloseTo(2 * m, 12);
  });
});

describe("a task's overrun", () => {
  function sleeping(n: number, duration: number, cpuShare: number): Workload {
    const builder = new GraphBuilder();
    for (let i = 0; i < n; i++) {
      const id = builder.addTask({ key: `s-${i}`, prefix: "s", duration, nbytes: 10, cpuShare });
      if (i > 0) builder.addDependency(id, id - 1);
    }
    return { name: "sleeping", description: "", graph: builder.build("sleeping"), faults: [], cluster: {} };
  }

  it("a chain of sleeping tasks takes n × duration + its overruns: each ≥ 0, exponential with taskOverrun as mean, thread-noncpu time", async () => {
    const o = 0.0005;
    const n = 2000;
    const d = 0.005;
    const { report } = await simulate(sleeping(n, d, 0), { workers: 1, threads: 1, network: "instant", cluster: only({ taskOverrun: o }), validate: true, seed: 7 });
    const overruns = report.taskRecords.map((r) => r.end - r.start - d);
    for (const x of overruns) expect(x).toBeGreaterThanOrEqual(-1e-9);
    const total = overruns.reduce((a, b) => a + b, 0);
    expect(report.makespan).toBeCloseTo(n * d + total, 9);
    // 2000 draws of an exponential: the mean within 3 standard errors (o / √n each), the median near o ln 2.
    expect(Math.abs(total / n - o)).toBeLessThan((3 * o) / Math.sqrt(n));
    const sorted = [...overruns].sort((a, b) => a - b);
    expect(sorted[n / 2]! / (o * Math.LN2)).toBeGreaterThan(0.85);
    expect(sorted[n / 2]! / (o * Math.LN2)).toBeLessThan(1.15);
    expect(metric(report, "execute", "s", "thread-noncpu", "seconds")).toBeCloseTo(n * d + total, 6);
    // The same seed draws the same overruns.
    const again = await simulate(sleeping(n, d, 0), { workers: 1, threads: 1, network: "instant", cluster: only({ taskOverrun: o }), seed: 7 });
    expect(again.report.makespan).toBe(report.makespan);
  });

  it("only the part that sleeps wakes late: CPU work and zero-length tasks take their own time", async () => {
    const o = 0.001;
    const cpu = await simulate(sleeping(4, 0.01, 1), { workers: 1, threads: 1, network: "instant", cluster: only({ taskOverrun: o }) });
    expect(cpu.report.makespan).toBeCloseTo(4 * 0.01, 12);
    const half = await simulate(sleeping(4, 0.01, 0.5), { workers: 1, threads: 1, network: "instant", cluster: only({ taskOverrun: o }) });
    expect(half.report.makespan).toBeGreaterThan(4 * 0.01);
    const zero = await simulate(sleeping(4, 0, 0), { workers: 1, threads: 1, network: "instant", cluster: only({ taskOverrun: o }) });
    expect(zero.report.makespan).toBe(0);
    expect(zero.report.cluster.overheads.taskOverrun).toBe(o);
    const none = await simulate(sleeping(4, 0.01, 0), { workers: 1, threads: 1, network: "instant", cluster: only({}) });
    expect(none.report.makespan).toBeCloseTo(4 * 0.01, 12);
  });
});
