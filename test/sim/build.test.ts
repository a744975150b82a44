// A task that builds its output (a spec's `buildBandwidth`; docs/sim.md, "Tasks that build
// their output"), computed by hand: the build is B = outputSize / buildBandwidth seconds of
// CPU counted inside the duration D — the CPU part c·D + B, the sleep max(0, (1 − c)·D − B) —
// and a build slowed by the host's cores (or the GIL) shortens the sleep instead of adding to
// it; with a host model the loops' byte capacity follows the host's runnable threads as CPU
// parts start and end.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, simulate, validateSpec, type SimReport, type TaskInit, type Workload } from "../../src/sim/index.js";
import { workerGil } from "../../src/sim/gil.js";
import { validateTaskModel } from "../../src/sim/simulated-executor.js";
import { ClusterCpu, HostCpu } from "../../src/sim/host-cpu.js";
import { MaxMinNetwork } from "../../src/sim/network/index.js";
import { VirtualClock } from "../../src/worker/index.js";

type Task = Omit<TaskInit, "key" | "prefix">;

function tasks(list: readonly Task[], chained = false): Workload {
  const builder = new GraphBuilder();
  list.forEach((task, i) => {
    const id = builder.addTask({ key: `t-${i}`, prefix: "t", ...task });
    if (chained && i > 0) builder.addDependency(id, id - 1);
  });
  return { name: "t", description: "", graph: builder.build("t"), faults: [], cluster: {} };
}

function metric(report: SimReport, activity: string): number {
  return report.metrics.filter((m) => m.name.join("/") === `execute/t/${activity}/seconds`).reduce((sum, m) => sum + m.value, 0);
}

/** One worker, `threads` threads, no overheads, no network; `host`: a host model's section. */
async function run(workload: Workload, host?: object, threads = 1): Promise<SimReport> {
  const cluster = { overheads: NO_OVERHEADS, ...(host === undefined ? {} : { host: { schedulerHost: null, ...host } }) };
  return (await simulate(workload, { workers: 1, threads, network: "instant", cluster, validate: true })).report;
}

const spanOf = (report: SimReport, i = 0): number => {
  const record = report.taskRecords.find((r) => r.key === `t-${i}`)!;
  return record.end - record.start;
};

