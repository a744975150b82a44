// Tasks that hold the GIL (tasks[].gil, src/sim/gil.ts; docs/sim.md, "Tasks that hold the GIL"),
// computed by hand: the GIL-holding CPU parts of one worker share its lock as a fluid
// processor-sharing queue (n holders each at 1/n, the ends recomputed when one comes or goes);
// parts that release it run in parallel as before; two workers do not share a lock; the wait
// is the part's thread-noncpu and the worker's gilWaitSeconds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, simulate, validateSpec, workloadFromSpec, type SimReport, type Workload } from "../../src/sim/index.js";
import { SimulatedExecutor, validateTaskModel } from "../../src/sim/simulated-executor.js";
import { Span } from "../../src/spans/index.js";
import { Gil } from "../../src/sim/gil.js";
import { VirtualClock } from "../../src/worker/index.js";

interface TaskShape {
  readonly key: string;
  readonly duration: number;
  readonly cpuShare?: number;
  readonly gil?: boolean;
  readonly after?: string;
}

function workload(tasks: readonly TaskShape[]): Workload {
  const builder = new GraphBuilder();
  for (const t of tasks) builder.addTask({ key: t.key, prefix: t.key.split("-")[0]!, duration: t.duration, nbytes: 10, cpuShare: t.cpuShare ?? 1, gil: t.gil ?? false });
  for (const t of tasks) if (t.after !== undefined) builder.addDependency(builder.idOf(t.key)!, builder.idOf(t.after)!);
  return { name: "gil", description: "", graph: builder.build("gil"), faults: [], cluster: {} };
}

async function run(tasks: readonly TaskShape[], workers: number, threads: number, host?: { cores: number; load: number }): Promise<SimReport> {
  const cluster = { overheads: NO_OVERHEADS, ...(host === undefined ? {} : { host: { ...host, schedulerHost: null } }) };
  return (await simulate(workload(tasks), { workers, threads, network: "instant", cluster, validate: true })).report;
}

function ends(report: SimReport): Map<string, number> {
  return new Map(report.taskRecords.map((r) => [r.key, r.end]));
}

function metric(report: SimReport, ...name: string[]): number {
  return report.metrics.filter((m) => m.name.join("/") === name.join("/")).reduce((sum, m) => sum + m.value, 0);
}

const many = (n: number, shape: Omit<TaskShape, "key">, prefix = "py"): TaskShape[] => Array.from({ length: n }, (_, i) => ({ key: `${prefix}-${i}`, ...shape }));

