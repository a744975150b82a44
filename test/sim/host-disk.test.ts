// A host's disk shared by its workers (disk.hostBandwidth, src/sim/host-disk.ts): durations
// computed by hand on two or three disks, the capacity as an invariant, and the simulator's
// wiring (one HostDisk per host, none without hostBandwidth).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, HostDisk, simulate, simulatedDataSerializer, VirtualDisk, type Workload } from "../../src/sim/index.js";
import { SimulatedData, VirtualClock } from "../../src/index.js";

const bytes = (key: string, n: number) => simulatedDataSerializer.dump(SimulatedData(key, n));

function pair(capacity: number, bandwidth = 100, latency = 0) {
  const clock = new VirtualClock();
  const host = new HostDisk(capacity);
  const a = new VirtualDisk(clock, { bandwidth, latency }, undefined, host);
  const b = new VirtualDisk(clock, { bandwidth, latency }, undefined, host);
  return { clock, host, a, b };
}

async function advance(clock: VirtualClock, to: number): Promise<void> {
  clock.setTimer(to, () => {});
  await clock.run();
}

describe("HostDisk", () => {
  it("a second disk busy at once gets what the first leaves of the host's capacity, then its own bandwidth", () => {
    const { a, b } = pair(150);
    // A alone: 100 bytes at 100 B/s.
    expect(a.write("x", bytes("x", 100)).seconds).toBeCloseTo(1, 12);
    // B at the same instant: 150 − 100 = 50 B/s until A ends at 1 s (50 bytes), the other 50 at 100 B/s.
    expect(b.write("y", bytes("y", 100)).seconds).toBeCloseTo(1.5, 12);
  });

  it("latency is per request and moves no bytes", () => {
    const { a, b } = pair(150, 100, 0.5);
    // A: 0.5 s latency, bytes over [0.5, 1.5) at 100.
    expect(a.write("x", bytes("x", 100)).seconds).toBeCloseTo(1.5, 12);
    // B: latency to 0.5, then 50 B/s to 1.5 (50 bytes), 50 bytes at 100 → 2 s.
    expect(b.write("y", bytes("y", 100)).seconds).toBeCloseTo(2, 12);
  });

  it("a request issued later takes the capacity left for the rest of the earlier one", async () => {
    const { clock, a, b } = pair(150);
    a.write("x", bytes("x", 100)); // [0, 1) at 100
    await advance(clock, 0.5);
    // B from 0.5: 50 B/s until 1 (25 bytes), then 75 bytes at 100 → ends 1.75, 1.25 s after issue.
    expect(b.write("y", bytes("y", 100)).seconds).toBeCloseTo(1.25, 12);
    // An earlier request is never slowed by a later one: A still ends at 1.
    expect(a.idleAt).toBeCloseTo(1, 12);
  });

  it("a host capacity below one disk's bandwidth caps even a request alone", () => {
    const { a } = pair(60);
    expect(a.write("x", bytes("x", 120)).seconds).toBeCloseTo(2, 12);
  });

  it("a disk's own requests stay one at a time: its second waits for its first", () => {
    const { a, b } = pair(150);
    expect(a.write("x", bytes("x", 100)).seconds).toBeCloseTo(1, 12);
    // Queued behind x: [1, 2) at 100, the host free then.
    expect(a.write("z", bytes("z", 100)).seconds).toBeCloseTo(2, 12);
    // B at 0: 50 B/s over [0, 2) while A's two requests run = 100 bytes by 2 s.
    expect(b.write("y", bytes("y", 100)).seconds).toBeCloseTo(2, 12);
  });

  it("three disks: the third waits until the first two leave it something", () => {
    const clock = new VirtualClock();
    const host = new HostDisk(200);
    const disks = [0, 1, 2].map(() => new VirtualDisk(clock, { bandwidth: 100, latency: 0 }, undefined, host));
    expect(disks[0]!.write("a", bytes("a", 100)).seconds).toBeCloseTo(1, 12);
    expect(disks[1]!.write("b", bytes("b", 50)).seconds).toBeCloseTo(0.5, 12);
    // Nothing left until 0.5; then 100 B/s (b done) until 1; then 100 B/s: 100 bytes by 1.5.
    expect(disks[2]!.write("c", bytes("c", 100)).seconds).toBeCloseTo(1.5, 12);
  });

  it("never books more than its capacity, nor a disk more than its bandwidth, and every request gets its bytes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.array(fc.record({ disk: fc.integer({ min: 0, max: 2 }), bytes: fc.integer({ min: 1, max: 500 }), at: fc.integer({ min: 0, max: 20 }) }), { minLength: 1, maxLength: 25 }),
        (capacity, requests) => {
          const host = new HostDisk(capacity);
          const bandwidth = 100;
          // Requests sorted by issue time, as a clock would issue them; each disk serial.
          const sorted = [...requests].sort((x, y) => x.at - y.at);
          const busyUntil = [0, 0, 0];
          const spans: Array<{ from: number; to: number; bytes: number }> = [];
          for (const r of sorted) {
            const start = Math.max(r.at, busyUntil[r.disk]!);
            const end = host.book(start, r.bytes, bandwidth, r.at);
            busyUntil[r.disk] = end;
            spans.push({ from: start, to: end, bytes: r.bytes });
            // At least its bytes at its own bandwidth, and at the capacity (whichever is less).
            expect(end - start).toBeGreaterThanOrEqual(r.bytes / Math.min(bandwidth, capacity) - 1e-9);
            expect(host.bookedAt(start)).toBeLessThanOrEqual(capacity * (1 + 1e-9));
          }
          // Every instant of the run: the host's booked rate within its capacity.
          const last = Math.max(...spans.map((s) => s.to));
          for (let t = 0; t < last; t += last / 97) {
            const now = sorted.at(-1)!.at;
            if (t >= now) expect(host.bookedAt(t)).toBeLessThanOrEqual(capacity * (1 + 1e-9));
          }
        },
      ),
      { seed: 15, numRuns: 300 },
    );
  });
});

