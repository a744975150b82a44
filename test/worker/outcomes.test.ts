// Every outcome of an async instruction: ok, failed, cancelled, missing, busy — each
// keeping its detail, each leading to the right event and scheduler messages.
import { describe, expect, it } from "vitest";
import {
  ComputeTaskEvent,
  FreeKeysEvent,
  type TaskErredMsg,
} from "../../src/state/index.js";
import {
  NetworkError,
  RealExecutor,
  Reschedule,
  type GetDataResponse,
  type Transport,
} from "../../src/worker/index.js";
import { activities, makeCluster, total } from "./helpers.js";

const A = "127.0.0.1:1";
const B = "127.0.0.1:2";
const C = "127.0.0.1:3";

const model = (seconds: number, outputBytes = 1000) => ({ durations: { "thread-cpu": seconds }, outputBytes });

/** A transport whose answers are scripted per call; each answer may wait on the clock. */
function scriptedTransport(answers: Array<() => Promise<GetDataResponse>>): Transport & { calls: number } {
  const transport = {
    calls: 0,
    getData: async () => {
      const answer = answers[transport.calls++];
      if (answer === undefined) throw new Error("no more scripted answers");
      return answer();
    },
  };
  return transport;
}

function fetchY(worker: { handleStimulus: (e: ReturnType<typeof ComputeTaskEvent>) => void }, from = A, bytes = 1000) {
  worker.handleStimulus(
    ComputeTaskEvent({
      key: "y-1",
      stimulusId: "compute-y",
      whoHas: { "x-1": [from] },
      nbytes: { "x-1": bytes },
      runSpec: model(1, 10),
    }),
  );
}

