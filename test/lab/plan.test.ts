import { describe, expect, it } from "vitest";
import { expandPlan, MAX_RUNS, PlanError, runKey, shardOf, type SweepPlan } from "../../src/lab/plan.js";
import { validateSpec } from "../../src/sim/spec.js";

function issues(plan: SweepPlan): readonly string[] {
  try {
    expandPlan(plan);
  } catch (error) {
    if (error instanceof PlanError) return error.issues;
    throw error;
  }
  return [];
}

describe("expandPlan", () => {
  it("runs every workload over the cross product of the axes and the seeds, first axis slowest", () => {
    const runs = expandPlan({ workloads: ["map", "chain"], size: 10, axes: { workers: [2, 4], network: ["instant", "max-min"] }, seeds: [7, 8] });
    expect(runs).toHaveLength(2 * 2 * 2 * 2);
    expect(runs.slice(0, 4).map((run) => [run.workload, run.options, run.seed])).toEqual([
      ["map", { workers: 2, network: "instant" }, 7],
      ["map", { workers: 2, network: "instant" }, 8],
      ["map", { workers: 2, network: "max-min" }, 7],
      ["map", { workers: 2, network: "max-min" }, 8],
    ]);
    expect(runs[0]!.simOptions).toEqual({ size: 10, workers: 2, network: "instant", seed: 7 });
    expect(new Set(runs.map((run) => run.key)).size).toBe(runs.length);
  });

  it("takes a seed count as seeds 1…N, and no axes as one configuration", () => {
    const runs = expandPlan({ workloads: ["map"], seeds: 3 });
    expect(runs.map((run) => [run.seed, run.options])).toEqual([
      [1, {}],
      [2, {}],
      [3, {}],
    ]);
  });

  it("leaves out the combinations an exclude entry matches in every field it names", () => {
    const runs = expandPlan({
      workloads: ["map", "chain"],
      axes: { workers: [2, 4, 8], threads: [1, 2] },
      seeds: [1, 2],
      exclude: [{ workload: "map", workers: 8 }, { threads: 1, workers: 2 }, { seed: 2, workload: "chain" }],
    });
    const has = (workload: string, workers: number, threads: number, seed: number): boolean =>
      runs.some((run) => run.workload === workload && run.options.workers === workers && run.options.threads === threads && run.seed === seed);
    expect(has("map", 8, 1, 1) || has("map", 8, 2, 2)).toBe(false);
    expect(has("chain", 8, 2, 1)).toBe(true);
    expect(has("map", 2, 1, 1) || has("chain", 2, 1, 1)).toBe(false);
    expect(has("map", 2, 2, 1)).toBe(true);
    expect(runs.some((run) => run.workload === "chain" && run.seed === 2)).toBe(false);
    // map: 3×2×2 = 12 − 4 (workers 8) − 2 (threads 1 & workers 2) = 6; chain: 3×2×1 = 6 − 1 = 5.
    expect(runs).toHaveLength(11);
  });

  it("keys a run by workload, options, seed and version, whatever the order the options came in", () => {
    const [a] = expandPlan({ workloads: ["map"], axes: { workers: [4], threads: [2] }, seeds: [1] });
    const [b] = expandPlan({ workloads: ["map"], axes: { threads: [2], workers: [4] }, seeds: [1] });
    expect(a!.key).toBe(b!.key);
    expect(a!.key).toMatch(/^[0-9a-f]{16}$/);
    expect(runKey({ builtIn: "map" }, { threads: 2, workers: 4 }, 1, "0.1.0")).not.toBe(runKey({ builtIn: "map" }, { threads: 2, workers: 4 }, 1, "0.2.0"));
    expect(runKey({ builtIn: "map" }, { workers: 4 }, 1, "x")).not.toBe(runKey({ builtIn: "map" }, { workers: 4 }, 2, "x"));
    // A spec is keyed by its content: change a duration and the key changes.
    const spec = (duration: number) => ({ name: "s", spec: validateSpec({ tasks: [{ prefix: "a", duration }] }) });
    const [one] = expandPlan({ workloads: [spec(1)], seeds: [1] });
    const [two] = expandPlan({ workloads: [spec(2)], seeds: [1] });
    expect(one!.key).not.toBe(two!.key);
  });

  it("names every problem", () => {
    expect(issues({ workloads: [], seeds: 1 })).toEqual(["workloads: expected at least one workload"]);
    expect(issues({ workloads: ["map", "map"], seeds: 1 })[0]).toMatch(/^workloads\[1\]: "map" is also the name of workloads\[0\]/);
    expect(issues({ workloads: ["map"], axes: { workers: [] }, seeds: 1 })).toEqual(["axes.workers: expected a list of at least one value"]);
    expect(issues({ workloads: ["map"], axes: { workers: [2, 2] }, seeds: 1 })).toEqual(["axes.workers[1]: the same value as axes.workers[0]"]);
    expect(issues({ workloads: ["map"], seeds: [1, 1] })).toEqual(["seeds[1]: seed 1 is listed twice"]);
    expect(issues({ workloads: ["map"], seeds: 0 })[0]).toMatch(/^seeds: expected a count ≥ 1/);
    expect(issues({ workloads: ["map"], axes: { workers: [2] }, seeds: 1, exclude: [{ threads: 2 }] })[0]).toMatch(/^exclude\[0\]\.threads: not an axis of the plan/);
    expect(issues({ workloads: ["map"], axes: { workers: [2] }, seeds: 1, exclude: [{ workers: 3 }] })[0]).toBe("exclude[0].workers: 3 is not a value of axis workers (2)");
    const values = Array.from({ length: 1001 }, (_, i) => i + 1);
    expect(issues({ workloads: ["map"], axes: { workers: values, threads: values }, seeds: 1 })).toEqual([
      `the plan has ${1001 * 1001} runs (workloads × axes × seeds); at most ${MAX_RUNS} are allowed`,
    ]);
  });
});

describe("shardOf", () => {
  it("splits the runs into N disjoint parts that together are all of them, by key alone", () => {
    const runs = expandPlan({ workloads: ["map", "chain"], axes: { workers: [1, 2, 3, 4, 5] }, seeds: 6 });
    const parts = [1, 2, 3].map((index) => shardOf(runs, { index, count: 3 }));
    const keys = parts.flatMap((part) => part.map((run) => run.key));
    expect(keys.sort()).toEqual(runs.map((run) => run.key).sort());
    expect(new Set(keys).size).toBe(runs.length);
    for (const part of parts) expect(part.length).toBeGreaterThan(runs.length / 6);
    // A run's shard does not depend on the other runs of the plan.
    const fewer = expandPlan({ workloads: ["map"], axes: { workers: [1, 2, 3, 4, 5] }, seeds: 6 });
    const fewerKeys = new Set(shardOf(fewer, { index: 2, count: 3 }).map((run) => run.key));
    expect([...fewerKeys].every((key) => parts[1]!.some((run) => run.key === key))).toBe(true);
  });
});
