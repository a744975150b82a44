import { describe, expect, it } from "vitest";
import { compare } from "../../src/lab/compare.js";
import { mergeResults } from "../../src/lab/merge.js";
import type { AxisLabel } from "../../src/lab/plan.js";
import type { SweepResult } from "../../src/lab/result.js";
import { spreadOf } from "../../src/lab/stats.js";

function result(workload: string, options: Record<string, AxisLabel>, seed: number, makespan: number | null, extra: Partial<SweepResult> = {}): SweepResult {
  return {
    key: `${workload}-${JSON.stringify(options)}-${seed}`,
    workload,
    seed,
    options,
    version: "test",
    makespan,
    transfer: { count: 1, bytes: 100 * seed },
    spill: { bytesWritten: 10, bytesRead: 5 },
    utilisation: 0.5,
    balance: 0.8,
    activities: [{ context: "execute", activity: "thread-cpu", seconds: seed, bytes: 0 }],
    ...extra,
  };
}

describe("spreadOf", () => {
  it("gives the median, the interpolated quartiles and the range", () => {
    expect(spreadOf([4, 1, 3, 2])).toEqual({ n: 4, median: 2.5, q1: 1.75, q3: 3.25, min: 1, max: 4 });
    expect(spreadOf([5])).toEqual({ n: 1, median: 5, q1: 5, q3: 5, min: 5, max: 5 });
    expect(spreadOf([])).toBeNull();
  });
});

describe("compare", () => {
  // dask is slower than locality on every seed of 8 workers; on 4 workers they trade places.
  const results = [
    ...[1, 2, 3, 4].map((seed) => result("map", { scheduler: "dask", workers: 8 }, seed, 10 + seed)),
    ...[1, 2, 3, 4].map((seed) => result("map", { scheduler: "locality", workers: 8 }, seed, 9 + seed)),
    ...[1, 2, 3, 4].map((seed) => result("map", { scheduler: "dask", workers: 4 }, seed, 20 + seed)),
    ...[1, 2, 3, 4].map((seed) => result("map", { scheduler: "locality", workers: 4 }, seed, seed % 2 === 0 ? 19 + seed : 21 + seed)),
  ];

  it("summarises each configuration over its seeds, sorted by axis values", () => {
    const { workloads } = compare(results);
    expect(workloads.map((workload) => workload.workload)).toEqual(["map"]);
    const [map] = workloads;
    expect(map!.axes).toEqual(["scheduler", "workers"]);
    expect(map!.configurations.map((configuration) => configuration.label)).toEqual([
      "scheduler=dask workers=4",
      "scheduler=dask workers=8",
      "scheduler=locality workers=4",
      "scheduler=locality workers=8",
    ]);
    const dask8 = map!.configurations[1]!;
    expect(dask8.makespan).toMatchObject({ n: 4, median: 12.5, min: 11, max: 14 });
    expect(dask8.transferBytes).toBe(250);
    expect(dask8.spillBytes).toBe(10);
    expect(dask8.activities).toEqual([{ context: "execute", activity: "thread-cpu", seconds: 2.5, bytes: 0 }]);
  });

  it("compares each configuration with the baseline that differs only on the baseline's axes", () => {
    const map = compare(results, { baseline: { scheduler: "dask" } }).workloads[0]!;
    const [dask4, dask8, locality4, locality8] = map.configurations;
    expect(dask4!.baseline.verdict).toBe("baseline");
    expect(dask8!.baseline.verdict).toBe("baseline");
    expect(locality8!.baseline).toMatchObject({ label: "scheduler=dask workers=8", verdict: "faster", pairedSeeds: 4, faster: 4, slower: 0 });
    expect(locality8!.baseline.ratio).toBeCloseTo(11.5 / 12.5, 12);
    // Faster on two seeds, slower on two: within the spread.
    expect(locality4!.baseline).toMatchObject({ label: "scheduler=dask workers=4", verdict: "within spread", faster: 2, slower: 2 });
  });

  it("compares with the first configuration by default, and says when the baseline was not run", () => {
    const map = compare(results).workloads[0]!;
    expect(map.configurations.map((configuration) => configuration.baseline.verdict)).toEqual(["baseline", "faster", "within spread", "faster"]);
    const missing = compare(results, { baseline: { scheduler: "none-such" } }).workloads[0]!;
    expect(missing.configurations[0]!.baseline.verdict).toBe("no baseline");
  });

  it("uses the ranges when fewer than 3 seeds are paired, and needs two runs a side", () => {
    const two = [
      result("w", { a: 1 }, 1, 10),
      result("w", { a: 1 }, 2, 11),
      result("w", { a: 2 }, 3, 12),
      result("w", { a: 2 }, 4, 13),
      result("w", { a: 3 }, 5, 10.5),
      result("w", { a: 3 }, 6, 12),
      result("w", { a: 4 }, 1, 1),
    ];
    const verdicts = compare(two).workloads[0]!.configurations.map((configuration) => configuration.baseline.verdict);
    expect(verdicts).toEqual(["baseline", "slower", "within spread", "too few seeds"]);
  });

  it("keeps failed runs out of the figures but counts and lists them", () => {
    const withFailure = [
      result("w", { a: 1 }, 1, 10),
      result("w", { a: 1 }, 2, 12),
      { ...result("w", { a: 1 }, 3, null), error: "SimulationError: boom" },
      result("w", { a: 1 }, 2, 12),
    ];
    const comparison = compare(withFailure);
    const [configuration] = comparison.workloads[0]!.configurations;
    expect(configuration).toMatchObject({ runs: 3, failed: 1, failures: [{ seed: 3, error: "SimulationError: boom" }] });
    expect(configuration!.makespan!.median).toBe(11);
    expect(comparison.duplicates).toBe(1);
  });
});

describe("mergeResults", () => {
  it("keeps one line per key, a success over a failure, sorted by key", () => {
    const a = result("w", { a: 1 }, 1, 10);
    const b = result("w", { a: 1 }, 2, 11);
    const failedB = { ...b, makespan: null, error: "lost a worker" };
    const merged = mergeResults([[b], [failedB, a], [a]]);
    expect(merged.results).toEqual([a, b].sort((x, y) => (x.key < y.key ? -1 : 1)));
    expect(merged.duplicates).toBe(2);
    expect(merged.conflicts).toEqual([]);
    expect(mergeResults([[failedB], [b]]).results).toEqual([b]);
    expect(mergeResults([[a], [{ ...a, makespan: 99 }]]).conflicts).toEqual([a.key]);
  });
});