describe("execute outcomes", () => {
  it("a failing task becomes TaskErredMsg with text and stack, and keeps its detail under outcome failed", async () => {
    const { clock, workers, errors } = makeCluster([A], { executor: new RealExecutor() });
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({
        key: "boom-1",
        stimulusId: "c1",
        runSpec: async (_inputs: ReadonlyMap<string, unknown>, ctx: { clock: { sleep(s: number): Promise<void> } }) => {
          await ctx.clock.sleep(2);
          throw new TypeError("kaboom");
        },
      }),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect(worker.status).toBe("running");
    expect(outbox.map((m) => m.kind)).toEqual(["TaskErredMsg"]);
    const erred = outbox[0] as TaskErredMsg;
    expect(erred.exceptionText).toBe("TypeError: kaboom");
    expect(erred.tracebackText).toContain("kaboom");
    expect(worker.state.tasks.get("boom-1")?.state).toBe("error");
    const m = worker.scrape();
    expect(total(m, ["execute", "boom", "thread-noncpu", "seconds"], "failed")).toBe(2);
    // no CPU split for an async task: its own time is all thread-noncpu
    expect(activities(m, ["execute", "boom"])).toEqual(["other", "thread-noncpu"]);
  });

  it("an async task that succeeds: no CPU split, its own time is thread-noncpu", async () => {
    const { clock, workers } = makeCluster([A], { executor: new RealExecutor() });
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({
        key: "fetch-1",
        stimulusId: "c1",
        runSpec: async (_inputs: ReadonlyMap<string, unknown>, ctx: { clock: { sleep(s: number): Promise<void> } }) => {
          await ctx.clock.sleep(3);
          return "payload";
        },
      }),
    );
    await clock.runUntilIdle();
    expect(outbox.map((m) => m.kind)).toEqual(["TaskFinishedMsg"]);
    const m = worker.scrape();
    expect(activities(m, ["execute", "fetch"])).toEqual(["other", "thread-noncpu"]);
    expect(total(m, ["execute", "fetch", "thread-noncpu", "seconds"], "ok")).toBe(3);
  });

  it("a task model that fails or reschedules", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({ key: "f-1", stimulusId: "c1", runSpec: { ...model(1), fail: "disk on fire" } }),
      ComputeTaskEvent({ key: "r-1", stimulusId: "c2", runSpec: { ...model(1), reschedule: true } }),
    );
    await clock.runUntilIdle();
    // f-1 took the only thread first; r-1 ran after it
    expect(outbox.map((m) => m.kind)).toEqual(["TaskErredMsg", "RescheduleMsg"]);
    expect((outbox[0] as TaskErredMsg).exceptionText).toBe("TaskModelFailure: disk on fire");
    const m = worker.scrape();
    expect(total(m, ["execute", "f", "thread-cpu", "seconds"], "failed")).toBe(1);
    expect(total(m, ["execute", "r", "thread-cpu", "seconds"], "cancelled")).toBe(1);
  });

  it("a Reschedule thrown by a real task gives RescheduleMsg", async () => {
    const { clock, workers } = makeCluster([A], { executor: new RealExecutor() });
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({
        key: "r-1",
        stimulusId: "c1",
        runSpec: () => {
          throw new Reschedule();
        },
      }),
    );
    await clock.runUntilIdle();
    expect(outbox.map((m) => m.kind)).toEqual(["RescheduleMsg"]);
  });

  it("an invalid runSpec fails the task with a clear message, not the worker", async () => {
    const { clock, workers, errors } = makeCluster([A]);
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(ComputeTaskEvent({ key: "bad-1", stimulusId: "c1", runSpec: { durations: { "thread-cpu": -1 }, outputBytes: 1 } }));
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect((outbox[0] as TaskErredMsg).exceptionText).toMatch(/task model of "bad-1": durations.thread-cpu must be a finite number/);
  });

  it("a task cancelled while executing: result discarded, nothing sent, detail under outcome cancelled", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(ComputeTaskEvent({ key: "slow-1", stimulusId: "c1", runSpec: model(5) }));
    await clock.run({ until: 1 });
    worker.handleStimulus(FreeKeysEvent({ keys: ["slow-1"], stimulusId: "free" }));
    expect(worker.state.tasks.get("slow-1")?.state).toBe("cancelled");
    await clock.runUntilIdle();
    expect(outbox).toEqual([]);
    expect(worker.state.tasks.has("slow-1")).toBe(false);
    expect(worker.data.has("slow-1")).toBe(false);
    const m = worker.scrape();
    expect(total(m, ["execute", "slow", "thread-cpu", "seconds"], "cancelled")).toBe(5);
    expect(total(m, ["execute", "slow", "thread-cpu", "seconds"], "ok")).toBe(0);
  });

  it("a dependency missing from data when the task starts (#6893) fails the task with a clear message", async () => {
    const { clock, workers, errors } = makeCluster([A], { worker: { validate: false } });
    const { worker, outbox } = workers[0]!;
    worker.updateData({ "x-1": 1 });
    worker.handleStimulus(
      ComputeTaskEvent({ key: "y-1", stimulusId: "c1", whoHas: { "x-1": [A] }, nbytes: { "x-1": 8 }, runSpec: model(1) }),
    );
    // the value vanishes behind the state's back before the task reads it
    worker.spillBuffer!.delete("x-1");
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    const erred = outbox.find((m) => m.kind === "TaskErredMsg") as TaskErredMsg;
    expect(erred.exceptionText).toMatch(/dependency "x-1" of task "y-1" is not in memory on worker 127\.0\.0\.1:1.*#6893/);
  });
});

