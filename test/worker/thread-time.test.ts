// The thread-time ledger (docs/worker.md, "Thread time"): every slot of a worker is at every
// instant in exactly one bucket. Each idle cause from a hand-made case, with exact
// virtual-clock seconds (dyadic durations, so that sums are exact); recompute and killed
// work; seceded tasks; scrapes in the middle of an interval; a real clock.
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent, PauseEvent, SecedeEvent, UnpauseEvent } from "../../src/state/index.js";
import { RECOMPUTE_ANNOTATIONS, RealClock, RealExecutor, Worker, type ThreadTime, type VirtualClock } from "../../src/worker/index.js";
import { asRecord, makeCluster, total } from "./helpers.js";

const A = "sim://a";
const B = "sim://b";

/** The `worker` context's seconds by bucket: "execute/<prefix>/<activity>|<outcome>" and "idle/<cause>". */
function buckets(worker: Worker): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of worker.scrape()) {
    if (e.name[0] !== "worker") continue;
    const key = e.name[1] === "idle" ? `idle/${e.name[2]!}` : `${e.name.slice(1, -1).join("/")}|${e.outcome}`;
    out[key] = (out[key] ?? 0) + e.value;
  }
  return out;
}

function expectClosed(time: ThreadTime, lifetime: number): void {
  expect(time.lifetime).toBe(lifetime);
  expect(time.capacity).toBe(time.nthreads * lifetime);
  expect(time.total).toBe(time.capacity);
  expect(time.gap).toBe(0);
}

/** Moves a virtual clock to `t` (a timer there) and runs everything due before. */
async function runTo(clock: VirtualClock, t: number): Promise<void> {
  clock.setTimer(t, () => {});
  await clock.runUntilIdle();
  expect(clock.now()).toBe(t);
}

const task = (key: string, seconds: number, extra: Partial<Parameters<typeof ComputeTaskEvent>[0]> = {}) =>
  ComputeTaskEvent({ key, stimulusId: `compute-${key}`, runSpec: { durations: { "thread-cpu": seconds }, outputBytes: 8 }, ...extra });

