// What a fetch pays to open a connection (overheads.connectLatency; docs/sim.md, "Network"):
// dask's ConnectionPool opens one when the fetching worker has none idle to the peer and keeps
// it afterwards; a comm that failed is dropped. Every case computed by hand.
import { describe, expect, it } from "vitest";
import { DEFAULT_OVERHEADS, GraphBuilder, NO_OVERHEADS, simulate, validateSpec, type SimReport, type Workload } from "../../src/sim/index.js";

/**
 * x-0 and x-1 (100 MB each) end at 1 s, one per worker; j-0 and j-1 (1 s, `jBytes` each) need
 * both, one per worker, so each fetches the other's x; with `second`, k-0 and k-1 (1 s) need
 * both j's, one per worker: a second fetch in each direction.
 */
function cross(second: boolean, jBytes = 100e6): Workload {
  const builder = new GraphBuilder();
  const x0 = builder.addTask({ key: "x-0", prefix: "x", duration: 1, nbytes: 100e6 });
  const x1 = builder.addTask({ key: "x-1", prefix: "x", duration: 1, nbytes: 100e6 });
  const js: number[] = [];
  for (let j = 0; j < 2; j++) {
    const id = builder.addTask({ key: `j-${j}`, prefix: "j", duration: 1, nbytes: second ? jBytes : 1 });
    builder.addDependency(id, x0);
    builder.addDependency(id, x1);
    js.push(id);
  }
  for (let k = 0; second && k < 2; k++) {
    const id = builder.addTask({ key: `k-${k}`, prefix: "k", duration: 1, nbytes: 1 });
    for (const j of js) builder.addDependency(id, j);
  }
  return { name: "cross", description: "", graph: builder.build("cross"), faults: [], cluster: {} };
}

async function run(workload: Workload, connectLatency: number, network: "latency-bandwidth" | "max-min" | "instant" = "latency-bandwidth"): Promise<SimReport> {
  const options = { workers: 2, threads: 1, network, latency: 0, bandwidth: 1e9, cluster: { overheads: { ...NO_OVERHEADS, connectLatency }, loopBandwidth: false as const } };
  return (await simulate(workload, options)).report;
}

const durations = (report: SimReport) => report.transfers.map((t) => t.end - t.start);

describe("a fetch's connection", () => {
  it("the first fetch between two workers opens one: 50 ms before the 100 MB move at 1 GB/s", async () => {
    const report = await run(cross(false), 0.05);
    expect(report.transfer.count).toBe(2);
    expect(new Set(report.transfers.map((t) => t.to)).size).toBe(2);
    // each direction is its own connection (each worker's pool): both pay it
    for (const d of durations(report)) expect(d).toBeCloseTo(0.15, 9);
    expect(report.makespan).toBeCloseTo(1 + 0.15 + 1, 9);
    expect(report.cluster.overheads.connectLatency).toBe(0.05);
  });

  it("is pooled: the second fetch from the same peer reuses it", async () => {
    const report = await run(cross(true), 0.05);
    expect(report.transfer.count).toBe(4);
    const ends = durations(report).map((d) => Math.round(d * 1e9) / 1e9);
    expect(ends).toEqual([0.15, 0.15, 0.1, 0.1]);
    // x at 1 s, j at 1 + 0.15 + 1, k at 2.15 + 0.1 + 1
    expect(report.makespan).toBeCloseTo(3.25, 9);
  });

  it("costs nothing at 0 (NO_OVERHEADS) and on the instant network", async () => {
    expect(durations(await run(cross(true), 0))).toEqual([0.1, 0.1, 0.1, 0.1].map((d) => expect.closeTo(d, 9)));
    expect((await run(cross(true), 0.05, "instant")).makespan).toBeCloseTo(3, 9);
  });

  it("goes through the max-min network the same way: connect, then the flow", async () => {
    const report = await run(cross(true), 0.05, "max-min");
    // j-0 and j-1 fetch at once in opposite directions: full duplex without loops
    expect(durations(report).map((d) => Math.round(d * 1e9) / 1e9)).toEqual([0.15, 0.15, 0.1, 0.1]);
  });

  it("is dropped when its fetch failed: the fetch after a network failure connects again", async () => {
    // j's fetches (at 1 s) pool a connection each way; k's first fetches (at 2.15 s) take it
    // and fail; the fetches that follow pay the connection again
    const workload: Workload = { ...cross(true), faults: [{ kind: "transfer-failure", probability: 1, after: 2, before: 2.2 }] };
    const report = await run(workload, 0.05);
    const failed = report.transfers.filter((t) => t.outcome === "failed");
    const ok = report.transfers.filter((t) => t.outcome === "ok");
    expect(failed.length).toBeGreaterThan(0);
    for (const t of failed) expect(t.start).toBeCloseTo(2.15, 9);
    expect(ok.length).toBe(4);
    for (const t of ok) expect(t.end - t.start).toBeCloseTo(0.15, 9);
  });

  it("defaults to what dask 2022.12.1 measured here and is settable in a spec", () => {
    expect(DEFAULT_OVERHEADS.connectLatency).toBeGreaterThan(0);
    expect(validateSpec({ tasks: [{ prefix: "a" }], cluster: { overheads: { connectLatency: 0.004 } } }).cluster?.overheads?.connectLatency).toBe(0.004);
  });
});