describe("gather-dep outcomes", () => {
  it("a transfer cancelled while in flight: data discarded, outcome cancelled", async () => {
    const { clock, workers } = makeCluster([A, B], { latency: 1 });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "x-1": "value" });
    fetchY(b.worker);
    await clock.run({ until: 0.5 });
    expect(b.worker.state.tasks.get("x-1")?.state).toBe("flight");
    b.worker.handleStimulus(FreeKeysEvent({ keys: ["y-1"], stimulusId: "free" }));
    expect(b.worker.state.tasks.get("x-1")?.state).toBe("cancelled");
    await clock.runUntilIdle();
    expect(b.worker.data.has("x-1")).toBe(false);
    expect(b.worker.state.tasks.size).toBe(0);
    const m = b.worker.scrape();
    const bytes = a.worker.state.tasks.get("x-1")!.nbytes!;
    expect(total(m, ["gather-dep", "x", "network", "seconds"], "cancelled")).toBeCloseTo(1 + bytes / 1e6, 9);
    expect(total(m, ["gather-dep", "x", "network", "seconds"], "ok")).toBe(0);
    // the sender did its part successfully
    expect(total(a.worker.scrape(), ["get-data", "x", "network", "seconds"], "ok")).toBeGreaterThan(1);
  });

  it("a busy peer: busy outcome, retry after retryBusyDelay, then success", async () => {
    // A serves one request at a time; B and C both ask for x-1 at once
    const { clock, workers } = makeCluster([A, B, C], { latency: 1, worker: { getDataBusyLimit: 1 } });
    const [a, b, c] = workers as [(typeof workers)[0], (typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "x-1": "value" });
    fetchY(b.worker);
    fetchY(c.worker);
    await clock.run({ until: 0.01 });
    expect(c.worker.state.busyWorkers.has(A)).toBe(true);
    await clock.runUntilIdle();
    expect(b.worker.state.tasks.get("y-1")?.state).toBe("memory");
    expect(c.worker.state.tasks.get("y-1")?.state).toBe("memory");
    const cm = c.worker.scrape();
    expect(total(cm, ["gather-dep", "x", "other", "seconds"], "busy")).toBe(0);
    expect(cm.some((e) => e.name[0] === "gather-dep" && e.outcome === "busy")).toBe(true);
    const bytes = a.worker.state.tasks.get("x-1")!.nbytes!;
    expect(total(cm, ["gather-dep", "x", "network", "bytes"], "ok")).toBe(bytes);
    // C retries every 0.15 s while A serves B (until ~1 s): the retry at 1.05 s succeeds,
    // the transfer takes 1 s and y-1 computes for 1 s
    expect(clock.now()).toBeCloseTo(3.05, 3);
    expect(cm.filter((e) => e.outcome === "busy").length).toBeGreaterThan(0);
    const am = a.worker.scrape();
    expect(am.some((e) => e.name[0] === "get-data" && e.outcome === "busy")).toBe(true);
    expect(total(am, ["get-data", "x", "network", "bytes"], "ok")).toBe(2 * bytes);
  });

  it("a scripted busy answer emits RetryBusyWorkerLater and the worker retries", async () => {
    const transport = scriptedTransport([
      async () => ({ status: "busy" }),
      async () => ({ status: "OK", data: { "x-1": 42 } }),
    ]);
    const { clock, workers } = makeCluster([B], { transport });
    const { worker } = workers[0]!;
    fetchY(worker);
    await clock.runUntilIdle();
    expect(transport.calls).toBe(2);
    expect(clock.now()).toBeCloseTo(0.15 + 1, 9);
    expect(worker.state.tasks.get("y-1")?.state).toBe("memory");
  });

  it("a peer that has none of the keys: outcome missing on both sides, the key goes missing", async () => {
    const { clock, workers } = makeCluster([A, B]);
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    fetchY(b.worker);
    await clock.runUntilIdle();
    expect(b.worker.state.tasks.get("x-1")?.state).toBe("missing");
    expect(b.worker.scrape().some((e) => e.name[0] === "gather-dep" && e.outcome === "missing")).toBe(true);
    expect(a.worker.scrape().some((e) => e.name[0] === "get-data" && e.outcome === "missing")).toBe(true);
  });

  it("a network failure: outcome failed, the peer is treated as dead", async () => {
    const { clock, workers, inProcess } = makeCluster([A, B]);
    const b = workers[1]!;
    inProcess!.unregister(A);
    fetchY(b.worker);
    await clock.runUntilIdle();
    expect(b.worker.state.tasks.get("x-1")?.state).toBe("missing");
    expect(b.worker.state.hasWhat.has(A)).toBe(false);
    const m = b.worker.scrape();
    expect(m.filter((e) => e.name[0] === "gather-dep").every((e) => e.outcome === "failed")).toBe(true);
    expect(b.outbox.map((msg) => msg.kind)).toEqual([]);
  });

  it("a scripted NetworkError after a delay keeps the detail of the time spent", async () => {
    const { clock, workers } = makeCluster([B], {
      transport: {
        getData: async (_from, _keys, { span }) => {
          const net = span.child("network");
          await clock.sleep(2);
          net.end();
          throw new NetworkError("connection reset", { peer: A });
        },
      },
    });
    const { worker } = workers[0]!;
    fetchY(worker);
    await clock.runUntilIdle();
    expect(total(worker.scrape(), ["gather-dep", "x", "network", "seconds"], "failed")).toBe(2);
  });

  it("another transfer failure: GatherDepFailureEvent, the key errs with the message", async () => {
    const transport = scriptedTransport([
      async () => {
        throw new SyntaxError("cannot deserialize");
      },
    ]);
    const { clock, workers, errors } = makeCluster([B], { transport, worker: { validate: false } });
    const { worker, outbox } = workers[0]!;
    fetchY(worker);
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect(worker.state.tasks.get("x-1")?.state).toBe("error");
    const erred = outbox.find((m) => m.kind === "TaskErredMsg") as TaskErredMsg;
    expect(erred.key).toBe("x-1");
    expect(erred.exceptionText).toBe("SyntaxError: cannot deserialize");
    expect(worker.scrape().filter((e) => e.name[0] === "gather-dep").every((e) => e.outcome === "failed")).toBe(true);
  });

  it("no transport: every GatherDep is a network failure", async () => {
    const { clock, workers } = makeCluster([B], { transport: undefined, worker: { transport: undefined } });
    const { worker } = workers[0]!;
    fetchY(worker);
    await clock.runUntilIdle();
    expect(worker.state.tasks.get("x-1")?.state).toBe("missing");
  });
});

