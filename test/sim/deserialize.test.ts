// A received message's deserialisation holds the receiver's GIL (docs/sim.md, "Network"): the
// network moves the wire's part, the receiver's event loop then deserialises, one booking among
// its others. Every figure computed by hand; a lone transfer's time never depends on it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, resolveCluster, simulate, SpecError, validateSpec, type SimReport, type Workload } from "../../src/sim/index.js";
import { createNetwork, DESERIALIZE_BANDWIDTH, deserializeSeconds, MaxMinNetwork, wireCapacity, type NetworkKind } from "../../src/sim/network/index.js";
import { VirtualClock } from "../../src/worker/index.js";
import { crossWorkload } from "./cross-workload.js";

/**
 * Roots x-i (1 s each, `bytes[i]`), one per worker, and j needing them all: j goes to the worker
 * holding the most bytes and fetches the others' values, each from its own peer, at once.
 */
function join(bytes: readonly number[]): Workload {
  const builder = new GraphBuilder();
  const roots = bytes.map((nbytes, i) => builder.addTask({ key: `x-${i}`, prefix: "x", duration: 1, nbytes }));
  const j = builder.addTask({ key: "j", prefix: "j", duration: 1, nbytes: 1 });
  for (const root of roots) builder.addDependency(j, root);
  return { name: "join", description: "", graph: builder.build("join"), faults: [], cluster: {} };
}

interface Net {
  network?: NetworkKind;
  bandwidth?: number;
  loopBandwidth?: number | false;
  deserializeBandwidth: number | false;
  workerHandling?: number;
}

async function run(workload: Workload, workers: number, net: Net): Promise<SimReport> {
  const cluster = {
    overheads: { ...NO_OVERHEADS, workerHandling: net.workerHandling ?? 0 },
    loopBandwidth: net.loopBandwidth ?? (1e8 as number | false),
    deserializeBandwidth: net.deserializeBandwidth,
  };
  const options = { workers, threads: 1, network: net.network ?? "max-min", latency: 0, bandwidth: net.bandwidth ?? 1e9, cluster, collectSpans: false };
  return (await simulate(workload, options)).report;
}

const ends = (report: SimReport) => report.transfers.map((t) => t.end).sort((a, b) => a - b);
const metric = (report: SimReport, context: string, activity: string) =>
  report.metrics.filter((m) => m.name[0] === context && m.name.at(-2) === activity && m.name.at(-1) === "seconds").reduce((sum, m) => sum + m.value, 0);

describe("the wire's share of a capacity", () => {
  it("is what the deserialisation leaves of the calibrated figure: 1 / wire = 1 / c − d", () => {
    // 100 MB/s end to end, 5 ms per MB deserialising: the wire 5 ms per MB, 200 MB/s
    expect(wireCapacity(1e8, 5e-9)).toBeCloseTo(2e8, 3);
    expect(wireCapacity(1e8, 0)).toBe(1e8);
    // a capacity the deserialisation alone uses up never binds the wire
    expect(wireCapacity(1e9, 5e-9)).toBe(Number.POSITIVE_INFINITY);
    // and the deserialisation then takes all of the lone transfer's byte time, no more
    expect(deserializeSeconds(1e8, 5e-9, 1e9)).toBeCloseTo(0.1, 12);
    expect(deserializeSeconds(1e8, 5e-9, 1e8)).toBeCloseTo(0.5, 12);
  });

  it("a lone transfer takes the same time whatever the deserialisation costs, on every network with a wire (property)", async () => {
    const rate = fc.integer({ min: 1, max: 2000 }).map((mb) => mb * 1e6);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<NetworkKind>("latency-bandwidth", "max-min", "shared-host"),
        rate,
        fc.option(rate, { nil: null }),
        rate,
        fc.integer({ min: 1, max: 500 }).map((mb) => mb * 1e6),
        async (kind, bandwidth, loopBandwidth, deserializeBandwidth, bytes) => {
          const time = async (deserialize: number | null) => {
            const clock = new VirtualClock();
            const network = createNetwork(kind, clock, { latency: 0.001, bandwidth, loopBandwidth, deserializeBandwidth: deserialize });
            let wire = -1;
            void network.transfer({ from: "A", to: "B", bytes, keys: 1, signal: new AbortController().signal }).then(() => (wire = clock.now()));
            await clock.run();
            return wire + network.deserializeSeconds("A", "B", bytes);
          };
          const before = await time(null);
          expect(await time(deserializeBandwidth)).toBeCloseTo(before, 9);
        },
      ),
      { numRuns: 60, seed: 15 },
    );
  });
});