/** Two producers per worker whose outputs must spill (memory for one each), then read back. */
function spilling(): Workload {
  const builder = new GraphBuilder();
  const consumers: number[] = [];
  for (let i = 0; i < 8; i++) {
    const p = builder.addTask({ key: `produce-${i}`, prefix: "produce", duration: 0.1, nbytes: 100e6, cpuShare: 0 });
    const c = builder.addTask({ key: `consume-${i}`, prefix: "consume", duration: 0.1, nbytes: 10, cpuShare: 0 });
    builder.addDependency(c, p);
    consumers.push(c);
  }
  const sink = builder.addTask({ key: "sink", prefix: "sink", duration: 0.01, nbytes: 10, cpuShare: 0 });
  for (const c of consumers) builder.addDependency(sink, c);
  return { name: "spilling", description: "", graph: builder.build("spilling"), faults: [], cluster: {} };
}

describe("simulated hosts' shared disks", () => {
  const base = { workers: 2, threads: 2, memoryLimit: 250e6, network: "instant" as const, seed: 3 };

  it("one host's two workers spill slower through a shared disk; a capacity of both bandwidths changes nothing", async () => {
    const disk = { bandwidth: 200e6, latency: 0 };
    const own = (await simulate(spilling(), { ...base, cluster: { workersPerHost: 2, disk } })).report;
    const ample = (await simulate(spilling(), { ...base, cluster: { workersPerHost: 2, disk: { ...disk, hostBandwidth: 400e6 } } })).report;
    const shared = (await simulate(spilling(), { ...base, cluster: { workersPerHost: 2, disk: { ...disk, hostBandwidth: 200e6 } } })).report;
    expect(own.spill.bytesWritten).toBeGreaterThan(0);
    expect(ample.makespan).toBeCloseTo(own.makespan, 9);
    expect(shared.makespan).toBeGreaterThan(own.makespan);
    expect(shared.cluster.disk.hostBandwidth).toBe(200e6);
    expect(own.cluster.disk.hostBandwidth).toBeNull();
  });

  it("workers on hosts of their own share nothing, whatever the host's capacity above their bandwidth", async () => {
    const disk = { bandwidth: 200e6, latency: 0 };
    const own = (await simulate(spilling(), { ...base, cluster: { workersPerHost: 1, disk } })).report;
    const alone = (await simulate(spilling(), { ...base, cluster: { workersPerHost: 1, disk: { ...disk, hostBandwidth: 200e6 } } })).report;
    expect(alone.makespan).toBeCloseTo(own.makespan, 9);
    // The same requests; their service seconds the same up to the host's walk's rounding.
    const { readSeconds, writeSeconds, ...moved } = alone.spill;
    const { readSeconds: ownRead, writeSeconds: ownWrite, ...ownMoved } = own.spill;
    expect(moved).toEqual(ownMoved);
    expect(readSeconds).toBeCloseTo(ownRead, 9);
    expect(writeSeconds).toBeCloseTo(ownWrite, 9);
  });

  it("rejects a bad host capacity with its path, in a cluster section or as a run option, at once", async () => {
    await expect(simulate(spilling(), { ...base, cluster: { disk: { hostBandwidth: -1 } } })).rejects.toThrow(/disk\.hostBandwidth/);
    // As an option it was not checked, and a capacity of 0 left the first spill waiting forever.
    await expect(simulate(spilling(), { ...base, disk: { hostBandwidth: 0 } })).rejects.toThrow("option disk.hostBandwidth must be a positive number, got 0");
    await expect(simulate(spilling(), { ...base, disk: { bandwidth: 0 } })).rejects.toThrow("option disk.bandwidth must be a positive number, got 0");
    await expect(simulate(spilling(), { ...base, disk: { latency: -1 } })).rejects.toThrow("option disk.latency must be seconds ≥ 0, got -1");
    expect(() => new HostDisk(0)).toThrow(/positive finite capacity/);
  });
});
