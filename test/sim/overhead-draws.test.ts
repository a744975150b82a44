// Overheads drawn from distributions (docs/sim.md, "Overheads"): each event's cost drawn from a
// random stream of its own, the same run for the same seed, no other draw moved, and a constant
// given as a distribution running exactly as the number.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, SpecError, simulate, validateClusterProfile, validateSpec, type Overheads, type SimReport, type Workload } from "../../src/sim/index.js";
import { sample } from "../../src/sim/distributions.js";
import { costDraw, meanCost } from "../../src/sim/overheads.js";
import { Rng } from "../../src/sim/rng.js";
import type { Distribution } from "../../src/sim/spec.js";

function independent(n: number, duration: number): Workload {
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) builder.addTask({ key: `map-${i}`, prefix: "map", duration, nbytes: 10 });
  return { name: "map", description: "", graph: builder.build("map"), faults: [], cluster: {} };
}

function chain(n: number, duration: number): Workload {
  const builder = new GraphBuilder();
  for (let i = 0; i < n; i++) {
    const id = builder.addTask({ key: `link-${i}`, prefix: "link", duration, nbytes: 10 });
    if (i > 0) builder.addDependency(id, id - 1);
  }
  return { name: "chain", description: "", graph: builder.build("chain"), faults: [], cluster: {} };
}

function only(overheads: Partial<Overheads>) {
  return { overheads: { ...NO_OVERHEADS, ...overheads } };
}

function other(report: SimReport): number {
  return report.metrics.filter((m) => m.name.join("/") === "execute/map/other/seconds").reduce((sum, m) => sum + m.value, 0);
}

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof SpecError) return [...error.issues];
    throw error;
  }
  return [];
}

const LOGNORMAL: Distribution = { dist: "lognormal", mean: 0.00117, sigma: 1.06 };

describe("costDraw", () => {
  it("a number is that many seconds per event, with no random draw", () => {
    const draw = costDraw(0.25, 1, "s");
    expect(draw()).toBe(0.25);
    expect(draw(3)).toBe(0.75);
  });

  it("the mean of many lognormal draws is the mean, their median exp(mu) (fixed seed)", () => {
    const draw = costDraw(LOGNORMAL, 7, "overheads.workerHandling/0");
    const n = 200_000;
    const xs = Array.from({ length: n }, () => draw());
    const mean = xs.reduce((a, b) => a + b, 0) / n;
    // CV of this lognormal is sqrt(exp(sigma²) - 1) = 1.44: the standard error of the mean is 0.32 %.
    expect(mean / LOGNORMAL.mean).toBeGreaterThan(0.98);
    expect(mean / LOGNORMAL.mean).toBeLessThan(1.02);
    xs.sort((a, b) => a - b);
    const median = xs[n / 2]!;
    expect(median / (LOGNORMAL.mean * Math.exp(-(1.06 * 1.06) / 2))).toBeCloseTo(1, 1);
    expect(meanCost(LOGNORMAL)).toBe(0.00117);
  });

  it("n events are n draws of the stream, in order", () => {
    const dist: Distribution = { dist: "uniform", low: 0.001, high: 0.003 };
    const rng = Rng.derive(3, "x");
    const expected = sample(dist, rng) + sample(dist, rng) + sample(dist, rng);
    expect(costDraw(dist, 3, "x")(3)).toBe(expected);
  });
});