describe("thread-time ledger: idle causes, each from a hand-made case", () => {
  it("no work: every slot idles under idle/no-work", async () => {
    const { clock, workers } = makeCluster([A], { worker: { nthreads: 2 } });
    const { worker } = workers[0]!;
    await runTo(clock, 5);
    expect(buckets(worker)).toEqual({ "idle/no-work": 10 });
    expectClosed(worker.threadTime(), 5);
  });

  it("executing by prefix and activity, with the rest of the slots idle", async () => {
    const { clock, workers } = makeCluster([A], { worker: { nthreads: 2 } });
    const { worker } = workers[0]!;
    worker.handleStimulus(ComputeTaskEvent({ key: "inc-1", stimulusId: "c1", runSpec: { durations: { "thread-cpu": 1.5, "thread-noncpu": 0.5 }, outputBytes: 8 } }));
    await runTo(clock, 4);
    expect(buckets(worker)).toEqual({
      "execute/inc/thread-cpu|ok": 1.5,
      "execute/inc/thread-noncpu|ok": 0.5,
      "idle/no-work": 6,
    });
    const time = worker.threadTime();
    expect(time.executing.ok).toBe(2);
    expect(time.idle["no-work"]).toBe(6);
    expectClosed(time, 4);
  });

  it("a paused worker: its free slot idles under idle/paused until unpaused", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    worker.handleStimulus(task("a-1", 2), task("b-1", 1));
    // paused while a-1 runs: b-1 waits, and once a-1 is done the slot idles because of the pause
    clock.setTimer(1, () => worker.handleStimulus(PauseEvent({ stimulusId: "pause" })));
    clock.setTimer(3, () => worker.handleStimulus(UnpauseEvent({ stimulusId: "unpause" })));
    await runTo(clock, 5);
    expect(buckets(worker)).toEqual({
      "execute/a/thread-cpu|ok": 2,
      "idle/paused": 1,
      "execute/b/thread-cpu|ok": 1,
      "idle/no-work": 1,
    });
    expectClosed(worker.threadTime(), 5);
  });

  it("a task waiting for a slow fetch: the slot idles under idle/fetching", async () => {
    const { clock, workers } = makeCluster([A, B], { latency: 2, bandwidth: Infinity });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "x-1": 1 });
    b.worker.handleStimulus(task("y-1", 1, { whoHas: { "x-1": [A] }, nbytes: { "x-1": 8 } }));
    await runTo(clock, 4);
    expect(buckets(b.worker)).toEqual({ "idle/fetching": 2, "execute/y/thread-cpu|ok": 1, "idle/no-work": 1 });
    expect(buckets(a.worker)).toEqual({ "idle/no-work": 4 });
    expectClosed(b.worker.threadTime(), 4);
  });

  it("a resource-constrained task: the free slot idles under idle/constrained", async () => {
    const { clock, workers } = makeCluster([A], { worker: { nthreads: 2, resources: { GPU: 1 } } });
    const { worker } = workers[0]!;
    worker.handleStimulus(task("g-1", 3, { resourceRestrictions: { GPU: 1 } }), task("g-2", 1, { resourceRestrictions: { GPU: 1 } }));
    await runTo(clock, 4);
    // g-2 waits for the GPU for 3 s with a thread free, then runs while the other thread has nothing
    expect(buckets(worker)).toEqual({ "execute/g/thread-cpu|ok": 4, "idle/constrained": 3, "idle/no-work": 1 });
    expectClosed(worker.threadTime(), 4);
  });

  it("an empty queue between tasks: idle/no-work, and the lifetime starts when the worker is made", async () => {
    const { clock, workers } = makeCluster([A]);
    await runTo(clock, 2);
    const late = makeCluster([B], { clock }).workers[0]!.worker;
    late.handleStimulus(task("z-1", 1));
    clock.setTimer(4, () => late.handleStimulus(task("z-2", 0.5)));
    await runTo(clock, 6);
    expect(buckets(late)).toEqual({ "execute/z/thread-cpu|ok": 1.5, "idle/no-work": 2.5 });
    const time = late.threadTime();
    expect(time.start).toBe(2);
    expectClosed(time, 4);
    expectClosed(workers[0]!.worker.threadTime(), 6);
  });

  it("a dead worker: its running task is killed, and every slot is idle/dead until the end", async () => {
    const { clock, workers } = makeCluster([A], { worker: { nthreads: 2 } });
    const { worker } = workers[0]!;
    worker.handleStimulus(task("k-1", 4));
    clock.setTimer(1, () => void worker.close({ timeout: 0, killed: true }));
    await runTo(clock, 5);
    expect(worker.status).toBe("closed");
    expect(buckets(worker)).toEqual({ "execute/k/thread-cpu|killed": 1, "idle/no-work": 1, "idle/dead": 8 });
    const time = worker.threadTime();
    expect(time.executing.killed).toBe(1);
    expect(time.idle.dead).toBe(8);
    expectClosed(time, 5);
    // the execute context says the same: the task's work was lost to the death
    expect(total(worker.scrape(), ["execute", "k", "thread-cpu", "seconds"], "killed")).toBe(1);
  });

  it("a closed (not killed) worker's lifetime ends at the close", async () => {
    const { clock, workers } = makeCluster([A], { worker: { nthreads: 2 } });
    const { worker } = workers[0]!;
    worker.handleStimulus(task("k-1", 4));
    clock.setTimer(1, () => void worker.close({ timeout: 0 }));
    await runTo(clock, 5);
    expect(buckets(worker)).toEqual({ "execute/k/thread-cpu|cancelled": 1, "idle/no-work": 1 });
    expectClosed(worker.threadTime(), 1);
  });
});

describe("thread-time ledger: recompute and seceded tasks", () => {
  it("a task whose ComputeTaskEvent says it recomputes lost data is filed under recompute", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    worker.handleStimulus(task("r-1", 2, { annotations: RECOMPUTE_ANNOTATIONS }), task("f-1", 1));
    await runTo(clock, 3);
    expect(buckets(worker)).toEqual({ "execute/r/thread-cpu|recompute": 2, "execute/f/thread-cpu|ok": 1 });
    expect(worker.threadTime().executing).toMatchObject({ recompute: 2, ok: 1 });
    // the execute context keeps how the work ended
    expect(total(worker.scrape(), ["execute", "r", "thread-cpu", "seconds"], "ok")).toBe(2);
  });

  it("a seceded task leaves the pool: its time before secede is executing, its slot is free from then on", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    worker.handleStimulus(task("long-1", 5));
    clock.setTimer(1, () => worker.handleStimulus(SecedeEvent({ key: "long-1", computeDuration: 1, stimulusId: "secede" })));
    clock.setTimer(2, () => worker.handleStimulus(task("short-1", 2)));
    await runTo(clock, 6);
    expect(buckets(worker)).toEqual({
      "execute/long/thread-cpu|ok": 1,
      "execute/short/thread-cpu|ok": 2,
      "idle/no-work": 3,
    });
    expectClosed(worker.threadTime(), 6);
    // the task's own time stays whole in the execute context
    expect(total(worker.scrape(), ["execute", "long", "thread-cpu", "seconds"], "ok")).toBe(5);
  });
});

