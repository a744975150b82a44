import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, simulate, workerAddress, type Workload } from "../../src/sim/index.js";

// Times computed by hand: no scheduler or worker overheads.
const cluster = { overheads: NO_OVERHEADS };

function workload(tasks: Array<[key: string, deps: string[], duration: number, nbytes: number]>, name = "hand"): Workload {
  const builder = new GraphBuilder();
  for (const [key, , duration, nbytes] of tasks) builder.addTask({ key, prefix: key.split("-")[0]!, duration, nbytes });
  for (const [key, deps] of tasks) for (const dep of deps) builder.addDependency(builder.idOf(key)!, builder.idOf(dep)!);
  return { name, description: "", graph: builder.build(name), faults: [], cluster: {} };
}

describe("simulate: makespans computed by hand", () => {
  it("one worker, one thread: a chain takes the sum of its durations", async () => {
    const { report } = await simulate(
      workload([
        ["a-0", [], 1, 10],
        ["b-0", ["a-0"], 2, 10],
        ["c-0", ["b-0"], 3, 10],
      ]),
      { workers: 1, threads: 1, network: "instant", validate: true, cluster },
    );
    expect(report.complete).toBe(true);
    expect(report.makespan).toBe(6);
    expect(report.taskRecords.map((r) => [r.key, r.start, r.end, r.thread, r.outcome])).toEqual([
      ["a-0", 0, 1, 0, "ok"],
      ["b-0", 1, 3, 0, "ok"],
      ["c-0", 3, 6, 0, "ok"],
    ]);
    expect(report.tasks).toEqual({ total: 3, completed: 3, erred: 0, lost: 0 });
    expect(report.completion).toBe("all 3 tasks finished: 3 in memory, 0 erred, 0 lost");
    expect(report.perWorker[0]!.utilisation).toBe(1);
  });

  it("one worker, two threads: independent tasks overlap", async () => {
    const { report } = await simulate(
      workload([
        ["a-0", [], 2, 1],
        ["b-0", [], 1, 1],
        ["c-0", [], 1, 1],
      ]),
      { workers: 1, threads: 2, network: "instant", cluster },
    );
    // a-0 on one thread for 2 s; b-0 then c-0 on the other.
    expect(report.makespan).toBe(2);
    expect(report.perWorker[0]!.utilisation).toBe(1);
  });

  it("two workers and a known transfer under latency + bandwidth", async () => {
    const { report } = await simulate(
      workload([
        ["big-0", [], 1, 100e6],
        ["small-0", [], 1, 10e6],
        ["join-0", ["big-0", "small-0"], 1, 1],
      ]),
      { workers: 2, threads: 1, network: "latency-bandwidth", latency: 0.01, bandwidth: 100e6, validate: true, cluster },
    );
    // join-0 runs where the 100 MB are; the 10 MB come over in 0.01 + 10e6 / 100e6 = 0.11 s.
    const join = report.taskRecords.find((r) => r.key === "join-0")!;
    expect(join.worker).toBe(report.taskRecords.find((r) => r.key === "big-0")!.worker);
    expect(join.start).toBeCloseTo(1.11, 12);
    expect(report.makespan).toBeCloseTo(2.11, 12);
    expect(report.transfers).toHaveLength(1);
    expect(report.transfers[0]).toMatchObject({ from: workerAddress(1), to: workerAddress(0), keys: 1, bytes: 10e6, outcome: "ok", start: 1 });
    expect(report.transfers[0]!.end).toBeCloseTo(1.11, 12);
    expect(report.transfer).toEqual({ count: 1, bytes: 10e6 });
    expect(report.perWorker.map((w) => [w.bytesSent, w.bytesReceived])).toEqual([
      [0, 10e6],
      [10e6, 0],
    ]);
  });

  it("reports the fine metrics of every worker under DigestMetric names", async () => {
    const { report } = await simulate("chain", { size: 20, workers: 2 });
    const names = report.metrics.map((m) => m.name.join("/"));
    expect(names).toContain("execute/chain/thread-cpu/seconds");
    const cpu = report.metrics.filter((m) => m.name.join("/") === "execute/chain/thread-cpu/seconds");
    const total = cpu.reduce((sum, m) => sum + m.value, 0);
    const executed = report.taskRecords.reduce((sum, r) => sum + (r.end - r.start), 0);
    expect(total).toBeCloseTo(executed, 6);
    expect(cpu.every((m) => m.outcome === "ok")).toBe(true);
  });
});
