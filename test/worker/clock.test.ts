import { describe, expect, it } from "vitest";
import { RealClock, VirtualClock } from "../../src/worker/index.js";

describe("VirtualClock", () => {
  it("fires timers in time order, ties in insertion order", async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    clock.setTimer(2, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(1, () => fired.push(`a1@${clock.now()}`));
    clock.setTimer(1, () => fired.push(`a2@${clock.now()}`));
    clock.setTimer(3, () => fired.push(`c@${clock.now()}`));
    const result = await clock.runUntilIdle();
    expect(fired).toEqual(["a1@1", "a2@1", "b@2", "c@3"]);
    expect(result).toEqual({ steps: 4, now: 3, idle: true });
  });

  it("lets microtask chains settle before advancing", async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    async function worker(name: string, delays: number[]): Promise<void> {
      for (const d of delays) {
        await clock.sleep(d);
        // a few extra awaits must not let the other worker's later timer overtake
        await Promise.resolve();
        await null;
        log.push(`${name}@${clock.now()}`);
      }
    }
    const done = Promise.all([worker("x", [1, 1, 1]), worker("y", [1.5, 1])]);
    await clock.runUntilIdle();
    await done;
    expect(log).toEqual(["x@1", "y@1.5", "x@2", "y@2.5", "x@3"]);
  });

  it.each(["macrotask", "microtasks"] as const)("settle mode %s lets deep promise chains settle before the next timer", async (settle) => {
    const clock = new VirtualClock({ settle });
    const log: string[] = [];
    // 200 chained continuations queued by the first timer: a fixed number of awaits in the
    // driver would not cover them.
    clock.setTimer(1, () => {
      let chain = Promise.resolve();
      for (let i = 0; i < 200; i++) chain = chain.then(() => undefined);
      void chain.then(() => log.push(`chain done @${clock.now()}`));
    });
    clock.setTimer(1, () => log.push(`second timer @${clock.now()}`));
    await clock.runUntilIdle();
    expect(log).toEqual(["chain done @1", "second timer @1"]);
  });

  it("microtasks mode does not turn the event loop, so immediates wait for the run to return", async () => {
    const clock = new VirtualClock({ settle: "microtasks" });
    const log: string[] = [];
    clock.setTimer(1, () => setImmediate(() => log.push("immediate")));
    clock.setTimer(2, () => log.push("timer 2"));
    await clock.runUntilIdle();
    expect(log).toEqual(["timer 2"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["timer 2", "immediate"]);
  });

  it("rejects an unknown settle mode", () => {
    expect(() => new VirtualClock({ settle: "never" as "macrotask" })).toThrow(/settle must be "macrotask" or "microtasks", got "never"/);
  });

  it("sleep(0) and past timers fire at now, after already queued timers of the same time", async () => {
    const clock = new VirtualClock({ start: 5 });
    const fired: string[] = [];
    clock.setTimer(5, () => {
      fired.push("first");
      clock.setTimer(1, () => fired.push("past"));
    });
    clock.setTimer(5, () => fired.push("second"));
    await clock.runUntilIdle();
    expect(fired).toEqual(["first", "second", "past"]);
    expect(clock.now()).toBe(5);
  });

  it("cancel removes a timer, and sleep rejects on abort", async () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const handle = clock.setTimer(1, () => fired.push(1));
    clock.setTimer(2, () => fired.push(2));
    handle.cancel();
    handle.cancel();
    expect(clock.pending).toBe(1);
    const controller = new AbortController();
    const sleeping = clock.sleep(10, controller.signal);
    clock.setTimer(3, () => controller.abort(new Error("stop")));
    await expect(Promise.all([clock.runUntilIdle(), sleeping])).rejects.toThrow("stop");
    expect(fired).toEqual([2]);
    expect(clock.now()).toBe(3);
    expect(clock.pending).toBe(0);
    await expect(clock.sleep(1, controller.signal)).rejects.toThrow("stop");
  });

  it("run({until}) stops before later timers and moves to until; refuses to go back", async () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    for (const t of [1, 2, 3]) clock.setTimer(t, () => fired.push(t));
    expect(await clock.run({ until: 2.5 })).toEqual({ steps: 2, now: 2.5, idle: false });
    expect(clock.nextTimerAt).toBe(3);
    await expect(clock.run({ until: 1 })).rejects.toThrow(/back in time/);
    expect(await clock.run({ until: 10 })).toEqual({ steps: 1, now: 10, idle: true });
    expect(fired).toEqual([1, 2, 3]);
  });

  it("maxSteps and onStep stop early without moving to until", async () => {
    const clock = new VirtualClock();
    for (let t = 1; t <= 5; t++) clock.setTimer(t, () => undefined);
    expect(await clock.run({ until: 100, maxSteps: 2 })).toEqual({ steps: 2, now: 2, idle: false });
    expect(await clock.run({ until: 100, onStep: (now) => now < 4 })).toEqual({ steps: 2, now: 4, idle: false });
  });

  it("a throwing timer rejects run", async () => {
    const clock = new VirtualClock();
    clock.setTimer(1, () => {
      throw new Error("boom");
    });
    await expect(clock.runUntilIdle()).rejects.toThrow("boom");
    expect(clock.now()).toBe(1);
  });

  it("keeps order across heavy cancellation and compaction", async () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    const handles = [];
    for (let i = 0; i < 1000; i++) {
      const t = (i * 7919) % 1000;
      handles.push({ t, h: clock.setTimer(t, () => fired.push(t)) });
    }
    for (const { t, h } of handles) if (t % 3 !== 0) h.cancel();
    expect(clock.pending).toBe(334);
    await clock.runUntilIdle();
    const expected = handles.map((x) => x.t).filter((t) => t % 3 === 0).sort((a, b) => a - b);
    expect(fired).toEqual(expected);
  });

  it("rejects NaN times", () => {
    const clock = new VirtualClock();
    expect(() => clock.setTimer(Number.NaN, () => undefined)).toThrow(/NaN/);
    expect(() => new VirtualClock({ start: Infinity })).toThrow(/finite/);
  });
});

describe("RealClock", () => {
  it("is monotonic and sleeps", async () => {
    const clock = new RealClock();
    const a = clock.now();
    await clock.sleep(0.001);
    expect(clock.now()).toBeGreaterThan(a);
    const controller = new AbortController();
    const p = clock.sleep(60, controller.signal);
    controller.abort();
    await expect(p).rejects.toThrow(/abort/i);
  });
});
