// The host CPU model (cluster.host, src/sim/host-cpu.ts; docs/sim.md, "Host CPU"), computed by
// hand: under the `lag` rule a thread that wakes owing waits to be repaid and for the core, then
// runs its slice at full speed, then at its fair share min(1, cores / (load + runnable threads));
// the `credit` rule (a credit earned back while asleep) as before; hosts do not share cores; the
// scheduler's loop counts on its host; a task's wait for a core is its thread-noncpu.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, resolveCluster, simulate, SpecError, validateSpec, type Overheads, type SimReport, type Workload } from "../../src/sim/index.js";
import { cfsCredit, eevdfCredit, eevdfSlice, HostCpu, type HostCpuParameters } from "../../src/sim/host-cpu.js";
import { MaxMinNetwork } from "../../src/sim/network/index.js";
import { VirtualClock } from "../../src/worker/index.js";

function independent(n: number, duration: number, cpuShare: number, nbytes = 10): Workload {
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) builder.addTask({ key: `map-${i}`, prefix: "map", duration, nbytes, cpuShare });
  return { name: "map", description: "", graph: builder.build("map"), faults: [], cluster: {} };
}

function chain(n: number, duration: number, cpuShare: number, nbytes = 10): Workload {
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) {
    const id = builder.addTask({ key: `link-${i}`, prefix: "link", duration, nbytes, cpuShare });
    if (i > 0) builder.addDependency(id, id - 1);
  }
  return { name: "chain", description: "", graph: builder.build("chain"), faults: [], cluster: {} };
}

function metric(report: SimReport, ...name: string[]): number {
  return report.metrics.filter((m) => m.name.join("/") === name.join("/")).reduce((sum, m) => sum + m.value, 0);
}

const overheads = (o: Partial<Overheads>) => ({ ...NO_OVERHEADS, ...o });
const credit = (p: { cores: number; load: number; credit: number }): HostCpuParameters => ({ ...p, rule: "credit", slice: 0 });
const lag = (p: { cores: number; load: number; slice: number }): HostCpuParameters => ({ ...p, rule: "lag", credit: 0 });

/** Mean wall over CPU of `n` bursts of `cpu` seconds, each after a sleep of `sleep` seconds, on a thread of `host`. */
function meanSlowdown(host: HostCpu, cpu: number, sleep: number, n: number): number {
  const thread = host.thread();
  let now = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    now += sleep;
    const end = thread.run(now, cpu);
    sum += (end - now) / cpu;
    now = end;
  }
  return sum / n;
}

