// close(): outstanding work is aborted, waited for (bounded), and its metrics recorded as
// cancelled; nothing already stored is lost.
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent } from "../../src/state/index.js";
import type { Executor } from "../../src/worker/index.js";
import { makeCluster, total } from "./helpers.js";

const A = "127.0.0.1:1";
const B = "127.0.0.1:2";

describe("Worker.close", () => {
  it("aborts executing and in-flight work, records it as cancelled, keeps stored data", async () => {
    const { clock, workers, errors } = makeCluster([A, B], { latency: 5, worker: { nthreads: 2 } });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "x-1": 1 });
    b.worker.updateData({ "kept-1": "still here" });
    b.worker.handleStimulus(
      ComputeTaskEvent({ key: "long-1", stimulusId: "c1", runSpec: { durations: { "thread-cpu": 10 }, outputBytes: 1 } }),
      ComputeTaskEvent({ key: "y-1", stimulusId: "c2", whoHas: { "x-1": [A] }, nbytes: { "x-1": 8 }, runSpec: { durations: {}, outputBytes: 1 } }),
    );
    await clock.run({ until: 1 });
    expect(b.worker.outstanding).toBe(2);
    await b.worker.close();
    expect(b.worker.status).toBe("closed");
    expect(b.worker.outstanding).toBe(0);
    expect(errors).toEqual([]);
    const m = b.worker.scrape();
    expect(total(m, ["execute", "long", "thread-cpu", "seconds"], "cancelled")).toBe(1);
    expect(total(m, ["gather-dep", "x", "network", "seconds"], "cancelled")).toBe(1);
    expect(m.every((e) => e.outcome !== "running")).toBe(true);
    expect(b.worker.data.get("kept-1")).toBe("still here");
    expect(b.outbox).toEqual([]);
    expect(() => b.worker.handleStimulus(ComputeTaskEvent({ key: "z-1", stimulusId: "late" }))).toThrow(
      /worker 127\.0\.0\.1:2 is closed; cannot handle ComputeTaskEvent \(stimulus late\)/,
    );
    await b.worker.close();
    // nothing left on the clock: the close timeout was cancelled, the aborted sleeps too
    await clock.runUntilIdle();
    expect(clock.now()).toBe(1);
    // the peer that was serving saw its reply cancelled
    expect(total(a.worker.scrape(), ["get-data", "x", "network", "seconds"], "cancelled")).toBe(1);
  });

  it("waits at most `timeout` seconds for work that ignores the abort", async () => {
    const stubborn: Executor = {
      execute: (task, { span, clock }) =>
        new Promise(() => {
          span.child("thread-noncpu");
          void clock; // never settles
        }),
    };
    const { clock, workers } = makeCluster([A], { executor: stubborn });
    const { worker } = workers[0]!;
    worker.handleStimulus(ComputeTaskEvent({ key: "hang-1", stimulusId: "c1", runSpec: "hang" }));
    await clock.run({ until: 3 });
    const closing = worker.close({ timeout: 2 });
    await clock.runUntilIdle();
    await closing;
    expect(clock.now()).toBe(5);
    expect(worker.outstanding).toBe(0);
    expect(total(worker.scrape(), ["execute", "hang", "thread-noncpu", "seconds"], "cancelled")).toBe(5);
  });

  it("a peer closing mid-transfer is a network failure for the receiver", async () => {
    const { clock, workers } = makeCluster([A, B], { latency: 5 });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "x-1": 1 });
    b.worker.handleStimulus(
      ComputeTaskEvent({ key: "y-1", stimulusId: "c2", whoHas: { "x-1": [A] }, nbytes: { "x-1": 8 }, runSpec: { durations: {}, outputBytes: 1 } }),
    );
    await clock.run({ until: 1 });
    await a.worker.close();
    await clock.runUntilIdle();
    expect(b.worker.state.tasks.get("x-1")?.state).toBe("missing");
    expect(b.worker.scrape().filter((e) => e.name[0] === "gather-dep").every((e) => e.outcome === "failed")).toBe(true);
  });
});
