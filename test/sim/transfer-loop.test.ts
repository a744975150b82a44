// A transfer passes through the event loops of both its workers (docs/sim.md, "Network"),
// each case computed by hand: the loop's byte capacity that a worker's sends and receives
// share (loopBandwidth), and the waits for a busy loop before a gather's request goes out and
// before the sender's get_data handler runs.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent } from "../../src/state/index.js";
import {
  DEFAULT_LOOP_BANDWIDTH,
  NO_OVERHEADS,
  resolveCluster,
  SerialLoop,
  simulate,
  SimulatedExecutor,
  SpecError,
  validateSpec,
} from "../../src/sim/index.js";
import { createNetwork, MaxMinNetwork } from "../../src/sim/network/index.js";
import { InProcessTransport, LatencyBandwidthNetwork, VirtualClock, Worker } from "../../src/worker/index.js";
import { MemoryStore, total } from "../worker/helpers.js";
import { crossWorkload } from "./cross-workload.js";

/** Starts every transfer `[from, to, bytes]` at 0 and runs the clock: each one's end, and the rates at `sampleAt`. */
async function run(clock: VirtualClock, network: { transfer: MaxMinNetwork["transfer"]; currentRates?: () => Array<{ rate: number }> }, transfers: Array<[string, string, number]>, sampleAt = 0) {
  const ends: number[] = transfers.map(() => -1);
  transfers.forEach(([from, to, bytes], i) => {
    void network.transfer({ from, to, bytes, keys: 1, signal: new AbortController().signal }).then(() => (ends[i] = clock.now()));
  });
  let rates: number[] = [];
  if (sampleAt > 0) clock.setTimer(sampleAt, () => (rates = network.currentRates?.().map((f) => f.rate) ?? []));
  await clock.run();
  return { ends, rates };
}

describe("the loop's byte capacity (max-min, shared-host)", () => {
  it("bounds one transfer alone: 60 bytes through loops of 60/s take 1 s on a 100/s network", async () => {
    const clock = new VirtualClock();
    const { ends } = await run(clock, new MaxMinNetwork(clock, { latency: 0, bandwidth: 100, loopBandwidth: 60 }), [["A", "B", 60]]);
    expect(ends[0]).toBeCloseTo(1, 12);
  });

  it("is shared by a worker's sends and receives: two opposite transfers run at half of it each", async () => {
    for (const loopBandwidth of [100, null]) {
      const clock = new VirtualClock();
      const { ends } = await run(clock, new MaxMinNetwork(clock, { latency: 0, bandwidth: 100, loopBandwidth }), [
        ["A", "B", 100],
        ["B", "A", 100],
      ]);
      // each loop carries one send and one receive: 50/s each; without loops, full duplex at 100/s
      expect(ends).toEqual(loopBandwidth === null ? [1, 1] : [2, 2]);
    }
  });

  it("binds at the worker that carries most: A sends to B and receives from C through one loop", async () => {
    const clock = new VirtualClock();
    const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 100, loopBandwidth: 120 });
    const { ends, rates } = await run(
      clock,
      network,
      [
        ["A", "B", 60],
        ["C", "A", 30],
      ],
      0.1,
    );
    // A's loop (120/s) is the bottleneck: 60/s each; C→A's 30 bytes end at 0.5 s, then A→B gets
    // the smaller of its send (100/s) and A's loop (120/s) for its last 30 bytes: 0.3 s more
    expect(rates).toEqual([60, 60]);
    expect(ends[1]).toBeCloseTo(0.5, 12);
    expect(ends[0]).toBeCloseTo(0.8, 12);
  });

  it("property: a loop that can carry all its worker sends and receives at once changes no transfer's end", async () => {
    const flow = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 500 }), fc.integer({ min: 0, max: 20 }));
    await fc.assert(
      fc.asyncProperty(fc.array(flow, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 100 }), async (flows, spare) => {
        const ends = async (loopBandwidth: number | null) => {
          const clock = new VirtualClock();
          const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 100, loopBandwidth });
          const out: number[] = flows.map(() => -1);
          flows.forEach(([from, offset, bytes, at], i) => {
            const transfer = { from: `w${from}`, to: `w${(from + offset) % 4}`, bytes, keys: 1, signal: new AbortController().signal };
            clock.setTimer(at / 10, () => void network.transfer(transfer).then(() => (out[i] = clock.now())));
          });
          await clock.run();
          return out;
        };
        // 100/s each way: a loop of 200/s or more never runs out before the sends and receives do
        const without = await ends(null);
        const unbound = await ends(200 + spare);
        unbound.forEach((end, i) => expect(end).toBeCloseTo(without[i]!, 9));
      }),
      { numRuns: 60 },
    );
  });

  it("shared-host: the host's capacity and the loops, whichever binds", async () => {
    const endpoints = new Map([
      ["A", { send: 100, receive: 100, host: 0 }],
      ["B", { send: 100, receive: 100, host: 1 }],
    ]);
    for (const [loopBandwidth, seconds] of [
      [150, 2 / 1.5],
      [400, 1],
    ] as const) {
      const clock = new VirtualClock();
      const { ends } = await run(clock, createNetwork("shared-host", clock, { latency: 0, bandwidth: 100, hostBandwidth: 200, endpoints, loopBandwidth }), [
        ["A", "B", 100],
        ["B", "A", 100],
      ]);
      // loops of 150/s: 75/s each; loops of 400/s: the hosts' 200/s and the workers' 100/s allow 100/s each
      for (const end of ends) expect(end).toBeCloseTo(seconds, 12);
    }
  });
});