describe("workerHandling drawn per done event", () => {
  it("each gap on a single thread is the next draw of the worker's own stream (by hand)", async () => {
    const dist: Distribution = { dist: "uniform", low: 0.001, high: 0.005 };
    const seed = 11;
    const { report } = await simulate(independent(10, 0.1), { seed, workers: 1, threads: 1, network: "instant", cluster: only({ workerHandling: dist }) });
    expect(report.complete).toBe(true);
    const rng = Rng.derive(seed, "overheads.workerHandling/0");
    const draws = Array.from({ length: 10 }, () => sample(dist, rng));
    const records = [...report.taskRecords].sort((a, b) => a.start - b.start);
    expect(records[0]!.start).toBe(0);
    // Task i's done event starts task i + 1 (already queued on the worker): the gap is its draw.
    for (let i = 1; i < records.length; i++) expect(records[i]!.start - records[i - 1]!.end).toBeCloseTo(draws[i - 1]!, 12);
    expect(other(report)).toBeCloseTo(draws.reduce((a, b) => a + b, 0), 7);
    expect(report.perWorker[0]!.eventLoopSeconds).toBeCloseTo(draws.reduce((a, b) => a + b, 0), 12);
  });

  it("a seed gives the same run twice; another seed another run", async () => {
    const run = (seed: number) => simulate(independent(40, 0.02), { seed, workers: 2, threads: 2, cluster: { overheads: { workerHandling: LOGNORMAL } } });
    const [a, b, c] = await Promise.all([run(5), run(5), run(6)]);
    expect(b.report).toEqual(a.report);
    expect(c.report.taskRecords).not.toEqual(a.report.taskRecords);
  });

  it("moves no other draw: the tasks' overruns are the same as with a constant cost", async () => {
    const run = (workerHandling: Overheads["workerHandling"]) =>
      simulate(chain(30, 0.05), { seed: 2, workers: 1, threads: 1, network: "instant", cluster: only({ workerHandling, taskOverrun: 0.002 }) });
    const [constant, drawn] = await Promise.all([run(0.001), run(LOGNORMAL)]);
    const lengths = (report: SimReport) => report.taskRecords.map((r) => [r.key, r.end - r.start] as const);
    const a = lengths(constant.report);
    const b = lengths(drawn.report);
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) {
      expect(b[i]![0]).toBe(a[i]![0]);
      expect(b[i]![1]).toBeCloseTo(a[i]![1], 12);
    }
    expect(drawn.report.makespan).not.toBeCloseTo(constant.report.makespan, 6);
  });

  it("a constant given as a distribution runs exactly as the number (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 0.01, noNaN: true }),
        fc.double({ min: 0, max: 0.001, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        async (h, m, seed) => {
          const base = { seed, workers: 2, threads: 2 };
          const [number, dist] = await Promise.all([
            simulate(independent(12, 0.01), { ...base, cluster: { overheads: { workerHandling: h, workerMessage: m } } }),
            simulate(independent(12, 0.01), { ...base, cluster: { overheads: { workerHandling: { dist: "constant", value: h }, workerMessage: { dist: "constant", value: m } } } }),
          ]);
          const { cluster: c1, ...r1 } = number.report;
          const { cluster: c2, ...r2 } = dist.report;
          expect(r2).toEqual(r1);
          expect({ ...c2, overheads: null }).toEqual({ ...c1, overheads: null });
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe("workerMessage drawn per message op", () => {
  it("the first task starts after the draws of the ops in its batch", async () => {
    const dist: Distribution = { dist: "exponential", mean: 0.002 };
    const seed = 4;
    const { report } = await simulate(independent(1, 0.1), { seed, workers: 1, threads: 1, network: "instant", cluster: only({ workerMessage: dist }) });
    const rng = Rng.derive(seed, "overheads.workerMessage/0");
    expect(report.taskRecords[0]!.start).toBeCloseTo(sample(dist, rng), 12);
  });
});

describe("validation", () => {
  it("names the bad field of a distribution by its path", () => {
    const spec = (overheads: unknown) => () =>
      validateSpec({ name: "w", tasks: [{ prefix: "a", count: 1 }], cluster: { overheads } });
    expect(problems(spec({ workerHandling: { dist: "lognormal", mean: -1, sigma: 1 } }))).toEqual(["cluster.overheads.workerHandling.mean: expected a positive number"]);
    expect(problems(spec({ workerMessage: { dist: "gamma", mean: 1 } }))).toEqual([
      "cluster.overheads.workerMessage.dist: expected dist to be one of constant, uniform, normal, lognormal, exponential",
    ]);
    expect(problems(spec({ workerHandling: -1 }))).toEqual(["cluster.overheads.workerHandling: expected a number ≥ 0"]);
    expect(problems(spec({ schedulerDecision: { dist: "constant", value: 1 } }))).toEqual(["cluster.overheads.schedulerDecision: expected a number"]);
    expect(problems(() => validateClusterProfile({ overheads: { workerHandling: { dist: "lognormal", mean: 0.001 } } }))).toEqual([
      "overheads.workerHandling.sigma: expected a number",
    ]);
  });

  it("keeps a number a number and a distribution as given", () => {
    expect(validateClusterProfile({ overheads: { workerHandling: 0.001, workerMessage: LOGNORMAL } }).overheads).toEqual({ workerHandling: 0.001, workerMessage: LOGNORMAL });
  });
});