describe("a deserialisation stops its worker's loop", () => {
  it("a flow through it stands still meanwhile: B receives 50 B and sends 150 B at once (loops of 100 B/s, deserialising at 200 B/s)", async () => {
    // the loops' wire share is 200 B/s: 100 each through B's loop, so A→B ends at 0.5 s; B then
    // deserialises 0.25 s, its loop stopped: B→C's 100 B left wait, then move at 200 B/s — 1.25 s, not 1
    const ends = async (hold: boolean) => {
      const clock = new VirtualClock();
      const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 1000, loopBandwidth: 100, deserializeBandwidth: 200 });
      const end: Record<string, number> = {};
      const signal = new AbortController().signal;
      void network.transfer({ from: "A", to: "B", bytes: 50, keys: 1, signal }).then(() => {
        end.AB = clock.now();
        if (hold) network.holdLoop("B", clock.now(), network.deserializeSeconds("A", "B", 50));
      });
      void network.transfer({ from: "B", to: "C", bytes: 150, keys: 1, signal }).then(() => (end.BC = clock.now()));
      await clock.run();
      return end;
    };
    expect(await ends(true)).toEqual({ AB: expect.closeTo(0.5, 9), BC: expect.closeTo(1.25, 9) });
    expect(await ends(false)).toEqual({ AB: expect.closeTo(0.5, 9), BC: expect.closeTo(1, 9) });
  });
});

describe("in a run (max-min, loops of 100 MB/s, 1 GB/s network, deserialisation 200 MB/s)", () => {
  const gil = { deserializeBandwidth: 2e8 } as const;

  it("a lone transfer is unchanged: 100 MB from w0 to w1 take 1 s, the last 0.5 s deserialising on w1's loop", async () => {
    // x-1 holds more, so j runs on w1 and fetches x-0 only: the wire 0.5 s (loops' wire share
    // 200 MB/s), then 0.5 s deserialising (5 ms per MB)
    const off = await run(join([100e6, 150e6]), 2, { deserializeBandwidth: false });
    const on = await run(join([100e6, 150e6]), 2, gil);
    expect(off.transfer.count).toBe(1);
    expect(on.transfer.count).toBe(1);
    expect(ends(off)[0]).toBeCloseTo(2, 9);
    expect(ends(on)[0]).toBeCloseTo(2, 9);
    expect(on.makespan).toBeCloseTo(off.makespan, 9);
    expect(on.makespan).toBeCloseTo(3, 9);
    // the receiver's loop was busy for the deserialisation; the gather-dep root shows it as its own activity
    expect(on.perWorker.map((w) => w.eventLoopSeconds)).toEqual([0, expect.closeTo(0.5, 9)]);
    expect(metric(on, "gather-dep", "deserialize")).toBeCloseTo(0.5, 9);
    expect(metric(off, "gather-dep", "deserialize")).toBe(0);
    expect(on.cluster.network.deserializeBandwidth).toBe(2e8);
    expect(off.cluster.network).not.toHaveProperty("deserializeBandwidth");
  });

  it("duplex: two opposite transfers share both loops for the wire only, then deserialise at once — 1.5 s, not 2 (0.67 of simplex, not 0.5)", async () => {
    // x-0 and x-1 (100 MB) end at 1 s, one per worker; j-0 and j-1 each need both and run one per worker
    const cross = crossWorkload(100e6, 100e6);
    const off = await run(cross, 2, { deserializeBandwidth: false });
    const on = await run(cross, 2, gil);
    expect(new Set(on.transfers.map((t) => t.to)).size).toBe(2);
    // each loop carries a send and a receive: 50 MB/s each, 2 s; with the deserialisation the
    // wire's 200 MB/s loops give 100 MB/s each (1 s), then each receiver deserialises 0.5 s
    expect(ends(off)).toEqual([expect.closeTo(3, 9), expect.closeTo(3, 9)]);
    expect(ends(on)).toEqual([expect.closeTo(2.5, 9), expect.closeTo(2.5, 9)]);
    expect(on.makespan).toBeCloseTo(3.5, 9);
    expect(off.makespan).toBeCloseTo(4, 9);
  });

  it("a deserialisation stops the receiver's sends: 50 MB one way and 150 MB the other, at once", async () => {
    // x-0 (50 MB) and x-1 (150 MB) end at 1 s, one per worker; j-0 and j-1 need both, one per
    // worker. Both loops carry both wires, 100 MB/s each: the 50 MB arrive at 1.5 s and their
    // receiver deserialises until 1.75, its loop stopped — the 100 MB it still sends wait, then
    // move alone at 200 MB/s until 2.25, and their receiver deserialises 0.75 s: 3.0 (2.75 had the
    // loop gone on sending; 3.0 too without any deserialisation, both at 50 MB/s, then 100)
    const on = await run(crossWorkload(50e6, 150e6), 2, gil);
    expect(new Set(on.transfers.map((t) => t.to)).size).toBe(2);
    expect(ends(on)).toEqual([expect.closeTo(1.75, 9), expect.closeTo(3, 9)]);
  });

  it("two receives deserialise one after the other, and a done event waits behind them", async () => {
    // x-2 holds most: j runs where it is and fetches x-0 and x-1 at once. Done events cost 0.1 s: the x's
    // are handled at 1.1, the gathers go out then; the receiver's loop carries both receives (its wire share
    // 200 MB/s: 100 MB/s each), so both wires end at 2.1. The deserialisations run in series on
    // its loop (2.1-2.6, 2.6-3.1); the first gather's done event, booked at 2.6, waits behind the
    // second deserialisation and is handled 3.1-3.2, the second's 3.2-3.3; j runs 3.3-4.3.
    const workload = join([100e6, 100e6, 150e6]);
    const on = await run(workload, 3, { ...gil, workerHandling: 0.1 });
    const off = await run(workload, 3, { deserializeBandwidth: false, workerHandling: 0.1 });
    const receiver = on.perWorker.find((w) => w.address === on.transfers[0]!.to)!;
    expect(new Set(on.transfers.map((t) => t.to))).toEqual(new Set([receiver.address]));
    expect(ends(on)).toEqual([expect.closeTo(2.6, 9), expect.closeTo(3.1, 9)]);
    expect(ends(off)).toEqual([expect.closeTo(3.1, 9), expect.closeTo(3.1, 9)]);
    expect(on.makespan).toBeCloseTo(4.3, 9);
    expect(off.makespan).toBeCloseTo(4.3, 9);
    // the receiver's loop: its x's done event, two deserialisations, two gathers' done events, j's
    expect(receiver.eventLoopSeconds).toBeCloseTo(0.1 + 1 + 0.2 + 0.1, 9);
    expect(metric(on, "gather-dep", "deserialize")).toBeCloseTo(1, 9);
    // the waits: the second deserialisation's 0.5 s queue and both done events' (0.6 and 0.2 s)
    expect(metric(on, "gather-dep", "other")).toBeCloseTo(0.5 + 0.6 + 0.2, 9);
  });

  it("the instant network deserialises nothing", async () => {
    const report = await run(join([100e6, 150e6]), 2, { ...gil, network: "instant" });
    expect(report.makespan).toBeCloseTo(2, 9);
    expect(report.perWorker[1]!.eventLoopSeconds).toBe(0);
  });
});