describe("a task that builds its output (buildBandwidth)", () => {
  it("builds inside its duration: 10 MB at 100 MB/s in a 0.1 s task is its whole 0.1 s, as CPU; at 50 MB/s the task takes 0.2 s", async () => {
    const fits = await run(tasks([{ duration: 0.1, nbytes: 10e6, cpuShare: 0, buildBandwidth: 100e6 }]));
    expect(spanOf(fits)).toBeCloseTo(0.1, 12);
    // (metrics are summed in float32-rounded steps: 1e-6)
    expect(metric(fits, "thread-cpu")).toBeCloseTo(0.1, 6);
    expect(metric(fits, "thread-noncpu")).toBe(0);
    const slow = await run(tasks([{ duration: 0.1, nbytes: 10e6, cpuShare: 0, buildBandwidth: 50e6 }]));
    expect(spanOf(slow)).toBeCloseTo(0.2, 12);
    expect(metric(slow, "thread-cpu")).toBeCloseTo(0.2, 6);
  });

  it("adds the build to the task's own CPU part and takes it off the rest: cpu 0.5 of 0.1 s with 1 MB at 100 MB/s is 0.06 s of CPU, 0.04 s asleep", async () => {
    const report = await run(tasks([{ duration: 0.1, nbytes: 1e6, cpuShare: 0.5, buildBandwidth: 100e6 }]));
    expect(spanOf(report)).toBeCloseTo(0.1, 12);
    expect(metric(report, "thread-cpu")).toBeCloseTo(0.06, 6);
    expect(metric(report, "thread-noncpu")).toBeCloseTo(0.04, 6);
    // All CPU (cpu 1): nothing to take the build off, the task takes D + B.
    expect(spanOf(await run(tasks([{ duration: 0.1, nbytes: 1e6, cpuShare: 1, buildBandwidth: 100e6 }])))).toBeCloseTo(0.11, 12);
  });

  it("a build that waits for a core shortens the sleep: on 1 core beside a load of 1, 20 ms of build take 40 ms and the task still takes 0.1 s", async () => {
    // Share 1/2 (slice 0): the build's 0.02 s take 0.04 s; the sleep is 0.08 − 0.02 = 0.06 s.
    const host = { cores: 1, load: 1, slice: 0 };
    const built = await run(tasks([{ duration: 0.1, nbytes: 2e6, cpuShare: 0, buildBandwidth: 100e6 }]), host);
    expect(spanOf(built)).toBeCloseTo(0.1, 12);
    expect(metric(built, "thread-cpu")).toBeCloseTo(0.02, 6);
    expect(metric(built, "thread-noncpu")).toBeCloseTo(0.08, 6);
    expect(built.cluster.host!.coreWaitSeconds.tasks).toBeCloseTo(0.02, 12);
    // The task's own CPU part of the same 0.02 s keeps its semantics: its wait adds.
    expect(spanOf(await run(tasks([{ duration: 0.1, nbytes: 2e6, cpuShare: 0.2 }]), host))).toBeCloseTo(0.12, 12);
    // Once wait + build pass the duration there is no sleep left: 60 ms of build take 0.12 s.
    expect(spanOf(await run(tasks([{ duration: 0.1, nbytes: 6e6, cpuShare: 0, buildBandwidth: 100e6 }]), host))).toBeCloseTo(0.12, 12);
  });

  it("a build whose wait eats the sleep leaves no lateness behind: the task is not late, whatever its overrun", async () => {
    // D 0.1, B 0.06 at share 1/2 (0.12 s on the core): the sleep D − B = 0.04 s is eaten by the
    // build's 0.06 s wait, so `work` sleeps not at all and the task takes 0.12 s. With a mean
    // overrun of 1 s every drawn lateness lies beyond the 0.02 s the wait has left of it.
    const host = { cores: 1, load: 1, slice: 0, schedulerHost: null };
    for (const seed of [1, 2, 3]) {
      const workload = tasks([{ duration: 0.1, nbytes: 6e6, cpuShare: 0, buildBandwidth: 100e6 }]);
      const report = (await simulate(workload, { workers: 1, threads: 1, network: "instant", seed, cluster: { overheads: { ...NO_OVERHEADS, taskOverrun: 1 }, host } })).report;
      expect(spanOf(report)).toBeCloseTo(0.12, 12);
    }
  });

  it("splits one CPU part's wait by its seconds: the build's share comes off the sleep, the task's own share adds", async () => {
    // D 0.2, cpu 0.5, B 0.02 at share 1/2: the CPU part's 0.12 s take 0.24 s; 0.02 s of the wait
    // is the build's, 0.1 s the task's own; the sleep 0.1 − 0.02 − 0.02 = 0.06 s: D + 0.1 in all.
    const report = await run(tasks([{ duration: 0.2, nbytes: 2e6, cpuShare: 0.5, buildBandwidth: 100e6 }]), { cores: 1, load: 1, slice: 0 });
    expect(spanOf(report)).toBeCloseTo(0.3, 12);
    expect(metric(report, "thread-cpu")).toBeCloseTo(0.12, 6);
    expect(metric(report, "thread-noncpu")).toBeCloseTo(0.18, 6);
  });

  it("with gil: true the build holds the GIL, and its wait for the lock shortens the sleep too", async () => {
    // Two tasks on two threads of one worker, each building 50 ms under the lock: they share it
    // (each at 1/2) and finish their builds at 0.1 s, which leaves no sleep: both end at 0.1 s.
    const task = { duration: 0.1, nbytes: 5e6, cpuShare: 0, buildBandwidth: 100e6, gil: true };
    const report = await run(tasks([task, task]), undefined, 2);
    expect(spanOf(report, 0)).toBeCloseTo(0.1, 12);
    expect(spanOf(report, 1)).toBeCloseTo(0.1, 12);
    expect(metric(report, "thread-cpu")).toBeCloseTo(0.1, 6);
    expect(report.perWorker[0]!.gilWaitSeconds).toBeCloseTo(0.1, 12);
    // Without the GIL the builds run side by side: 50 ms each, then 50 ms asleep.
    const released = await run(tasks([{ ...task, gil: false }, { ...task, gil: false }]), undefined, 2);
    expect(metric(released, "thread-noncpu")).toBeCloseTo(0.1, 6);
  });

  it("never makes a task end earlier: a chain with builds against the same chain without (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            duration: fc.double({ min: 0, max: 0.2, noNaN: true }),
            cpuShare: fc.double({ min: 0, max: 1, noNaN: true }),
            nbytes: fc.integer({ min: 0, max: 20e6 }),
            bandwidth: fc.double({ min: 1e7, max: 1e10, noNaN: true }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.option(fc.record({ cores: fc.integer({ min: 1, max: 2 }), load: fc.double({ min: 0, max: 4, noNaN: true }) }), { nil: undefined }),
        async (list, host) => {
          const plain = await run(tasks(list, true), host);
          const built = await run(tasks(list.map((t) => ({ ...t, buildBandwidth: t.bandwidth })), true), host);
          list.forEach((_, i) => expect(built.taskRecords[i]!.end).toBeGreaterThanOrEqual(plain.taskRecords[i]!.end - 1e-12));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("takes today's path where nothing is built (no field, or an output of 0 bytes): the same report", async () => {
    const list = [{ duration: 0.1, nbytes: 0, cpuShare: 0.3 }, { duration: 0.05, nbytes: 0, cpuShare: 0 }];
    const plain = await run(tasks(list, true), { cores: 1, load: 1 });
    const built = await run(tasks(list.map((t) => ({ ...t, buildBandwidth: 1e6 })), true), { cores: 1, load: 1 });
    expect(JSON.stringify(built)).toBe(JSON.stringify(plain));
  });

  it("a task model's build and overrun are finite seconds ≥ 0, else the model's error names the field", () => {
    const model = (extra: object): unknown => ({ durations: { "thread-cpu": 0.1, "thread-noncpu": 0.1 }, outputBytes: 0, ...extra });
    expect(validateTaskModel(model({ build: 0.05, overrun: 0.01 }), "k")).toMatchObject({ build: 0.05, overrun: 0.01 });
    for (const [field, value] of [["build", -1], ["build", Number.NaN], ["overrun", -0.5], ["overrun", Number.POSITIVE_INFINITY], ["overrun", "1"]] as const) {
      expect(() => validateTaskModel(model({ [field]: value }), "k")).toThrow(new RegExp(`${field} must be a finite number of seconds`));
    }
  });

  it("reads the field in specs and task tables, as bytes/s or a size", () => {
    const spec = validateSpec({ tasks: [{ prefix: "a", buildBandwidth: "1.6 GB" }, { prefix: "b" }] });
    expect(spec.tasks[0]!.buildBandwidth).toBe(1.6e9);
    expect(spec.tasks[1]!.buildBandwidth).toBeUndefined();
    const table = validateSpec({ taskTable: [{ key: "x", duration: 0.1, outputSize: 10, buildBandwidth: 5e8 }] });
    expect(table.taskTable![0]!.buildBandwidth).toBe(5e8);
  });
});

describe("the loops' byte capacity follows the host's runnable threads (host model)", () => {
  const host = { cores: 1, load: 0, rule: "lag" as const, slice: 0, credit: 0, schedulerHost: null };

  /** 100 bytes from A (host 0) to B (host 1) through loops of 100/s; a CPU part of 0.25 s on B's host at 0.5 s. */
  async function transferEnd(watch: boolean): Promise<number> {
    const clock = new VirtualClock();
    const addresses = ["A", "B"];
    const cpu: ClusterCpu = new ClusterCpu(host, [0, 1], (w) => network.moving(addresses[w]!));
    const network = new MaxMinNetwork(clock, { latency: 0, bandwidth: 1e9, loopBandwidth: 100, loopShare: (address) => cpu.loopThreads[addresses.indexOf(address)]!.shareAt(clock.now()) });
    if (watch) cpu.watch(clock, () => network.loopSharesChanged());
    let end = -1;
    void network.transfer({ from: "A", to: "B", bytes: 100, keys: 1, signal: new AbortController().signal }).then(() => (end = clock.now()));
    // B's loop is busy moving: the part gets half the core, 0.25 s of CPU take 0.5 s (to 1.0 s).
    clock.setTimer(0.5, () => expect(cpu.host(1).cpuPart(0.25, 0.5)).toBeCloseTo(0.5, 12));
    await clock.run();
    return end;
  }

  it("a transfer that a CPU part interrupts on a 1-core host slows from then on: 50 bytes by 0.5 s, 25 by 1.0 s at half the loop, the last 25 by 1.25 s", async () => {
    expect(await transferEnd(true)).toBeCloseTo(1.25, 12);
    // Before: the rates held from the flow's start to its end.
    expect(await transferEnd(false)).toBeCloseTo(1, 12);
  });

  it("counts the GIL's thread: its host hears it wake with the first holder and sleep when the last one leaves", async () => {
    const clock = new VirtualClock();
    const heard: number[] = [];
    const cores = new HostCpu(host, () => void heard.push(clock.now()));
    const gil = workerGil(clock, cores);
    const signal = new AbortController().signal;
    // 0.1 s alone to 0.05 s, then two at 1/2 each: the first ends at 0.15 s, the second at 0.2 s.
    void gil.run(0.1, signal);
    clock.setTimer(0.05, () => void gil.run(0.1, signal));
    await clock.run();
    expect(heard).toHaveLength(2);
    expect(heard[0]).toBe(0);
    expect(heard[1]).toBeCloseTo(0.2, 12);
  });

  it("in a run: builds that start mid-transfer slow it, and the run's report says how much", async () => {
    // Two workers on 1-core hosts; a-0 and a-1 (100 MB each) meet in `join`, so one of them moves
    // through loops of 100 MB/s. Builds of 20 MB at 50 MB/s (0.4 s of CPU) start on both hosts
    // at 0.5 s, mid-transfer.
    const builder = new GraphBuilder();
    const inputs = [0, 1].map((i) => builder.addTask({ key: `a-${i}`, prefix: "a", duration: 0.1, nbytes: 100e6, cpuShare: 0 }));
    const join = builder.addTask({ key: "join", prefix: "join", duration: 0.1, nbytes: 10, cpuShare: 0 });
    for (const input of inputs) builder.addDependency(join, input);
    for (let i = 0; i < 2; i++) {
      const pre = builder.addTask({ key: `pre-${i}`, prefix: "pre", duration: 0.5, nbytes: 10, cpuShare: 0 });
      builder.addDependency(builder.addTask({ key: `build-${i}`, prefix: "build", duration: 0.1, nbytes: 20e6, cpuShare: 0, buildBandwidth: 50e6 }), pre);
    }
    const workload: Workload = { name: "join", description: "", graph: builder.build("join"), faults: [], cluster: {} };
    const report = (
      await simulate(workload, {
        workers: 2,
        threads: 2,
        network: "max-min",
        latency: 0,
        bandwidth: 1e9,
        cluster: { overheads: NO_OVERHEADS, loopBandwidth: 100e6, workersPerHost: 1, host: { cores: 1, load: 0, slice: 0, schedulerHost: null } },
      })
    ).report;
    const builds = report.taskRecords.filter((r) => r.prefix === "build");
    expect(new Set(builds.map((r) => r.worker)).size).toBe(2);
    const transfer = report.transfers.find((t) => t.bytes === 100e6)!;
    // 0.1 → 0.5 s at 100 MB/s (40 MB); both loops at half a core while the builds run (0.4 s of
    // CPU at 1/2: to 1.3 s), 40 MB; the last 20 MB at 100 MB/s: 1.5 s.
    expect(transfer.start).toBeCloseTo(0.1, 9);
    expect(transfer.end).toBeCloseTo(1.5, 9);
  });
});