describe("a thread of a host under the lag rule (EEVDF)", () => {
  it("1 ms bursts under 2 spinners on 2 cores: none waits at duty 0.25, at duty 0.5 they wait 3 - 1.5 sqrt 3 ms on average (cpu_share.py: means 1.014x and 1.363x)", () => {
    // Its core's run queue holds one of the two spinners: its lag moves at 1/2 (the host's share, 2/3,
    // is for work beyond the slice of 1.5 ms). A burst at full speed leaves it owing (1 - 1/2) x 1 ms,
    // repaid asleep in 1 ms. Duty 0.25 (3 ms asleep): repaid 2 ms before the wake, more than a slice:
    // it has left the queue and runs at once.
    const host = () => new HostCpu(lag({ cores: 2, load: 2, slice: 0.0015 }));
    expect(host().queueShare(2)).toBe(0.5);
    expect(meanSlowdown(host(), 0.001, 0.003, 400)).toBeCloseTo(1, 12);
    // Duty 0.5 (1 ms asleep): repaid τ = 0 before the wake, so still queued, then the next slice end:
    // (slice - τ)² / (2 slice) = 0.75 ms on average.
    const thread = host().thread();
    expect(thread.run(0.001, 0.001)).toBeCloseTo(0.002, 12); // the first wake: no lag
    expect(thread.run(0.003, 0.001)).toBeCloseTo(0.003 + 0.00075 + 0.001, 12);
    // It earned 0.75 / 2 ms waiting, then ran 1 ms: owes 0.125 ms, repaid 0.25 ms after it slept, τ = 0.75.
    expect(thread.run(0.00575, 0.001)).toBeCloseTo(0.00575 + 0.00075 ** 2 / 0.003 + 0.001, 12);
    // Steady state: w = (slice - τ)² / (2 slice) with τ = 1 - 2 (1/2 - w/2) = w (ms): w² - 6w + 2.25 = 0.
    expect(meanSlowdown(host(), 0.001, 0.001, 4000)).toBeCloseTo(1 + 3 - 1.5 * Math.sqrt(3), 3);
    // The credit rule (earned back a second per second asleep) sees neither.
    expect(meanSlowdown(new HostCpu(credit({ cores: 2, load: 2, credit: 0.0015 })), 0.001, 0.001, 400)).toBeCloseTo(1, 12);
  });

  it("moves a thread's lag by its core's share: the others spread evenly once every core is busy", () => {
    const host = new HostCpu(lag({ cores: 4, load: 0, slice: 0.001 }));
    expect(host.queueShare(2)).toBe(1); // a core free
    expect(host.queueShare(3.5)).toBeCloseTo(1 / 1.5, 12); // its core shared half the time
    expect(host.queueShare(8)).toBeCloseTo(1 / 3, 12); // 2 others on each core
    expect(host.queueShare(20)).toBeCloseTo(1 / 6, 12); // below the host's 4 / 21: the balancer's evening out is the longer run's
    expect(host.queueShare(20)).toBeLessThan(host.share(20));
    // On 1 core the queue is the host's.
    expect(new HostCpu(lag({ cores: 1, load: 0, slice: 0 })).queueShare(1.5)).toBeCloseTo(0.4, 12);
  });

  it("a thread that wakes still owing waits to be repaid, then half a slice for the core; waiting earns lag", () => {
    // 1 core, load 1: share 1/2, slice 2 ms. 2 ms at full speed: owes 1 ms, repaid in 2 ms of sleep.
    const host = new HostCpu(lag({ cores: 1, load: 1, slice: 0.002 }));
    const loop = host.thread();
    expect(loop.run(0, 0.002)).toBeCloseTo(0.002, 12);
    // Asleep 1 ms: still owes 0.5 ms, repaid 1 ms after the wake, then the running thread's slice end, 1 ms on average.
    expect(loop.run(0.003, 0.001)).toBeCloseTo(0.003 + 0.001 + 0.001 + 0.001, 12); // 0.006
    // It waited eligible 1 ms (lag +0.5 ms), then ran 1 ms ahead (-0.5 ms): lag 0. Asleep 4 ms: it runs at once.
    expect(loop.run(0.01, 0.001)).toBeCloseTo(0.011, 12);
    // Repaid long before (10 ms asleep): at once.
    expect(loop.run(0.021, 0.001)).toBeCloseTo(0.022, 12);
    expect(loop.waitSeconds).toBeCloseTo(0.002, 12);
  });

  it("runs one slice at full speed once it has the core, then at its share; back-to-back work goes on with the slice", () => {
    const host = new HostCpu(lag({ cores: 1, load: 1, slice: 0.002 }));
    const loop = host.thread();
    expect(loop.run(0, 0.005)).toBeCloseTo(0.002 + 0.003 / 0.5, 12); // 0.008
    expect(loop.run(0.008, 0.001)).toBeCloseTo(0.01, 12); // no slice left: at 1/2
    // With a slice of 0 the rule is the fair share alone, as the credit rule with no credit.
    const plain = new HostCpu(lag({ cores: 2, load: 3, slice: 0 })).thread();
    const none = new HostCpu(credit({ cores: 2, load: 3, credit: 0 })).thread();
    for (const [start, cpu] of [[0, 0.001], [0.0005, 0.002], [0.01, 0.0003], [0.05, 0.004]] as const) expect(plain.run(start, cpu)).toBeCloseTo(none.run(start, cpu), 12);
  });

  it("never waits with a core to spare, whatever it ran before", () => {
    const host = new HostCpu(lag({ cores: 4, load: 2, slice: 0.0015 }));
    const a = host.thread();
    for (let i = 0; i < 50; i++) expect(a.run(i * 0.0011, 0.001)).toBeCloseTo(i * 0.0011 + 0.001, 12);
    expect(a.waitSeconds).toBe(0);
  });

  // One thread's work under the lag rule: the host's cores and load, the slice, and pieces (gap since the last one arrived, CPU seconds).
  const anyCores = fc.integer({ min: 1, max: 4 });
  const anyLoad = fc.double({ min: 0, max: 6, noNaN: true });
  const anySlice = fc.double({ min: 0, max: 0.004, noNaN: true });
  const anyPieces = fc.array(fc.tuple(fc.double({ min: 0, max: 0.005, noNaN: true }), fc.double({ min: 0, max: 0.01, noNaN: true })), { minLength: 1, maxLength: 40 });

  it("keeps wall time between the CPU time and the share's time plus one slice's debt and half a slice (fast-check)", () => {
    fc.assert(
      fc.property(
        anyCores,
        anyLoad,
        anySlice,
        anyPieces,
        (cores, load, slice, pieces) => {
          const host = new HostCpu(lag({ cores, load, slice }));
          const thread = host.thread();
          const s = host.share(load);
          const q = host.queueShare(load);
          let now = 0;
          let done = 0;
          for (const [gap, cpu] of pieces) {
            now += gap;
            const start = Math.max(now, done);
            const end = thread.run(now, cpu);
            const wall = end - start;
            expect(wall).toBeGreaterThanOrEqual(cpu - 1e-12);
            if (s >= 1) expect(wall).toBeCloseTo(cpu, 12);
            else expect(wall).toBeLessThanOrEqual(cpu / s + (slice * (1 - q)) / q + slice / 2 + 1e-12);
            done = end;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never ends a thread's piece earlier when the load rises (fast-check)", () => {
    fc.assert(
      fc.property(
        anyCores,
        anyLoad,
        fc.double({ min: 0, max: 3, noNaN: true }),
        anySlice,
        anyPieces,
        (cores, load, more, slice, pieces) => {
          const ends = (l: number) => {
            const thread = new HostCpu(lag({ cores, load: l, slice })).thread();
            let now = 0;
            return pieces.map(([gap, cpu]) => thread.run((now += gap), cpu));
          };
          const low = ends(load);
          ends(load + more).forEach((end, i) => expect(end).toBeGreaterThanOrEqual(low[i]! - 1e-12));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a thread of a host under the credit rule", () => {
  it("runs at full speed for its credit, then at its share; back-to-back work earns nothing; a sleep earns a second per second", () => {
    // 1 core, 1 other runnable thread: share 1/2; while it runs the other gets (1 - 1) / 1 = 0, so the credit is spent second for second.
    const host = new HostCpu(credit({ cores: 1, load: 1, credit: 0.002 }));
    const loop = host.thread();
    expect(loop.run(0, 0.005)).toBeCloseTo(0.002 + 0.003 / 0.5, 12); // 0.008
    expect(loop.run(0.008, 0.001)).toBeCloseTo(0.01, 12); // no credit left: 0.001 at 1/2
    expect(loop.run(0.011, 0.002)).toBeCloseTo(0.011 + 0.001 + 0.001 / 0.5, 12); // slept 1 ms: 1 ms of credit
    expect(loop.waitSeconds).toBeCloseTo(0.003 + 0.001 + 0.001, 12);
    // Work that arrives while it is busy waits its turn (serial), and the wait for the loop is not a wait for a core.
    expect(loop.run(0.013, 0.001)).toBeCloseTo(0.014 + 0.002, 12);
  });

  it("spends the credit only as fast as it runs ahead of the others: 2 cores, load 3", () => {
    // share 2/4; while it runs on one core the 3 others share the other at 1/3 each: the credit goes at 1 - 1/3.
    const host = new HostCpu(credit({ cores: 2, load: 3, credit: 0.002 }));
    const end = host.thread().run(0, 0.004);
    expect(end).toBeCloseTo(0.003 + 0.001 / 0.5, 12);
  });

  it("never waits while the host has a free core (load below cores - 1)", () => {
    const host = new HostCpu(credit({ cores: 4, load: 2, credit: 0 }));
    const a = host.thread();
    expect(a.run(0, 1)).toBe(1);
    expect(a.waitSeconds).toBe(0);
  });

  it("counts the host's other busy threads and running CPU parts, not those of another host", () => {
    const host = new HostCpu(lag({ cores: 1, load: 0, slice: 0 }));
    const other = new HostCpu(lag({ cores: 1, load: 0, slice: 0 }));
    const a = host.thread();
    const b = host.thread();
    const far = other.thread();
    expect(a.run(0, 0.01)).toBe(0.01); // alone on its core
    expect(far.run(0, 0.01)).toBe(0.01); // another host: a's work does not count
    expect(b.run(0, 0.002)).toBeCloseTo(0.004, 12); // a is busy until 0.01: share 1/2
    expect(host.cpuPart(0.001, 0.005)).toBeCloseTo(0.002, 12); // a busy (b is done): 1/2 … and the part counts for others
    expect(host.others(null, 0.0055)).toBe(2);
    expect(host.taskWaitSeconds).toBeCloseTo(0.001, 12);
  });

  it("defaults the slice and the credit to the kernel's: one EEVDF base slice, 0.75 ms x (1 + log2 cores); CFS's half sched_latency for reference", () => {
    expect(eevdfSlice(2)).toBeCloseTo(0.0015, 12);
    expect(eevdfCredit(1)).toBeCloseTo(0.00075, 12);
    expect(eevdfCredit(2)).toBeCloseTo(0.0015, 12);
    expect(eevdfCredit(64)).toBeCloseTo(0.003, 12); // the scaling stops at 8 cores
    expect(cfsCredit(2)).toBeCloseTo(0.006, 12);
  });
});

describe("cluster.host in a run", () => {
  it("is off by default: no host summary in the report", async () => {
    const { report } = await simulate(independent(8, 0.1, 1), { workers: 1, threads: 1, network: "instant" });
    expect(report.cluster.host).toBeUndefined();
  });

  it("with room for every thread (load 0, more cores than threads) runs exactly as without a model", async () => {
    const workload = independent(40, 0.05, 0.5);
    const cluster = { overheads: overheads({ workerHandling: 0.003, schedulerDecision: 0.002, messageLatency: 0.001 }), workersPerHost: 2 };
    const plain = (await simulate(workload, { workers: 2, threads: 2, cluster })).report;
    const hosted = (await simulate(workload, { workers: 2, threads: 2, cluster: { ...cluster, host: { cores: 16, load: 0 } } })).report;
    expect(hosted.makespan).toBe(plain.makespan);
    expect(hosted.taskRecords).toEqual(plain.taskRecords);
    expect(hosted.cluster.host).toEqual({ cores: 16, load: 0, rule: "lag", slice: eevdfSlice(16), credit: eevdfCredit(16), schedulerHost: 0, coreWaitSeconds: { scheduler: 0, eventLoops: [0, 0], tasks: 0 } });
  });

  it("stretches a task's CPU part by its share, and the wait shows as thread-noncpu", async () => {
    // One worker, one thread, no overheads (the loops book nothing): the task's thread and the load
    // share 1 core: 0.1 s of CPU take 0.2 s, 0.1 s of it waiting for the core.
    const { report } = await simulate(independent(1, 0.1, 1), {
      workers: 1,
      threads: 1,
      network: "instant",
      cluster: { overheads: NO_OVERHEADS, host: { cores: 1, load: 1, slice: 0 } },
      validate: true,
    });
    expect(report.makespan).toBeCloseTo(0.2, 12);
    // (metrics are summed in float32-rounded steps: 1e-6)
    expect(metric(report, "execute", "map", "thread-cpu", "seconds")).toBeCloseTo(0.1, 6);
    expect(metric(report, "execute", "map", "thread-noncpu", "seconds")).toBeCloseTo(0.1, 6);
    expect(report.cluster.host!.coreWaitSeconds.tasks).toBeCloseTo(0.1, 12);
  });

  it("slows the worker's loop beyond its slice: a chain's done events, and the wait is the roots' other time", async () => {
    // A chain on one worker: each done event costs 10 ms of loop CPU, 1 core, load 1, no slice:
    // it takes 20 ms. The tasks sleep (cpu 0). Per link: 0.1 s + 20 ms; the last link's handling ends the run.
    const n = 5;
    const run = (host?: { cores: number; load: number; slice?: number; credit?: number; rule?: "lag" | "credit" }) =>
      simulate(chain(n, 0.1, 0), {
        workers: 1,
        threads: 1,
        network: "instant",
        cluster: { overheads: overheads({ workerHandling: 0.01 }), ...(host === undefined ? {} : { host: { ...host, schedulerHost: null } }) },
        validate: true,
      });
    const plain = (await run()).report;
    const slow = (await run({ cores: 1, load: 1, slice: 0 })).report;
    const starts = slow.taskRecords.map((r) => r.start);
    for (let i = 1; i < n; i++) expect(starts[i]! - slow.taskRecords[i - 1]!.end).toBeCloseTo(0.02, 9);
    for (let i = 1; i < n; i++) expect(plain.taskRecords[i]!.start - plain.taskRecords[i - 1]!.end).toBeCloseTo(0.01, 9);
    expect(slow.cluster.host!.coreWaitSeconds.eventLoops[0]).toBeCloseTo(n * 0.01, 9);
    expect(metric(slow, "execute", "link", "other", "seconds") - metric(plain, "execute", "link", "other", "seconds")).toBeCloseTo(n * 0.01, 6);
    // With a slice of 10 ms the same loop work runs at full speed: each event follows 100 ms of sleep,
    // which repays its 5 ms of lag long before the wake; so with the credit rule and a credit of 10 ms.
    expect((await run({ cores: 1, load: 1, slice: 0.01 })).report.makespan).toBeCloseTo(plain.makespan, 12);
    expect((await run({ cores: 1, load: 1, rule: "credit", credit: 0.01 })).report.makespan).toBeCloseTo(plain.makespan, 12);
  });

  it("puts the scheduler's loop on host 0 by default, with that host's load, or on a host of its own", async () => {
    // Two workers on hosts of their own, 1 core each with load 1, no slice: every loop's work waits as long as it runs.
    const workload = independent(60, 0.01, 0);
    const run = async (schedulerHost?: number | null) =>
      (
        await simulate(workload, {
          workers: 2,
          threads: 1,
          network: "instant",
          cluster: {
            overheads: overheads({ workerHandling: 0.004, schedulerDecision: 0.004 }),
            workersPerHost: 1,
            host: { cores: 1, load: 1, slice: 0, ...(schedulerHost === undefined ? {} : { schedulerHost }) },
          },
        })
      ).report;
    const onZero = await run();
    const onOne = await run(1);
    const own = await run(null);
    expect(onZero.cluster.host!.schedulerHost).toBe(0);
    expect(onOne.cluster.host!.schedulerHost).toBe(1);
    for (const report of [onZero, onOne]) {
      expect(report.cluster.host!.coreWaitSeconds.scheduler).toBeGreaterThanOrEqual(report.cluster.schedulerLoopSeconds - 1e-9);
      for (const [w, seconds] of report.cluster.host!.coreWaitSeconds.eventLoops.entries()) expect(seconds).toBeGreaterThanOrEqual(report.perWorker[w]!.eventLoopSeconds - 1e-9);
    }
    expect(own.cluster.host!.coreWaitSeconds.scheduler).toBe(0);
    expect(own.makespan).toBeLessThan(onZero.makespan);
  });

  it("scales a loop's byte capacity by its thread's share (max-min): 100 bytes through loops of 100/s at shares 1/2 and 1/4 take 4 s", async () => {
    const clock = new VirtualClock();
    const shares = new Map([["A", 0.5], ["B", 0.25]]);
    const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 1000, loopBandwidth: 100, loopShare: (address) => shares.get(address)! });
    let end = -1;
    void network.transfer({ from: "A", to: "B", bytes: 100, keys: 1, signal: new AbortController().signal }).then(() => (end = clock.now()));
    clock.setTimer(1, () => expect(network.moving("A") && network.moving("B") && !network.moving("C")).toBe(true));
    await clock.run();
    expect(end).toBeCloseTo(4, 12);
    expect(network.moving("A")).toBe(false);
  });

  it("scales a transfer in a run by both loops' shares: 100 MB through loops of 100 MB/s on 1-core hosts with load 1 take 2 s, not 1", async () => {
    // Two roots of 100 MB (one per worker, one worker per host), then a task that needs both: one of them moves.
    const builder = new GraphBuilder();
    const a = builder.addTask({ key: "a-0", prefix: "a", duration: 0.1, nbytes: 100e6, cpuShare: 0 });
    const b = builder.addTask({ key: "a-1", prefix: "a", duration: 0.1, nbytes: 100e6, cpuShare: 0 });
    const c = builder.addTask({ key: "join", prefix: "join", duration: 0.1, nbytes: 10, cpuShare: 0 });
    builder.addDependency(c, a);
    builder.addDependency(c, b);
    const workload: Workload = { name: "join", description: "", graph: builder.build("join"), faults: [], cluster: {} };
    const run = async (host?: object) =>
      (
        await simulate(workload, {
          workers: 2,
          threads: 1,
          network: "max-min",
          latency: 0,
          bandwidth: 1e9,
          cluster: { overheads: NO_OVERHEADS, loopBandwidth: 100e6, workersPerHost: 1, ...(host === undefined ? {} : { host }) },
        })
      ).report.transfers;
    const plain = await run();
    const slowed = await run({ cores: 1, load: 1, slice: 0, schedulerHost: null });
    expect(plain).toHaveLength(1);
    expect(plain[0]!.end - plain[0]!.start).toBeCloseTo(1, 9);
    expect(slowed[0]!.end - slowed[0]!.start).toBeCloseTo(2, 9);
  });

  it("never shortens a run of a chain or of independent tasks on one worker when the load rises (fast-check; where timing steers placement it can: docs/sim.md)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 6, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.boolean(),
        async (n, cpu, low, more, isChain) => {
          const workload = isChain ? chain(n, 0.02, cpu) : independent(n, 0.02, cpu);
          const at = async (load: number) =>
            (
              await simulate(workload, {
                workers: 1,
                threads: 2,
                network: "instant",
                cluster: { overheads: overheads({ workerHandling: 0.002, schedulerDecision: 0.001, messageLatency: 0.0005 }), host: { cores: 2, load } },
              })
            ).report.makespan;
          expect(await at(low + more)).toBeGreaterThanOrEqual((await at(low)) - 1e-12);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("cluster.host in specs and profiles", () => {
  const problem = (host: unknown): string => {
    try {
      validateSpec({ tasks: [{ prefix: "a" }], cluster: { host } });
    } catch (error) {
      if (error instanceof SpecError) return error.message;
      throw error;
    }
    return "";
  };

  it("names each bad field by its path", () => {
    expect(problem({ cores: 0 })).toMatch(/cluster\.host\.cores: expected a positive integer/);
    expect(problem({ cores: 2, load: -1 })).toMatch(/cluster\.host\.load: expected a number ≥ 0/);
    expect(problem({ cores: 2, credit: "1 ms" })).toMatch(/cluster\.host\.credit: expected a number/);
    expect(problem({ cores: 2, slice: -1 })).toMatch(/cluster\.host\.slice: expected a number ≥ 0/);
    expect(problem({ cores: 2, rule: "cfs" })).toMatch(/cluster\.host\.rule: expected lag or credit/);
    expect(problem({ cores: 2, core: 2 })).toMatch(/cluster\.host/);
    expect(problem({ cores: 2, schedulerHost: 1.5 })).toMatch(/cluster\.host\.schedulerHost: expected an integer/);
    expect(problem({ cores: 2, load: 4.2, schedulerHost: null })).toBe("");
  });

  it("merges field by field across layers, and needs cores from one of them", () => {
    const address = (w: number) => `sim://${w}`;
    const c = resolveCluster({ host: { cores: 2, load: 0.9 } }, { host: { load: 4.2 } }, {}, address);
    expect(c.host).toEqual({ cores: 2, load: 4.2, rule: "lag", slice: eevdfSlice(2), credit: eevdfCredit(2), schedulerHost: 0 });
    expect(resolveCluster({ host: { cores: 2, rule: "credit" } }, { host: { credit: 0.006 } }, {}, address).host).toMatchObject({ rule: "credit", credit: 0.006 });
    expect(resolveCluster({}, undefined, {}, address).host).toBeNull();
    expect(() => resolveCluster({ host: { load: 1 } }, undefined, {}, address)).toThrow("cluster.host: expected cores (the cores of each host) where another of its fields is set");
    // a field the host's rule never reads is an error, not ignored — also when layers combine
    expect(() => resolveCluster({ host: { cores: 2, credit: 0.006 } }, undefined, {}, address)).toThrow(/^cluster\.host\.credit: only rule credit has a credit/);
    expect(() => resolveCluster({ host: { cores: 2, rule: "lag" } }, { host: { credit: 0.006 } }, {}, address)).toThrow(/^cluster\.host\.credit: only rule credit/);
    expect(() => resolveCluster({ host: { cores: 2, slice: 0.001 } }, { host: { rule: "credit" } }, {}, address)).toThrow(/^cluster\.host\.slice: only rule lag has a slice/);
    expect(() => resolveCluster({ workers: 2, host: { cores: 2, schedulerHost: 3 } }, undefined, {}, address)).toThrow(/schedulerHost: host 3 does not exist \(the workers fill 2 hosts/);
  });
});