describe("deserializeBandwidth in the spec", () => {
  const address = (w: number) => `tcp://10.0.0.${w + 1}:8786`;

  it("is dask's unless a layer says otherwise; a higher layer wins, false turns it off", () => {
    expect(resolveCluster({}, undefined, {}, address).deserializeBandwidth).toBe(DESERIALIZE_BANDWIDTH);
    expect(DESERIALIZE_BANDWIDTH).toBe(1.37e9);
    expect(resolveCluster({ deserializeBandwidth: 5e8 }, undefined, {}, address).deserializeBandwidth).toBe(5e8);
    expect(resolveCluster({ deserializeBandwidth: 5e8 }, { deserializeBandwidth: false }, {}, address).deserializeBandwidth).toBeNull();
    expect(validateSpec({ tasks: [{ prefix: "a" }], cluster: { deserializeBandwidth: "1.37 GB" } }).cluster?.deserializeBandwidth).toBe(1.37e9);
  });

  it.each([
    [-1, "cluster.deserializeBandwidth: expected a positive size, got -1"],
    [true, 'cluster.deserializeBandwidth: expected bytes per second (a number or a size such as "500 MB") or false'],
    ["fast", 'cluster.deserializeBandwidth: cannot parse "fast" as a size (examples: 64 KiB, 1.5GB, 200MB)'],
  ])("a bad value (%j) is one issue naming its path", (value, issue) => {
    let issues: readonly string[] = [];
    try {
      validateSpec({ tasks: [{ prefix: "a" }], cluster: { deserializeBandwidth: value } });
    } catch (error) {
      issues = (error as SpecError).issues;
    }
    expect(issues).toEqual([issue]);
  });
});
