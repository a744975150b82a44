import { describe, expect, it } from "vitest";
import { ModelledBytes, simulate, simulatedDataSerializer, VirtualDisk } from "../../src/sim/index.js";
import { SimulatedData, VirtualClock } from "../../src/index.js";

describe("VirtualDisk", () => {
  it("models latency + bytes / bandwidth, one request at a time", async () => {
    const clock = new VirtualClock();
    const disk = new VirtualDisk(clock, { bandwidth: 100, latency: 0.5 });
    const bytes = simulatedDataSerializer.dump(SimulatedData("x", 200));
    expect(bytes.byteLength).toBe(200);
    expect(disk.write("x", bytes)).toEqual({ seconds: 2.5 });
    // Issued at the same instant: waits for the first write, then 0.5 + 1.
    expect(disk.write("y", simulatedDataSerializer.dump(SimulatedData("y", 100)))).toEqual({ seconds: 4 });
    clock.setTimer(10, () => {});
    await clock.run();
    const read = disk.read("x");
    expect(read.seconds).toBe(2.5);
    expect(simulatedDataSerializer.load(read.bytes)).toEqual(SimulatedData("x", 200));
    expect(disk.totals).toEqual({ bytesWritten: 300, bytesRead: 200, writes: 2, reads: 1, removals: 0, busySeconds: 6.5 });
    disk.delete("x");
    expect(() => disk.read("x")).toThrow('virtual disk: no spilled data for key "x"');
  });

  it("stands in for values without allocating them", () => {
    const bytes = new ModelledBytes(SimulatedData("big", 10e9));
    expect(bytes.byteLength).toBe(10e9);
    expect(bytes.length).toBe(0);
    expect(() => simulatedDataSerializer.dump({ not: "simulated" })).toThrow(/only spill simulated task values/);
  });

  it("charges the modelled disk time to the fine metrics", async () => {
    const { report } = await simulate("spill-pressure", { size: 16, workers: 1, disk: { bandwidth: 1e9, latency: 0 }, network: "instant" });
    const total = (activity: string, unit: string): number =>
      report.metrics.filter((m) => m.name.at(-2) === activity && m.name.at(-1) === unit && m.name.length === 2).reduce((s, m) => s + m.value, 0);
    expect(total("disk-write", "bytes")).toBe(report.spill.bytesWritten);
    expect(total("disk-write", "count")).toBe(report.spill.countWritten);
    // At least bytes / bandwidth (queueing behind earlier requests adds to it).
    expect(total("disk-write", "seconds")).toBeGreaterThanOrEqual(report.spill.bytesWritten / 1e9 - 1e-6);
    expect(total("disk-read", "bytes")).toBe(report.spill.bytesRead);
  });
});
