// worker.idle() resolves only when no work is left to come (issue 12, item 3): not between
// two tasks of a 1-thread worker, not between a fetch and the run it feeds, not between a
// TaskFinishedMsg and the stimulus a scheduler answers it with on a microtask.
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent, type SendMessageToScheduler } from "../../src/state/index.js";
import { RealClock, RealExecutor, Worker, type VirtualClock } from "../../src/worker/index.js";
import { makeCluster } from "./helpers.js";

const A = "127.0.0.1:1";
const B = "127.0.0.1:2";

const model = (seconds: number) => ({ durations: { "thread-cpu": seconds }, outputBytes: 10 });

/** What the worker looked like when `idle()` resolved, while the clock is driven to the end. */
async function whenIdle(worker: Worker, clock: VirtualClock, keys: readonly string[]) {
  let seen: { now: number; outstanding: number; states: Array<string | undefined> } | undefined;
  const idle = worker.idle().then(() => {
    seen = { now: clock.now(), outstanding: worker.outstanding, states: keys.map((k) => worker.state.tasks.get(k)?.state) };
  });
  await clock.runUntilIdle();
  await idle;
  return seen!;
}

describe("Worker.idle", () => {
  it("a 1-thread worker is not idle between one task and the next", async () => {
    const { clock, workers, errors } = makeCluster([A]);
    const { worker } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: model(1), priority: [0] }),
      ComputeTaskEvent({ key: "a-2", stimulusId: "c2", runSpec: model(1), priority: [1] }),
    );
    const seen = await whenIdle(worker, clock, ["a-1", "a-2"]);
    expect(errors).toEqual([]);
    expect(seen).toEqual({ now: 2, outstanding: 0, states: ["memory", "memory"] });
  });

  it("a task that first gathers a dependency: not idle between the fetch and the run", async () => {
    const { clock, workers, errors } = makeCluster([A, B], { latency: 0.5 });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "x-1": 1 });
    b.worker.handleStimulus(
      ComputeTaskEvent({ key: "y-1", stimulusId: "c1", whoHas: { "x-1": [A] }, nbytes: { "x-1": 8 }, runSpec: model(2) }),
    );
    const seen = await whenIdle(b.worker, clock, ["x-1", "y-1"]);
    expect(errors).toEqual([]);
    expect(seen.outstanding).toBe(0);
    expect(seen.states).toEqual(["memory", "memory"]);
    expect(seen.now).toBeCloseTo(2.5, 2);
  });

  it("waits for a stimulus a scheduler feeds on a microtask in answer to a TaskFinishedMsg", async () => {
    const { clock, workers, errors } = makeCluster([A], {
      worker: {
        send: (message: SendMessageToScheduler) => {
          if (message.kind === "TaskFinishedMsg" && message.key === "a-1") {
            queueMicrotask(() => workers[0]!.worker.handleStimulus(ComputeTaskEvent({ key: "b-1", stimulusId: "c2", runSpec: model(1) })));
          }
        },
      },
    });
    const { worker } = workers[0]!;
    worker.handleStimulus(ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: model(1) }));
    const seen = await whenIdle(worker, clock, ["a-1", "b-1"]);
    expect(errors).toEqual([]);
    expect(seen).toEqual({ now: 2, outstanding: 0, states: ["memory", "memory"] });
  });

  it("resolves at once (after the current turn) on a worker with nothing to do, and again after work", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    await worker.idle();
    worker.handleStimulus(ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: model(1) }));
    const seen = await whenIdle(worker, clock, ["a-1"]);
    expect(seen).toEqual({ now: 1, outstanding: 0, states: ["memory"] });
    await worker.idle();
  });

  it("real time: a chain fed by the scheduler on microtasks is done when idle() resolves", async () => {
    const finished: string[] = [];
    const chain = ["c-1", "c-2", "c-3"];
    const worker: Worker = new Worker({
      address: A,
      clock: new RealClock(),
      executor: new RealExecutor(),
      send: (message) => {
        if (message.kind !== "TaskFinishedMsg") return;
        finished.push(message.key);
        const next = chain[chain.indexOf(message.key) + 1];
        if (next === undefined) return;
        queueMicrotask(() =>
          worker.handleStimulus(
            ComputeTaskEvent({
              key: next,
              stimulusId: `compute-${next}`,
              whoHas: { [message.key]: [A] },
              nbytes: { [message.key]: 8 },
              runSpec: async (inputs: ReadonlyMap<string, unknown>) => {
                await new Promise((resolve) => setTimeout(resolve, 2));
                return (inputs.get(message.key) as number) + 1;
              },
            }),
          ),
        );
      },
    });
    worker.handleStimulus(ComputeTaskEvent({ key: "c-1", stimulusId: "c1", runSpec: () => 1 }));
    await worker.idle();
    expect(finished).toEqual(chain);
    expect(worker.data.get("c-3")).toBe(3);
    await worker.close();
  });
});
