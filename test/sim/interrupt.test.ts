// A run can be stopped from outside while it goes on (issue 12 item 12): the virtual clock's
// "microtasks" driver takes an event-loop turn now and then, so a real timer (here) or a
// signal handler (test/cli/interrupt.test.ts) gets to run and abort it.
import { describe, expect, it } from "vitest";
import { simulate } from "../../src/sim/index.js";
import { VirtualClock } from "../../src/worker/clock.js";

describe("stopping a run with an AbortSignal", () => {
  it("VirtualClock.run yields to the event loop and rejects with the signal's reason", async () => {
    const clock = new VirtualClock({ settle: "microtasks" });
    const tick = (): void => void clock.setTimer(clock.now() + 1, tick);
    tick();
    const controller = new AbortController();
    const reason = new Error("stop");
    setTimeout(() => controller.abort(reason), 20);
    await expect(clock.run({ signal: controller.signal })).rejects.toBe(reason);
    expect(clock.pending).toBe(1);
  });

  it("simulate() rejects with the reason, long before the run would have ended", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped from outside");
    let done = 0;
    setTimeout(() => controller.abort(reason), 50);
    await expect(
      simulate("map", { size: 400_000, workers: 2, signal: controller.signal, keepOutputs: false, maxTaskRecords: 0, onProgress: (p) => (done = p.done) }),
    ).rejects.toBe(reason);
    expect(done).toBeLessThan(400_000);
  });

  it("simulate() with an already aborted signal rejects at once", async () => {
    await expect(simulate("map", { signal: AbortSignal.abort(new Error("before")) })).rejects.toThrow("before");
  });

  it("a signal that never aborts changes nothing", async () => {
    const plain = await simulate("random-dag", { size: 200 });
    const signalled = await simulate("random-dag", { size: 200, signal: new AbortController().signal });
    expect(signalled.report).toEqual(plain.report);
  });
});