describe("thread-time ledger: in progress", () => {
  it("a scrape in the middle of an idle interval and at the end counts nothing twice", async () => {
    const { clock, workers } = makeCluster([A], { worker: { nthreads: 2 } });
    const { worker } = workers[0]!;
    worker.handleStimulus(task("t-1", 4));
    await clock.run({ until: 1 });
    expect(buckets(worker)).toEqual({ "execute/t/thread-cpu|running": 1, "idle/no-work": 1 });
    const firstBeat = asRecord(worker.heartbeat());
    await clock.run({ until: 3 });
    expect(buckets(worker)).toEqual({ "execute/t/thread-cpu|running": 3, "idle/no-work": 3 });
    await runTo(clock, 6);
    const final = buckets(worker);
    expect(final).toEqual({ "execute/t/thread-cpu|running": 3, "execute/t/thread-cpu|ok": 1, "idle/no-work": 8 });
    expectClosed(worker.threadTime(), 6);
    // heartbeat deltas add up to the same totals
    const secondBeat = asRecord(worker.heartbeat());
    const summed: Record<string, number> = {};
    for (const beat of [firstBeat, secondBeat]) for (const [k, v] of Object.entries(beat)) if (k.startsWith("worker/")) summed[k] = (summed[k] ?? 0) + v;
    expect(summed).toEqual({
      "worker/execute/t/thread-cpu/seconds|running": 3,
      "worker/execute/t/thread-cpu/seconds|ok": 1,
      "worker/idle/no-work/seconds|": 8,
    });
  });

  it("threadTime({ until }) accounts up to a time between the last change and now, never before", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    worker.handleStimulus(task("t-1", 1));
    await runTo(clock, 4);
    expect(worker.threadTimeAccountedUntil).toBe(1);
    expectClosed(worker.threadTime({ until: 2 }), 2);
    expect(() => worker.threadTime({ until: 1.5 })).toThrow(RangeError);
    expect(() => worker.threadTime({ until: 5 })).toThrow(RangeError);
    expectClosed(worker.threadTime(), 4);
  });
});

describe("thread-time ledger on a real clock", () => {
  it("closes within 1% with short real tasks, sync and async", async () => {
    const spin = (ms: number) => () => {
      const end = performance.now() + ms;
      let x = 0;
      while (performance.now() < end) x += 1;
      return x;
    };
    const sleep = (ms: number) => async () => new Promise((resolve) => setTimeout(() => resolve(ms), ms));
    const worker = new Worker({ address: A, nthreads: 2, clock: new RealClock(), executor: new RealExecutor() });
    const keys = ["s-1", "s-2", "a-1", "a-2", "s-3"];
    worker.handleStimulus(
      ComputeTaskEvent({ key: "s-1", stimulusId: "c1", runSpec: spin(15) }),
      ComputeTaskEvent({ key: "a-1", stimulusId: "c2", runSpec: sleep(20) }),
      ComputeTaskEvent({ key: "s-2", stimulusId: "c3", runSpec: spin(10) }),
      ComputeTaskEvent({ key: "a-2", stimulusId: "c4", runSpec: sleep(10) }),
      ComputeTaskEvent({ key: "s-3", stimulusId: "c5", runSpec: spin(5) }),
    );
    await worker.idle();
    await new Promise((resolve) => setTimeout(resolve, 10));
    for (const key of keys) expect(worker.state.tasks.get(key)?.state).toBe("memory");
    const time = worker.threadTime();
    expect(time.lifetime).toBeGreaterThan(0.03);
    expect(Math.abs(time.gap)).toBeLessThanOrEqual(0.01 * time.capacity);
    expect(time.executing.ok).toBeGreaterThan(0.05);
    expect(time.idle["no-work"]).toBeGreaterThan(0);
    await worker.close();
    const closed = worker.threadTime();
    expect(Math.abs(closed.gap)).toBeLessThanOrEqual(0.01 * closed.capacity);
  });
});
