// The full lifecycle on two workers where everything spills: compute on A, gather to B,
// compute on B; expected activity sets under execute, gather-dep and get-data.
import { describe, expect, it } from "vitest";
import { spanTreeProblems, type SpanRecord } from "../../src/spans/index.js";
import { ComputeTaskEvent } from "../../src/state/index.js";
import { MemoryStore, activities, makeCluster, total } from "./helpers.js";

const A = "127.0.0.1:1";
const B = "127.0.0.1:2";

function setup() {
  const records: SpanRecord[] = [];
  const cluster = makeCluster([A, B], {
    latency: 0.01,
    bandwidth: 1e6,
    // target = floor(1 × 0.6) = 0 bytes: every value is heavier than target and goes to disk
    worker: { memoryLimit: 1, spill: { store: new MemoryStore(1e-6) }, onSpanRecord: (r) => records.push(r) },
  });
  return { ...cluster, records };
}

describe("two workers, everything spills", () => {
  it("computes, transfers and computes again with the expected activities", async () => {
    const { clock, workers, errors, records } = setup();
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.handleStimulus(
      ComputeTaskEvent({
        key: "x-1",
        stimulusId: "compute-x",
        runSpec: { durations: { "thread-cpu": 2, "thread-noncpu": 1 }, outputBytes: 100_000 },
      }),
    );
    await clock.runUntilIdle();
    expect(a.outbox.map((m) => m.kind)).toEqual(["TaskFinishedMsg"]);
    expect(a.worker.spillBuffer?.slow.has("x-1")).toBe(true);

    b.worker.handleStimulus(
      ComputeTaskEvent({
        key: "y-1",
        stimulusId: "compute-y",
        whoHas: { "x-1": [A] },
        nbytes: { "x-1": 100_000 },
        runSpec: { durations: { "thread-cpu": 1 }, outputBytes: 10 },
      }),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect(b.outbox.map((m) => m.kind)).toEqual(["AddKeysMsg", "TaskFinishedMsg"]);
    expect(b.worker.state.tasks.get("y-1")?.state).toBe("memory");
    // 3 s on A, then 0.01 s latency + 0.1 s for 100 kB, then 1 s on B (+ modelled disk µs)
    expect(clock.now()).toBeCloseTo(4.11, 3);

    const am = a.worker.scrape();
    const bm = b.worker.scrape();
    expect(activities(am, ["execute", "x"])).toEqual(["disk-write", "other", "serialize", "thread-cpu", "thread-noncpu"]);
    expect(activities(am, ["get-data", "x"])).toEqual(["deserialize", "disk-read", "network", "other"]);
    expect(activities(bm, ["gather-dep", "x"])).toEqual(["disk-write", "network", "other", "serialize"]);
    expect(activities(bm, ["execute", "y"])).toEqual([
      "deserialize",
      "disk-read",
      "disk-write",
      "other",
      "serialize",
      "thread-cpu",
    ]);
    expect(activities(bm, ["execute", "y"], "count")).toEqual(["disk-read", "disk-write"]);
    expect(total(am, ["execute", "x", "thread-cpu", "seconds"], "ok")).toBe(2);
    expect(total(am, ["get-data", "x", "network", "bytes"], "ok")).toBe(100_000);
    expect(total(bm, ["gather-dep", "x", "network", "bytes"], "ok")).toBe(100_000);
    expect(total(bm, ["gather-dep", "x", "network", "seconds"], "ok")).toBeCloseTo(0.11, 4);
    expect(total(bm, ["execute", "y", "disk-read", "count"], "ok")).toBe(1);
    // every outcome is known: nothing was in progress (idle thread time has no outcome)
    for (const entry of [...am, ...bm]) expect(entry.outcome).toBe(entry.name[0] === "worker" && entry.name[1] === "idle" ? "" : "ok");

    // the global spill counters (aggregate copies) equal the SpillBuffer's own totals
    for (const worker of [a.worker, b.worker]) {
      const own = worker.spillBuffer!.cumulativeMetrics;
      const entries = worker.scrape();
      for (const [key, value] of own) {
        const [activity, unit] = key.split("/") as [string, string];
        if (unit === "seconds") expect(total(entries, [activity, unit])).toBeCloseTo(value, 9);
        else expect(total(entries, [activity, unit])).toBe(value);
      }
    }

    // each record is a root of depth ≤ 2 (root → activity), with an outcome
    const execute = records.filter((r) => r.name[0] === "execute" && r.attributes["key"] !== undefined);
    expect(execute.map((r) => r.name.join("/"))).toEqual(["execute/x", "execute/y"]);
    for (const r of records) {
      // consistent trees: children inside their parent, no negative exclusive time
      expect(spanTreeProblems(r)).toEqual([]);
      expect(typeof r.attributes["outcome"]).toBe("string");
      for (const child of r.children) expect(child.children).toEqual([]);
    }
    expect(a.worker.spanRegistry.size).toBe(0);
    expect(b.worker.spanRegistry.size).toBe(0);
    a.worker.state.validateState();
    b.worker.state.validateState();
  });
});
