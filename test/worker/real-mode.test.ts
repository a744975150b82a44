// A real worker on the real clock: JS functions, a tiny graph fed like a scheduler would.
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent, type SendMessageToScheduler } from "../../src/state/index.js";
import { RealClock, Worker, taskRef } from "../../src/worker/index.js";
import { total } from "./helpers.js";

describe("real mode", () => {
  it("runs sync and async JS tasks with their dependencies and measures CPU", async () => {
    const outbox: SendMessageToScheduler[] = [];
    const worker = new Worker({ address: "127.0.0.1:9", clock: new RealClock(), nthreads: 2, send: (m) => outbox.push(m) });
    worker.handleStimulus(
      ComputeTaskEvent({
        key: "load-1",
        stimulusId: "c1",
        runSpec: async () => Array.from({ length: 1000 }, (_, i) => i),
      }),
    );
    await worker.idle();
    worker.handleStimulus(
      ComputeTaskEvent({
        key: "sum-1",
        stimulusId: "c2",
        whoHas: { "load-1": ["127.0.0.1:9"] },
        nbytes: { "load-1": 8000 },
        runSpec: {
          fn: (xs: number[]) => {
            let s = 0;
            for (let r = 0; r < 2000; r++) for (const x of xs) s += Math.sqrt(x + r);
            return s;
          },
          args: [taskRef("load-1")],
        },
      }),
    );
    await worker.idle();
    expect(outbox.map((m) => m.kind)).toEqual(["TaskFinishedMsg", "TaskFinishedMsg"]);
    expect(typeof worker.data.get("sum-1")).toBe("number");
    const m = worker.scrape();
    expect(total(m, ["execute", "sum", "thread-cpu", "seconds"], "ok")).toBeGreaterThan(0);
    expect(total(m, ["execute", "load", "thread-cpu", "seconds"])).toBe(0);
    expect(total(m, ["execute", "sum", "memory-read", "count"], "ok")).toBe(1);
    await worker.close();
  });
});
