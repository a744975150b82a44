// A spilled value's file removed when it is read back (or freed): dask's zict File.__delitem__,
// an os.remove on the worker's event loop, in the disk's and the loop's accounting and in no
// span of the SpillBuffer (docs/sim.md, "Disk"). Times by hand.
import { describe, expect, it } from "vitest";
import { SerialLoop, simulate, simulatedDataSerializer, VirtualDisk } from "../../src/sim/index.js";
import { SimulatedData, SpillBuffer, VirtualClock } from "../../src/index.js";

const dump = (key: string, nbytes: number) => simulatedDataSerializer.dump(SimulatedData(key, nbytes));

describe("VirtualDisk: a file removed", () => {
  it("costs removeLatency + bytes / removeBandwidth, after the requests before it, and tells the loop", () => {
    const clock = new VirtualClock();
    const served: number[] = [];
    const disk = new VirtualDisk(clock, { bandwidth: 100, latency: 0, removeLatency: 0.01, removeBandwidth: 1000 }, (s) => served.push(s));
    expect(disk.write("x", dump("x", 100))).toEqual({ seconds: 1 });
    disk.delete("x");
    // 0.01 + 100 / 1000 = 0.11, after the write: the disk is busy until 1.11, so a read of 50 B issued now ends at 1.61.
    expect(disk.write("y", dump("y", 50)).seconds).toBeCloseTo(1.61, 12);
    expect(served[0]).toBe(1);
    expect(served[1]).toBeCloseTo(0.11, 12);
    expect(served[2]).toBeCloseTo(0.5, 12);
    expect(disk.totals.removals).toBe(1);
    expect(disk.totals.busySeconds).toBeCloseTo(1.61, 12);
  });

  it("costs nothing by default, nor for a key it does not hold", () => {
    const clock = new VirtualClock();
    const served: number[] = [];
    const free = new VirtualDisk(clock, { bandwidth: 100, latency: 0 }, (s) => served.push(s));
    free.write("x", dump("x", 100));
    free.delete("x");
    expect(served).toEqual([1]);
    expect(free.totals.removals).toBe(0);
    const costly = new VirtualDisk(clock, { bandwidth: 100, latency: 0, removeLatency: 0.01 }, (s) => served.push(s));
    costly.delete("never-written");
    expect(served).toEqual([1]);
    expect(costly.totals.busySeconds).toBe(0);
  });
});

describe("SpillBuffer on a VirtualDisk: a spilled value read back", () => {
  it("books read + removal on the loop; its disk-read records the read alone", () => {
    const clock = new VirtualClock();
    const loop = new SerialLoop(clock);
    const disk = new VirtualDisk(clock, { bandwidth: 100, latency: 0, removeLatency: 0.02, removeBandwidth: 400 }, (s) => void loop.reserve(s));
    const buffer = new SpillBuffer({ target: 150, store: disk, serializer: simulatedDataSerializer, clock });
    buffer.set("a", SimulatedData("a", 100));
    buffer.set("b", SimulatedData("b", 100)); // a spills: write 1 s
    expect(buffer.slow.has("a")).toBe(true);
    buffer.get("a"); // read 1 s, file removed 0.02 + 0.25 s; b spills (write 1 s)
    expect(buffer.slow.has("a")).toBe(false);
    expect(disk.totals).toMatchObject({ writes: 2, reads: 1, removals: 1 });
    expect(loop.busySeconds).toBeCloseTo(1 + 1 + 0.27 + 1, 12);
    expect(loop.idleIn()).toBeCloseTo(3.27, 12);
    const seconds = (activity: string) => buffer.cumulativeMetrics.get(`${activity}/seconds`) ?? 0;
    expect(seconds("disk-read")).toBeCloseTo(2, 12); // issued at 0 behind the first write: ends at 2
    expect(buffer.cumulativeMetrics.get("disk-read/count")).toBe(1);
  });

  it("a heavy value (over target) read back keeps its file: nothing removed", () => {
    const clock = new VirtualClock();
    const disk = new VirtualDisk(clock, { bandwidth: 100, latency: 0, removeLatency: 0.02 });
    const buffer = new SpillBuffer({ target: 50, store: disk, serializer: simulatedDataSerializer, clock });
    buffer.set("big", SimulatedData("big", 100));
    buffer.get("big");
    expect(buffer.slow.has("big")).toBe(true);
    expect(disk.totals.removals).toBe(0);
  });
});

describe("in a simulated run", () => {
  const options = { size: 16, workers: 1, network: "instant" as const };
  it("every removal is on the worker's loop: eventLoopSeconds grows by removals × cost when nothing else moves", async () => {
    const base = await simulate("spill-pressure", { ...options, disk: { bandwidth: 1e9, latency: 0 } });
    const cost = 0.0005;
    const removing = await simulate("spill-pressure", { ...options, cluster: { disk: { bandwidth: 1e9, latency: 0, removeLatency: cost } } });
    expect(removing.report.complete).toBe(true);
    expect(removing.report.cluster.disk).toMatchObject({ removeLatency: cost, removeBandwidth: null });
    expect(base.report.cluster.disk).toMatchObject({ removeLatency: 0, removeBandwidth: null });
    // Every spilled value is removed once (read back, or freed) unless it is an output kept to the end.
    expect(removing.report.spill.countWritten).toBeGreaterThan(0);
    // Same spills, reads and done events as without the cost: the loop differs by a whole number of removals.
    expect(removing.report.spill).toEqual(base.report.spill);
    const removals = (removing.report.perWorker[0]!.eventLoopSeconds - base.report.perWorker[0]!.eventLoopSeconds) / cost;
    expect(Math.abs(removals - Math.round(removals))).toBeLessThan(1e-6);
    // each value read back is removed; so is each spilled value freed; outputs still spilled at the end are not
    expect(Math.round(removals)).toBeGreaterThanOrEqual(removing.report.spill.countRead);
    expect(Math.round(removals)).toBeLessThanOrEqual(removing.report.spill.countWritten);
    expect(removing.report.makespan).toBeGreaterThanOrEqual(base.report.makespan);
    // The removals are in no SpillBuffer activity: the disk-read and disk-write seconds are the reads' and writes'.
    const total = (report: typeof base.report, activity: string) =>
      report.metrics.filter((m) => m.name.length === 2 && m.name[0] === activity && m.name[1] === "count").reduce((s, m) => s + m.value, 0);
    expect(total(removing.report, "disk-read")).toBe(total(base.report, "disk-read"));
  });
});
