import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, simulate, type Workload } from "../../src/sim/index.js";
import { createNetwork, InstantNetwork, LatencyBandwidthNetwork, MaxMinNetwork, maxMinFairRates, maxMinFairRatesOver } from "../../src/sim/network/index.js";
import { NetworkError, VirtualClock } from "../../src/worker/index.js";

function transfer(from: string, to: string, bytes: number, signal = new AbortController().signal) {
  return { from, to, bytes, keys: 1, signal };
}

describe("maxMinFairRates", () => {
  it("gives a bottlenecked flow its share and the rest to the others (hand-computed)", () => {
    // A sends to B and C; B can only receive 30/s: A→B = 30, and A→C takes the 70 left of A's 100.
    expect(Array.from(maxMinFairRates([0, 0], [1, 2], [100, 100, 100], [100, 30, 100]))).toEqual([30, 70]);
  });

  it("shares a common sender equally and fills the rest (hand-computed)", () => {
    // Flows A→B, A→C, C→B, D→C; all capacities 100.
    // A's send (2 flows, 50 each) and B's receive (2 flows) tie at 50; A→B and A→C freeze at 50,
    // then B has 50 left for C→B, C's receive has 50 left for D→C.
    expect(Array.from(maxMinFairRates([0, 0, 2, 3], [1, 2, 1, 2], [100, 100, 100, 100], [100, 100, 100, 100]))).toEqual([50, 50, 50, 50]);
    // Three flows into B: 100/3 each; B→A alone gets all of B's send capacity.
    const rates = maxMinFairRates([0, 2, 3, 1], [1, 1, 1, 0], [100, 100, 100, 100], [100, 100, 100, 100]);
    expect(rates[0]).toBeCloseTo(100 / 3, 12);
    expect(rates[1]).toBeCloseTo(100 / 3, 12);
    expect(rates[2]).toBeCloseTo(100 / 3, 12);
    expect(rates[3]).toBe(100);
  });

  it("never exceeds a capacity", () => {
    const src = [0, 0, 0, 1, 1, 2, 3, 3];
    const dst = [1, 2, 3, 2, 3, 3, 0, 1];
    const send = [100, 40, 70, 10];
    const receive = [55, 80, 25, 100];
    const rates = maxMinFairRates(src, dst, send, receive);
    for (let e = 0; e < 4; e++) {
      const out = src.reduce((sum, s, f) => sum + (s === e ? rates[f]! : 0), 0);
      const into = dst.reduce((sum, d, f) => sum + (d === e ? rates[f]! : 0), 0);
      expect(out).toBeLessThanOrEqual(send[e]! + 1e-9);
      expect(into).toBeLessThanOrEqual(receive[e]! + 1e-9);
    }
    for (const rate of rates) expect(rate).toBeGreaterThan(0);
  });
});

