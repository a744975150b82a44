import { describe, expect, it } from "vitest";
import { InstantNetwork, LatencyBandwidthNetwork, MaxMinNetwork, maxMinFairRates } from "../../src/sim/network/index.js";
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