describe("the GIL of a worker process", () => {
  it("4 GIL-holding 1 s parts on a 4-thread worker all end at 4 s (fluid: each at 1/4); releasing ones end at 1 s", async () => {
    const held = await run(many(4, { duration: 1, gil: true }), 1, 4);
    expect([...ends(held).values()]).toEqual([4, 4, 4, 4]);
    expect(held.makespan).toBe(4);
    // dask's thread_time counts 1 s of each; the other 3 s are the wait, as thread-noncpu.
    expect(metric(held, "execute", "py", "thread-cpu", "seconds")).toBeCloseTo(4, 12);
    expect(metric(held, "execute", "py", "thread-noncpu", "seconds")).toBeCloseTo(12, 12);
    expect(held.perWorker[0]!.gilWaitSeconds).toBeCloseTo(12, 12);
    const released = await run(many(4, { duration: 1 }), 1, 4);
    expect([...ends(released).values()]).toEqual([1, 1, 1, 1]);
    expect(released.perWorker[0]!.gilWaitSeconds).toBeUndefined();
  });

  it("two workers do not share a lock: 4 GIL-holding 1 s parts on 2 workers x 2 threads end at 2 s", async () => {
    const report = await run(many(4, { duration: 1, gil: true }), 2, 2);
    expect(report.perWorker.map((w) => w.tasksExecuted)).toEqual([2, 2]);
    expect([...ends(report).values()]).toEqual([2, 2, 2, 2]);
    expect(report.perWorker.map((w) => w.gilWaitSeconds)).toEqual([2, 2]);
  });

  it("mixed: parts that release the lock do not wait for it; only the CPU part holds it", async () => {
    // py: 1 s of CPU each, sharing the lock (2 s); np: released (1 s); half: 0.5 s CPU under the lock, then 0.5 s asleep.
    const report = await run([...many(2, { duration: 1, gil: true }), ...many(1, { duration: 1 }, "np"), ...many(1, { duration: 1, cpuShare: 0.5, gil: true }, "half")], 1, 4);
    const end = ends(report);
    // Three holders from 0: half's 0.5 s CPU ends at 1.5 s, then its 0.5 s of sleep (2 s); the py parts have 0.5 s left at 1.5 s, alone two: 2.5 s.
    expect(end.get("half-0")).toBeCloseTo(2, 12);
    expect(end.get("py-0")).toBeCloseTo(2.5, 12);
    expect(end.get("py-1")).toBeCloseTo(2.5, 12);
    expect(end.get("np-0")).toBe(1);
  });

  it("a holder that comes later slows one already running: the ends are recomputed (not fixed when a part starts)", async () => {
    // c holds the lock from 0; b (1 s) comes at 0.5 s, after a's sleep. Alone c did 0.5 s; both at 1/2 until c ends at 1.5 s; b's last 0.5 s alone: 2 s.
    const report = await run([{ key: "c-0", duration: 1, gil: true }, { key: "a-0", duration: 0.5, cpuShare: 0 }, { key: "b-0", duration: 1, gil: true, after: "a-0" }], 1, 2);
    const end = ends(report);
    expect(end.get("c-0")).toBeCloseTo(1.5, 12);
    expect(end.get("b-0")).toBeCloseTo(2, 12);
    expect(report.perWorker[0]!.gilWaitSeconds).toBeCloseTo(1, 12);
  });

  it("with the host model, the lock is one thread of the host: 4 holders on 2 cores beside 2 other jobs run at 1/4 of 2/3 of a core", async () => {
    // Runnable on the host: the lock's thread and the load of 2 (the loops are idle): share min(1, 2 / 3).
    const report = await run(many(4, { duration: 1, gil: true }), 1, 4, { cores: 2, load: 2 });
    for (const end of ends(report).values()) expect(end).toBeCloseTo(6, 12);
    expect(report.cluster.host!.coreWaitSeconds.tasks).toBe(0);
    expect(report.perWorker[0]!.gilWaitSeconds).toBeCloseTo(20, 12);
  });

  it("parts started together end as processor sharing says: the k-th shortest at Σ of the shorter ones + (n − k + 1) × its own; more holders never end a part earlier", async () => {
    const shape = fc.array(fc.record({ ms: fc.integer({ min: 1, max: 2000 }), gil: fc.boolean() }), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(shape, fc.nat(5), async (tasks, extra) => {
        const shapes = tasks.map((t, i) => ({ key: `t-${i}`, duration: t.ms / 1000, gil: t.gil }));
        const report = await run(shapes, 1, shapes.length);
        const end = ends(report);
        const held = shapes.filter((s) => s.gil).sort((a, b) => a.duration - b.duration);
        let before = 0;
        held.forEach((s, k) => {
          expect(end.get(s.key)).toBeCloseTo(before + (held.length - k) * s.duration, 9);
          before += s.duration;
        });
        for (const s of shapes) if (!s.gil) expect(end.get(s.key)).toBe(s.duration);
        // One more holder (task `extra`, if it released the lock): no part ends earlier.
        const i = extra % shapes.length;
        const more = shapes.map((s, j) => (j === i ? { ...s, gil: true } : s));
        const moreEnds = ends(await run(more, 1, shapes.length));
        for (const s of shapes) expect(moreEnds.get(s.key)!).toBeGreaterThanOrEqual(end.get(s.key)! - 1e-12);
      }),
      { numRuns: 40 },
    );
  });

  it("gil: false everywhere is byte-identical to a spec without the field", async () => {
    const groups = fc.array(fc.record({ count: fc.integer({ min: 1, max: 6 }), cpu: fc.constantFrom(0, 0.5, 1), duration: fc.constantFrom(0.05, 0.2, 1) }), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(groups, fc.integer({ min: 1, max: 3 }), async (gs, threads) => {
        const tasks = gs.map((g, i) => ({ prefix: `g_${"abc"[i]}`, ...g, ...(i > 0 ? { dependsOn: { pattern: "all-to-all", on: `g_${"abc"[i - 1]}` } } : {}) }));
        const report = async (raw: object[]) => JSON.stringify((await simulate(workloadFromSpec(validateSpec({ tasks: raw }), 1), { workers: 2, threads })).report);
        expect(await report(tasks.map((t) => ({ ...t, gil: false })))).toBe(await report(tasks));
      }),
      { numRuns: 15 },
    );
  });

  it("a task model's gil must be a boolean", () => {
    expect(() => validateTaskModel({ durations: { "thread-cpu": 1 }, outputBytes: 0, gil: "yes" }, "py-0")).toThrow('task model of "py-0": gil must be a boolean, got string "yes"');
    expect(validateTaskModel({ durations: { "thread-cpu": 1 }, outputBytes: 0, gil: true }, "py-0").gil).toBe(true);
  });

  it("a holder that aborts leaves the lock: the others speed up from then, its own promise rejects with the reason", async () => {
    const clock = new VirtualClock({ settle: "microtasks" });
    const gil = new Gil(clock);
    const stop = new AbortController();
    const ended: Record<string, number | string> = {};
    const a = gil.run(1, new AbortController().signal).then(() => (ended.a = clock.now()));
    const b = gil.run(1, stop.signal).then(
      () => (ended.b = clock.now()),
      (reason: unknown) => (ended.b = `aborted at ${clock.now()}: ${String(reason)}`),
    );
    // Both at 1/2 until 1 s (a has 0.5 s left), then a alone: 1.5 s.
    clock.setTimer(1, () => stop.abort("released"));
    await clock.runUntilIdle();
    await Promise.all([a, b]);
    expect(ended).toEqual({ a: 1.5, b: "aborted at 1: released" });
    expect(gil.holding).toBe(0);
    // a waited 0.5 s; b ran 0.5 s of CPU in its 1 s: 0.5 s.
    expect(gil.waitSeconds).toBeCloseTo(1, 12);
  });

  it("a part cancelled while it shared the lock shows the CPU it got as thread-cpu, the rest as thread-noncpu", async () => {
    const clock = new VirtualClock({ settle: "microtasks" });
    const gil = new Gil(clock);
    const executor = new SimulatedExecutor(undefined, (seconds, signal, onEnd) => gil.run(seconds, signal, onEnd));
    const model = { durations: { "thread-cpu": 1 }, outputBytes: 0, gil: true };
    const spans = [0, 1].map(() => new Span(["execute", "py"], { clock }).start(0));
    const stop = new AbortController();
    const runs = [new AbortController().signal, stop.signal].map((signal, i) =>
      executor.execute({ key: `py-${i}`, runSpec: model } as Parameters<SimulatedExecutor["execute"]>[0], { span: spans[i]!, clock, signal }).catch(() => "aborted"),
    );
    // Both at 1/2 until 1 s: the cancelled one ran 0.5 s of CPU in its 1 s on the thread.
    clock.setTimer(1, () => stop.abort("released"));
    await clock.runUntilIdle();
    expect(await runs[1]).toBe("aborted");
    await runs[0];
    const parts = (span: Span): Record<string, number> =>
      Object.fromEntries(span.end().toRecord().children.map((c) => [c.name.join("/"), (c.endTime ?? 0) - c.startTime]));
    expect(parts(spans[1]!)).toEqual({ "thread-cpu": 0.5, "thread-noncpu": 0.5 });
    expect(parts(spans[0]!)).toEqual({ "thread-cpu": 1, "thread-noncpu": 0.5 });
  });

  it("a lock of the embedder's own that never calls onEnd: the part's CPU seconds come first, as before onEnd existed", async () => {
    const clock = new VirtualClock({ settle: "microtasks" });
    // Its own lock: every part takes twice its CPU seconds, and says nothing of what it ran.
    const executor = new SimulatedExecutor(undefined, (seconds) => new Promise<void>((resolve) => void clock.setTimer(clock.now() + 2 * seconds, resolve)));
    const span = new Span(["execute", "py"], { clock }).start(0);
    const run = executor.execute({ key: "py-0", runSpec: { durations: { "thread-cpu": 1 }, outputBytes: 0, gil: true } } as Parameters<SimulatedExecutor["execute"]>[0], {
      span,
      clock,
      signal: new AbortController().signal,
    });
    await clock.runUntilIdle();
    await run;
    const parts = Object.fromEntries(span.end().toRecord().children.map((c) => [c.name.join("/"), (c.endTime ?? 0) - c.startTime]));
    expect(parts).toEqual({ "thread-cpu": 1, "thread-noncpu": 1 });
  });

  it("late in a long run (a coarse float step) holders of odd lengths still all end, in processor-sharing order", async () => {
    const clock = new VirtualClock({ settle: "microtasks" });
    const gil = new Gil(clock);
    const start = 3e7;
    const ended: number[] = [];
    clock.setTimer(start, () => {
      for (const cpu of [0.1, 0.3, 0.7, 1.1, 1.3].map((c) => c / 3)) void gil.run(cpu, new AbortController().signal).then(() => ended.push(clock.now() - start));
    });
    const result = await clock.runUntilIdle({ maxSteps: 10_000 });
    expect(result.steps).toBeLessThan(100);
    expect(gil.holding).toBe(0);
    const sorted = [0.1, 0.3, 0.7, 1.1, 1.3].map((c) => c / 3);
    let before = 0;
    const expected = sorted.map((c, k) => {
      const end = before + (sorted.length - k) * c;
      before += c;
      return end;
    });
    ended.forEach((end, k) => expect(end).toBeCloseTo(expected[k]!, 6));
  });
});