describe("MaxMinNetwork", () => {
  it("re-shares bandwidth when a flow ends (hand-computed completion times)", async () => {
    const clock = new VirtualClock();
    const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 100 });
    const ends: Record<string, number> = {};
    void network.transfer(transfer("A", "B", 50)).then(() => (ends.b = clock.now()));
    void network.transfer(transfer("A", "C", 100)).then(() => (ends.c = clock.now()));
    let rates: number[] = [];
    clock.setTimer(0.5, () => (rates = network.currentRates().map((f) => f.rate)));
    await clock.run();
    expect(rates).toEqual([50, 50]);
    // Both at 50/s until A→B ends at t=1; then A→C alone at 100/s for its last 50 bytes.
    expect(ends.b).toBeCloseTo(1, 12);
    expect(ends.c).toBeCloseTo(1.5, 12);
  });

  it("adds the latency before the flow starts", async () => {
    const clock = new VirtualClock();
    const network = new MaxMinNetwork(clock, { latency: 0.25, bandwidth: 1000 });
    let end = -1;
    void network.transfer(transfer("A", "B", 500)).then(() => (end = clock.now()));
    await clock.run();
    expect(end).toBeCloseTo(0.75, 12);
  });

  it("fails the transfers of a dead worker with a NetworkError", async () => {
    const clock = new VirtualClock();
    const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 100 });
    const failed = network.transfer(transfer("A", "B", 1000)).then(
      () => "ok",
      (error: unknown) => error,
    );
    const survivor = network.transfer(transfer("C", "B", 100)).then(() => clock.now());
    clock.setTimer(0.5, () => network.failWorker("A"));
    await clock.run();
    expect(await failed).toBeInstanceOf(NetworkError);
    // C→B shared B's receive capacity (50/s) until A died at 0.5, then ran alone at 100/s.
    expect(await survivor).toBeCloseTo(0.5 + 75 / 100, 12);
    const late = network.transfer(transfer("A", "B", 1)).catch((error: unknown) => error);
    await clock.run();
    expect(await late).toBeInstanceOf(NetworkError);
  });

  it("rejects with the abort reason when the receiver gives up", async () => {
    const clock = new VirtualClock();
    const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 100 });
    const controller = new AbortController();
    const result = network.transfer(transfer("A", "B", 1000, controller.signal)).catch((error: unknown) => error);
    clock.setTimer(1, () => controller.abort(new Error("closing")));
    await clock.run();
    expect(((await result) as Error).message).toBe("closing");
    expect(network.currentRates()).toEqual([]);
  });
});

describe("LatencyBandwidthNetwork and InstantNetwork", () => {
  it("takes latency + bytes / bandwidth per transfer, independently", async () => {
    const clock = new VirtualClock();
    const network = new LatencyBandwidthNetwork(clock, { latency: 0.01, bandwidth: 1e6 });
    const ends: number[] = [];
    void network.transfer(transfer("A", "B", 2e6)).then(() => ends.push(clock.now()));
    void network.transfer(transfer("A", "C", 1e6)).then(() => ends.push(clock.now()));
    await clock.run();
    expect(ends[0]).toBeCloseTo(1.01, 12);
    expect(ends[1]).toBeCloseTo(2.01, 12);
  });

  it("instant transfers take no time", async () => {
    const clock = new VirtualClock();
    const network = new InstantNetwork();
    await network.transfer(transfer("A", "B", 1e12));
    expect(clock.now()).toBe(0);
    network.failWorker("B");
    await expect(network.transfer(transfer("A", "B", 1))).rejects.toBeInstanceOf(NetworkError);
  });
});

describe("maxMinFairRatesOver (any resources per flow)", () => {
  it("property: no resource over capacity, and every flow has a saturated bottleneck where no flow gets more (max-min fairness)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.array(fc.nat(7), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        (capacity, rawFlows) => {
          const flows = rawFlows.map((rs) => [...new Set(rs.map((r) => r % capacity.length))]);
          const start = [0];
          const resources: number[] = [];
          for (const rs of flows) {
            resources.push(...rs);
            start.push(resources.length);
          }
          const rates = maxMinFairRatesOver(start, resources, capacity);
          const load = capacity.map((_, r) => flows.reduce((sum, rs, f) => sum + (rs.includes(r) ? rates[f]! : 0), 0));
          load.forEach((used, r) => expect(used).toBeLessThanOrEqual(capacity[r]! * (1 + 1e-9)));
          flows.forEach((rs, f) => {
            expect(rates[f]!).toBeGreaterThan(0);
            const bottleneck = rs.some((r) => load[r]! >= capacity[r]! * (1 - 1e-9) && flows.every((other, g) => !other.includes(r) || rates[g]! <= rates[f]! * (1 + 1e-9)));
            expect(bottleneck).toBe(true);
          });
        },
      ),
      { numRuns: 300, seed: 15 },
    );
  });
});

