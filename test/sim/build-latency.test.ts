// A build's per-value term (a spec's `buildLatency`, beside `buildBandwidth`; docs/sim.md,
// "Tasks that build their output"): a build costs buildLatency + outputSize / buildBandwidth
// seconds of CPU inside the task's duration, an output of 0 bytes none. By hand, as a property
// (the latency never makes a task end earlier, and without a host the task takes
// max(D, c·D + B)), in specs and task tables, and in the fidelity script's per-task tables.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, SpecError, simulate, validateSpec, type SimReport, type TaskInit, type Workload } from "../../src/sim/index.js";
import { compileSpec } from "../../src/sim/compile.js";
import { buildSeconds } from "../../src/sim/task-models.js";
import { graphTable } from "../../scripts/graph-tables.mjs";

type Task = Omit<TaskInit, "key" | "prefix">;

function one(task: Task): Workload {
  const builder = new GraphBuilder();
  builder.addTask({ key: "t-0", prefix: "t", ...task });
  return { name: "t", description: "", graph: builder.build("t"), faults: [], cluster: {} };
}

async function run(workload: Workload, host?: object, threads = 1): Promise<SimReport> {
  const cluster = { overheads: NO_OVERHEADS, ...(host === undefined ? {} : { host: { schedulerHost: null, ...host } }) };
  return (await simulate(workload, { workers: 1, threads, network: "instant", cluster, validate: true })).report;
}

const span = (report: SimReport, key = "t-0"): number => {
  const record = report.taskRecords.find((r) => r.key === key)!;
  return record.end - record.start;
};

const cpuSeconds = (report: SimReport): number =>
  report.metrics.filter((m) => m.name.join("/") === "execute/t/thread-cpu/seconds").reduce((sum, m) => sum + m.value, 0);

function specProblems(raw: unknown): string[] {
  try {
    validateSpec(raw);
  } catch (error) {
    if (error instanceof SpecError) return [...error.issues];
    throw error;
  }
  return [];
}

describe("a build's seconds: buildLatency + outputSize / buildBandwidth", () => {
  it("adds the two terms; no bandwidth is no per-byte term; 0 bytes is no build", () => {
    expect(buildSeconds(10e6, 100e6, 0.05)).toBeCloseTo(0.15, 15);
    expect(buildSeconds(10e6, 100e6, 0)).toBeCloseTo(0.1, 15);
    expect(buildSeconds(10e6, 0, 0.05)).toBe(0.05);
    expect(buildSeconds(0, 100e6, 0.05)).toBe(0);
    expect(buildSeconds(10e6, 0, 0)).toBe(0);
  });

  it("in a run: 10 MB at 100 MB/s plus 0.05 s per value outlasts a 0.1 s task — 0.15 s, all CPU", async () => {
    const report = await run(one({ duration: 0.1, nbytes: 10e6, cpuShare: 0, buildBandwidth: 100e6, buildLatency: 0.05 }));
    expect(span(report)).toBeCloseTo(0.15, 12);
    expect(cpuSeconds(report)).toBeCloseTo(0.15, 6);
    // Without the latency the build fits the duration: 0.1 s.
    expect(span(await run(one({ duration: 0.1, nbytes: 10e6, cpuShare: 0, buildBandwidth: 100e6 })))).toBeCloseTo(0.1, 12);
  });

  it("a latency alone builds: 0.02 s of CPU inside a 0.1 s task with cpu 0.5 (0.07 s of CPU, 0.03 s asleep)", async () => {
    const report = await run(one({ duration: 0.1, nbytes: 1000, cpuShare: 0.5, buildLatency: 0.02 }));
    expect(span(report)).toBeCloseTo(0.1, 12);
    expect(cpuSeconds(report)).toBeCloseTo(0.07, 6);
  });

  it("an output of 0 bytes is not built, whatever its latency", async () => {
    const report = await run(one({ duration: 0.1, nbytes: 0, cpuShare: 0, buildBandwidth: 100e6, buildLatency: 0.5 }));
    expect(span(report)).toBeCloseTo(0.1, 12);
    expect(cpuSeconds(report)).toBe(0);
  });

  it("waits for a core as the bytes' build does: on 1 core beside a load of 1, a 20 ms latency takes 40 ms off the sleep, a 60 ms one makes a 0.1 s task 0.12 s", async () => {
    const host = { cores: 1, load: 1, slice: 0 };
    const short = await run(one({ duration: 0.1, nbytes: 1000, cpuShare: 0, buildLatency: 0.02 }), host);
    expect(span(short)).toBeCloseTo(0.1, 12);
    expect(cpuSeconds(short)).toBeCloseTo(0.02, 6);
    expect(short.cluster.host!.coreWaitSeconds.tasks).toBeCloseTo(0.02, 12);
    expect(span(await run(one({ duration: 0.1, nbytes: 1000, cpuShare: 0, buildLatency: 0.06 }), host))).toBeCloseTo(0.12, 12);
  });

  it("property: without a host a task takes max(D, c·D + B) with B = latency + bytes / bandwidth, and a latency never ends it earlier", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 50_000_000 }),
        fc.double({ min: 1e7, max: 1e10, noNaN: true }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        async (duration, cpuShare, nbytes, buildBandwidth, buildLatency) => {
          const withLatency = span(await run(one({ duration, nbytes, cpuShare, buildBandwidth, buildLatency })));
          const without = span(await run(one({ duration, nbytes, cpuShare, buildBandwidth })));
          const build = nbytes > 0 ? buildLatency + nbytes / buildBandwidth : 0;
          expect(withLatency).toBeCloseTo(Math.max(duration, duration * cpuShare + build), 9);
          expect(withLatency).toBeGreaterThanOrEqual(without - 1e-12);
        },
      ),
      { numRuns: 40, seed: 15 },
    );
  });
});