describe("loopBandwidth in the cluster", () => {
  const address = (worker: number) => `w${worker}`;

  it("defaults to dask's measured loop, and false turns it off; a higher layer wins", () => {
    expect(resolveCluster({}, undefined, {}, address).loopBandwidth).toBe(DEFAULT_LOOP_BANDWIDTH);
    expect(resolveCluster({ loopBandwidth: false }, undefined, {}, address).loopBandwidth).toBeNull();
    expect(resolveCluster({ loopBandwidth: false }, { loopBandwidth: 5e8 }, {}, address).loopBandwidth).toBe(5e8);
    expect(validateSpec({ tasks: [{ prefix: "a" }], cluster: { loopBandwidth: "500 MB" } }).cluster?.loopBandwidth).toBe(5e8);
  });

  it("names a bad value with its path", () => {
    let issues: readonly string[] = [];
    try {
      validateSpec({ tasks: [{ prefix: "a" }], cluster: { loopBandwidth: -1 } });
    } catch (error) {
      issues = (error as SpecError).issues;
    }
    expect(issues).toEqual(["cluster.loopBandwidth: expected a positive size, got -1"]);
    try {
      validateSpec({ tasks: [{ prefix: "a" }], cluster: { loopBandwidth: true } });
      issues = [];
    } catch (error) {
      issues = (error as SpecError).issues;
    }
    expect(issues).toEqual(['cluster.loopBandwidth: expected bytes per second (a number or a size such as "500 MB") or false']);
  });

  it("in a run: two joins fetch in opposite directions at once and share both loops (hand-computed makespan)", async () => {
    // x-0 and x-1 (100 MB each) end at 1 s, one per worker; j-0 and j-1 each need both, one
    // per worker (the second goes where the first is not, its occupancy being lower), so
    // at 1 s 100 MB move each way: on a 1 GB/s network 0.1 s, through loops of 1 GB/s 0.2 s
    // (no deserialisation: deserialize.test.ts has the same run with one).
    const workload = crossWorkload(100e6, 100e6);
    const run = async (loopBandwidth: number | false) =>
      (await simulate(workload, { workers: 2, threads: 1, network: "max-min", latency: 0, bandwidth: 1e9, cluster: { overheads: NO_OVERHEADS, loopBandwidth, deserializeBandwidth: false } })).report;
    const shared = await run(1e9);
    expect(shared.transfer.count).toBe(2);
    expect(new Set(shared.transfers.map((t) => t.to)).size).toBe(2);
    expect(shared.makespan).toBeCloseTo(2.2, 9);
    expect(shared.cluster.network.loopBandwidth).toBe(1e9);
    const duplex = await run(false);
    expect(duplex.makespan).toBeCloseTo(2.1, 9);
    expect(duplex.cluster.network.loopBandwidth).toBeNull();
  });
});

describe("a transfer waits for busy loops", () => {
  const A = "127.0.0.1:1";
  const B = "127.0.0.1:2";

  /** Two workers over a 10 ms, 1 MB/s wire, each with its own loop (no cost per done event). */
  function pair() {
    const clock = new VirtualClock();
    const transport = new InProcessTransport({ network: new LatencyBandwidthNetwork({ clock, latency: 0.01, bandwidth: 1e6 }) });
    const loops = [new SerialLoop(clock), new SerialLoop(clock)] as const;
    const [a, b] = [A, B].map((address, i) => {
      const worker = new Worker({
        address,
        clock,
        executor: new SimulatedExecutor(),
        transport,
        send: () => undefined,
        spill: { store: new MemoryStore() },
        eventLoop: loops[i]!,
        onError: (error) => {
          throw error;
        },
      });
      transport.register(worker);
      return worker;
    }) as [Worker, Worker];
    a.updateData({ "x-1": "value" });
    const fetch = () =>
      b.handleStimulus(
        ComputeTaskEvent({
          key: "y-1",
          stimulusId: "compute-y",
          whoHas: { "x-1": [A] },
          nbytes: { "x-1": a.state.tasks.get("x-1")!.nbytes! },
          runSpec: { durations: { "thread-cpu": 1 }, outputBytes: 10 },
        }),
      );
    return { clock, loops, a, b, fetch, wire: 0.01 + a.state.tasks.get("x-1")!.nbytes! / 1e6 };
  }

  it("the gather's request goes out once the receiver's loop is through what was booked before it", async () => {
    const { clock, loops, b, fetch, wire } = pair();
    loops[1].reserve(0.3); // B's loop is busy (a spill, say) until 0.3 s
    fetch();
    await clock.runUntilIdle();
    // y-1 starts when x-1 arrives: 0.3 s of waiting, then the wire; the wait is the root's `other`
    expect(b.state.tasks.get("y-1")?.state).toBe("memory");
    expect(clock.now()).toBeCloseTo(0.3 + wire + 1, 9);
    const m = b.scrape();
    expect(total(m, ["gather-dep", "x", "other", "seconds"])).toBeCloseTo(0.3, 9);
    expect(total(m, ["gather-dep", "x", "network", "seconds"])).toBeCloseTo(wire, 9);
  });

  it("the sender's get_data runs once the sender's loop is through what was booked before the request", async () => {
    const { clock, loops, b, fetch, wire } = pair();
    loops[0].reserve(0.5); // A's loop is busy until 0.5 s
    fetch();
    await clock.runUntilIdle();
    expect(b.state.tasks.get("y-1")?.state).toBe("memory");
    expect(clock.now()).toBeCloseTo(0.5 + wire + 1, 9);
    // to the receiver, the wait is part of the transfer
    expect(total(b.scrape(), ["gather-dep", "x", "network", "seconds"])).toBeCloseTo(0.5 + wire, 9);
  });
});