describe("per-worker capacities and shared hosts", () => {
  const endpoints = (entries: Array<[string, number, number, number]>) => new Map(entries.map(([a, send, receive, host]) => [a, { send, receive, host }]));

  it("max-min: a transfer runs at the smaller of its sender's send and its receiver's receive capacity", async () => {
    const clock = new VirtualClock();
    const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 100, endpoints: endpoints([["A", 40, 100, 0], ["B", 100, 100, 1]]) });
    let end = -1;
    void network.transfer(transfer("A", "B", 80)).then(() => (end = clock.now()));
    await clock.run();
    expect(end).toBeCloseTo(2, 12);
  });

  it("shared-host: a send and a receive at once on one host share its capacity (each runs at half)", async () => {
    for (const kind of ["max-min", "shared-host"] as const) {
      const clock = new VirtualClock();
      const network = createNetwork(kind, clock, { latency: 0, bandwidth: 100, endpoints: endpoints([["A", 100, 100, 0], ["B", 100, 100, 1]]) });
      const ends: number[] = [];
      void network.transfer(transfer("A", "B", 100)).then(() => ends.push(clock.now()));
      void network.transfer(transfer("B", "A", 100)).then(() => ends.push(clock.now()));
      await clock.run();
      // full duplex: 1 s each; shared: A sends and receives through one 100/s capacity, so 50/s each
      expect(ends).toEqual(kind === "max-min" ? [1, 1] : [2, 2]);
    }
    // one transfer alone still gets the whole capacity
    const clock = new VirtualClock();
    const network = createNetwork("shared-host", clock, { latency: 0, bandwidth: 100 });
    let end = -1;
    void network.transfer(transfer("A", "B", 100)).then(() => (end = clock.now()));
    await clock.run();
    expect(end).toBe(1);
  });

  it("shared-host: workers of one host share it, a transfer between them draws on it once", async () => {
    const clock = new VirtualClock();
    // A and B on host 0 (capacity 100), C on host 1
    const network = createNetwork("shared-host", clock, { latency: 0, bandwidth: 100, hostBandwidth: 100, endpoints: endpoints([["A", 100, 100, 0], ["B", 100, 100, 0], ["C", 100, 100, 1]]) });
    const ends: Record<string, number> = {};
    void network.transfer(transfer("A", "B", 50)).then(() => (ends.ab = clock.now()));
    void network.transfer(transfer("C", "B", 50)).then(() => (ends.cb = clock.now()));
    await clock.run();
    // host 0 carries both (A→B once, C→B's receive): 50/s each, both done at t = 1
    expect(ends).toEqual({ ab: 1, cb: 1 });
  });

  it("latency-bandwidth: the smaller of the two ends, no contention", async () => {
    const clock = new VirtualClock();
    const network = createNetwork("latency-bandwidth", clock, { latency: 0.5, bandwidth: 100, endpoints: endpoints([["A", 100, 100, 0], ["B", 100, 25, 1]]) });
    let end = -1;
    void network.transfer(transfer("A", "B", 50)).then(() => (end = clock.now()));
    await clock.run();
    expect(end).toBeCloseTo(2.5, 12);
  });

  it("in a run: worker groups with their own bandwidth", async () => {
    const builder = new GraphBuilder();
    const a = builder.addTask({ key: "big-0", prefix: "big", duration: 1, nbytes: 100e6 });
    const b = builder.addTask({ key: "small-0", prefix: "small", duration: 1, nbytes: 10e6 });
    const c = builder.addTask({ key: "join-0", prefix: "join", duration: 1, nbytes: 1 });
    builder.addDependency(c, a);
    builder.addDependency(c, b);
    const workload: Workload = { name: "join", description: "", graph: builder.build("join"), faults: [], cluster: {} };
    // small-0's worker sends at 10 MB/s: its 10 MB take 1 s (+ 0.01 s latency)
    const { report } = await simulate(workload, {
      network: "latency-bandwidth",
      latency: 0.01,
      cluster: { groups: [{ count: 1, threads: 1, bandwidth: 100e6 }, { count: 1, threads: 1, sendBandwidth: 10e6 }], overheads: NO_OVERHEADS },
    });
    expect(report.makespan).toBeCloseTo(3.01, 9);
  });
});