describe("the buildLatency field", () => {
  it("is read in task groups and task-table rows, seconds ≥ 0, absent by default", () => {
    const spec = validateSpec({ tasks: [{ prefix: "a", buildBandwidth: "1.81 GB", buildLatency: 0.00045 }, { prefix: "b" }] });
    expect(spec.tasks[0]!.buildLatency).toBe(0.00045);
    expect(spec.tasks[1]!.buildLatency).toBeUndefined();
    const graph = compileSpec(spec, 1);
    expect(graph.buildLatency[graph.idOf("a-0")!]).toBe(0.00045);
    expect(graph.buildLatency[graph.idOf("b-0")!]).toBe(0);
    const table = validateSpec({ taskTable: [{ key: "x", duration: 0.1, outputSize: 10, buildLatency: 0.002 }, { key: "y", duration: 0.1, outputSize: 10 }] });
    expect(table.taskTable![0]!.buildLatency).toBe(0.002);
    const tableGraph = compileSpec(table, 1);
    expect(tableGraph.buildLatency[tableGraph.idOf("x")!]).toBe(0.002);
    expect(tableGraph.buildLatency[tableGraph.idOf("y")!]).toBe(0);
  });

  it("a bad value is one problem naming its path", () => {
    expect(specProblems({ tasks: [{ prefix: "a" }, { prefix: "b", buildLatency: -0.001 }] })).toEqual(["tasks[1].buildLatency: expected a number ≥ 0"]);
    expect(specProblems({ tasks: [{ prefix: "a", buildLatency: "1 ms" }] })).toEqual(["tasks[0].buildLatency: expected a number"]);
    expect(specProblems({ taskTable: [{ key: "x", duration: 0.1, outputSize: 10, buildLatency: -1 }] })).toEqual(["taskTable[0].buildLatency: expected a number ≥ 0"]);
  });

  it("the fidelity script's per-task tables keep it, as they keep buildBandwidth", () => {
    const graph = { tasks: [{ key: "a-0", prefix: "a", duration: 0.1, nbytes: 10, deps: [], output: true }, { key: "b-0", prefix: "b", duration: 0.1, nbytes: 10, deps: [], output: true }] };
    const nominal = { name: "n", tasks: [{ prefix: "a", buildBandwidth: "1.81 GB", buildLatency: 0.00045 }, { prefix: "b" }] };
    const { taskTable } = graphTable(graph, nominal, (t) => t.duration);
    expect(taskTable[0]).toMatchObject({ buildBandwidth: "1.81 GB", buildLatency: 0.00045 });
    expect(taskTable[1]).not.toHaveProperty("buildLatency");
    expect(validateSpec({ name: "n", taskTable }).taskTable![0]!.buildLatency).toBe(0.00045);
  });
});