describe("dispatch", () => {
  it("an unknown instruction is a clear error naming it and its stimulus", () => {
    const { workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    const bogus = [{ kind: "Teleport", stimulusId: "s-42" }] as unknown as ReturnType<typeof worker.state.handleStimulus>;
    worker.state.handleStimulus = () => bogus;
    expect(() => worker.handleStimulus(ComputeTaskEvent({ key: "x-1", stimulusId: "s-42" }))).toThrow(
      'worker 127.0.0.1:1: unknown instruction "Teleport" (stimulus s-42)',
    );
  });

  it("rejects bad options with errors naming them", async () => {
    const { Worker } = await import("../../src/worker/index.js");
    expect(() => new Worker({ address: "" })).toThrow(/address must be a non-empty string/);
    expect(() => new Worker({ address: "a:1", nthreads: 0 })).toThrow(/nthreads must be a positive integer, got 0/);
    expect(() => new Worker({ address: "a:1", memoryTargetFraction: 2 })).toThrow(/memoryTargetFraction must be in \(0, 1\]/);
  });
});

describe("hooks", () => {
  it("a throwing onSpanRecord goes to onError; the event is still handled", async () => {
    let calls = 0;
    const { clock, workers, errors } = makeCluster([A], {
      worker: {
        onSpanRecord: () => {
          if (calls++ === 0) throw new Error("hook broke");
        },
      },
    });
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: model(1) }),
      ComputeTaskEvent({ key: "b-1", stimulusId: "c2", runSpec: model(1) }),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([new Error("hook broke")]);
    expect(worker.threads.size).toBe(0);
    // the record was lost to the hook, the event was still handled
    expect(outbox.map((m) => m.kind)).toEqual(["TaskFinishedMsg", "TaskFinishedMsg"]);
    expect(worker.state.tasks.get("b-1")?.state).toBe("memory");
  });
});
