// Profiles that extend another (`extends: PATH`, docs/sim.md "Clusters and profiles"): a file is
// a layer above its base. loadClusterProfile folds the chain into one profile with
// stackClusterLayer; these tests hold that one layer equal to the layers stacked (resolveCluster
// takes a list of profile layers), on random layers and on the cases a flat merge gets wrong,
// and check the file problems of a chain (cycle, missing base, a bad field in a base).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  loadClusterProfile,
  resolveCluster,
  Rng,
  simulate,
  stackClusterLayer,
  validateClusterProfile,
  validateSpec,
  type ClusterOptions,
  type ClusterSpec,
  type ResolvedCluster,
} from "../../src/sim/index.js";

const address = (worker: number, host: number, slot: number) => `w${worker}@h${host}:${slot}`;
const root = mkdtempSync(join(tmpdir(), "spanwork-extends-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes `text` to `name` under the temporary folder (making its folders) and returns its path. */
function file(name: string, text: string): string {
  const path = join(root, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** What resolveCluster gives, or the message it throws (both sides must agree on either). */
function outcome(resolve: () => ResolvedCluster): ResolvedCluster | { error: string } {
  try {
    return resolve();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe("stackClusterLayer", () => {
  const stackedAndFolded = (workload: ClusterSpec, base: ClusterSpec, child: ClusterSpec, options: ClusterOptions = {}) => ({
    stacked: outcome(() => resolveCluster(workload, [base, child], options, address)),
    folded: outcome(() => resolveCluster(workload, stackClusterLayer(base, child), options, address)),
  });

  it("a child's bandwidth overrides both directions of its base, a sendBandwidth too (a flat merge keeps the base's)", () => {
    const base: ClusterSpec = { workers: 2, sendBandwidth: 100 };
    const child: ClusterSpec = { bandwidth: 300 };
    const { stacked, folded } = stackedAndFolded({}, base, child);
    expect(folded).toEqual(stacked);
    expect((folded as ResolvedCluster).workers.map((w) => [w.sendBandwidth, w.receiveBandwidth])).toEqual([
      [300, 300],
      [300, 300],
    ]);
    // what the flat merge would have given: the base's send under the child's bandwidth
    expect(resolveCluster({}, { ...base, ...child }, {}, address).workers[0]!.sendBandwidth).toBe(100);
    // one direction named by the child keeps the base's other
    expect(stackClusterLayer({ bandwidth: 100 }, { receiveBandwidth: 50 })).toEqual({ bandwidth: 100, receiveBandwidth: 50 });
  });

  it("a child's threads, limit and bandwidth reach every group of its base, over the groups' own", () => {
    const base: ClusterSpec = {
      groups: [
        { name: "big", count: 1, threads: 8, memoryLimit: 8e9, bandwidth: 900 },
        { count: 2, threads: 2 },
      ],
    };
    const { stacked, folded } = stackedAndFolded({}, base, { threads: 4, memoryLimit: null, sendBandwidth: 200 });
    expect(folded).toEqual(stacked);
    expect((folded as ResolvedCluster).workers.map((w) => [w.group, w.nthreads, w.memoryLimit, w.sendBandwidth, w.receiveBandwidth])).toEqual([
      ["big", 4, null, 200, 900],
      [null, 4, null, 200, 100e6],
      [null, 4, null, 200, 100e6],
    ]);
  });

  it("the layout is the child's when it has one: workers over the base's groups, groups over its workers", () => {
    const groups: ClusterSpec = { groups: [{ count: 1, threads: 8 }, { count: 2, threads: 1 }], threads: 3 };
    expect(stackClusterLayer(groups, { workers: 4 })).toEqual({ workers: 4, threads: 3 });
    const overGroups = stackedAndFolded({}, groups, { workers: 4 });
    expect(overGroups.folded).toEqual(overGroups.stacked);
    expect((overGroups.folded as ResolvedCluster).workers.map((w) => w.nthreads)).toEqual([3, 3, 3, 3]);
    const overWorkers = stackedAndFolded({}, { workers: 5, threads: 2 }, { groups: [{ count: 1, threads: 6 }, { count: 1 }] });
    expect(overWorkers.folded).toEqual(overWorkers.stacked);
    expect((overWorkers.folded as ResolvedCluster).workers.map((w) => w.nthreads)).toEqual([6, 2]);
    // and the run's --workers still cannot replace groups, wherever in the chain they are
    const replaced = stackedAndFolded({}, groups, { memoryLimit: 1e9 }, { workers: 3 });
    expect(replaced.folded).toEqual(replaced.stacked);
    expect(replaced.folded).toEqual({ error: expect.stringMatching(/cannot replace the cluster's worker groups/) });
  });

  it("sections merge field by field across the chain", () => {
    expect(
      stackClusterLayer({ overheads: { workerHandling: 0.001, messageLatency: 0.002 }, host: { cores: 2, load: 0 } }, { overheads: { messageLatency: 0.003 }, host: { load: 1.5 } }),
    ).toEqual({ overheads: { workerHandling: 0.001, messageLatency: 0.003 }, host: { cores: 2, load: 1.5 } });
  });

  // The proof: on random layers (every field resolveCluster reads, each layer's layout
  // workers, groups or none) under random run options, the folded layer resolves as the two
  // stacked, over and under a workload's section, errors included; and it is a valid profile.
  it("resolves as the two layers stacked, on 3000 random chains", () => {
    const rng = new Rng(20261203);
    const pick = <T>(values: readonly T[]): T => values[rng.int(values.length)]!;
    const maybe = <T>(values: readonly T[]): T | undefined => (rng.chance(0.4) ? pick(values) : undefined);
    const capacities = (): Partial<Record<"bandwidth" | "sendBandwidth" | "receiveBandwidth", number>> => {
      const out: Partial<Record<"bandwidth" | "sendBandwidth" | "receiveBandwidth", number>> = {};
      for (const field of ["bandwidth", "sendBandwidth", "receiveBandwidth"] as const) {
        const value = maybe([100, 200, 300]);
        if (value !== undefined) out[field] = value;
      }
      return out;
    };
    const layer = (): ClusterSpec => {
      const out: ClusterSpec = { ...capacities() };
      const layout = rng.int(3);
      if (layout === 1) out.workers = pick([1, 2, 3]);
      if (layout === 2) {
        out.groups = Array.from({ length: 1 + rng.int(3) }, (_, i) => {
          const group: NonNullable<ClusterSpec["groups"]>[number] = { count: 1 + rng.int(2), ...capacities() };
          if (rng.chance(0.5)) group.name = `g${i}`;
          const threads = maybe([1, 6]);
          if (threads !== undefined) group.threads = threads;
          const limit = maybe([null, 5e8]);
          if (limit !== undefined) group.memoryLimit = limit;
          return group;
        });
      }
      const scalars = {
        threads: maybe([1, 2, 4]),
        memoryLimit: maybe([null, 1e9, 2e9]),
        network: maybe(["max-min", "shared-host", "latency-bandwidth"] as const),
        latency: maybe([0, 0.002]),
        workersPerHost: maybe([1, 2]),
        hostBandwidth: maybe([500, 900]),
        loopBandwidth: maybe([false, 700] as const),
        deserializeBandwidth: maybe([false, 1.4e9] as const),
        transferSpread: maybe([false, 0, 0.6] as const),
        disk: maybe([{ bandwidth: 800 }, { latency: 0.001, hostBandwidth: null }, { removeBandwidth: 15e9 }]),
        overheads: maybe([{ workerHandling: 0.001 }, { messageLatency: 0.002, switchInterval: 0 }]),
        memory: maybe([{ target: 0.5 }, { spill: false, unmanaged: 1e8 } as const]),
        host: maybe([{ cores: 2 }, { load: 1.5 }, { cores: 4, rule: "credit" as const }, { credit: 0.006 }, { slice: 0.002 }, { schedulerHost: null }]),
        scheduler: maybe([{ name: "dask" }, { name: "round-robin" }]),
      };
      for (const [field, value] of Object.entries(scalars)) if (value !== undefined) (out as Record<string, unknown>)[field] = value;
      return out;
    };
    const options = (): ClusterOptions => {
      const out: ClusterOptions = {};
      if (rng.chance(0.15)) out.workers = pick([2, 4]);
      if (rng.chance(0.15)) out.threads = 3;
      if (rng.chance(0.15)) out.memoryLimit = pick([null, 3e9]);
      if (rng.chance(0.15)) out.bandwidth = 250;
      if (rng.chance(0.15)) out.disk = { latency: 0.01 };
      return out;
    };
    let resolved = 0;
    for (let i = 0; i < 3000; i++) {
      const [workload, base, child, run] = [rng.chance(0.5) ? layer() : {}, layer(), layer(), options()];
      const folded = stackClusterLayer(base, child);
      // valid as a profile (what simulate checks options.cluster against), and unchanged by it
      expect(validateClusterProfile(folded)).toEqual(folded);
      const stacked = outcome(() => resolveCluster(workload, [base, child], run, address));
      expect(outcome(() => resolveCluster(workload, folded, run, address)), JSON.stringify({ workload, base, child, run })).toEqual(stacked);
      if (!("error" in stacked)) resolved++;
    }
    // about half resolve (the rest: a host section without cores, a rule's field under the
    // other rule, --workers over groups): the comparison is of clusters, not only of errors
    expect(resolved).toBeGreaterThan(1000);
  });
});

describe("profile files that extend another", () => {
  it("a chain of three: each file a layer over its base, its path relative to the file's own folder", () => {
    file("chain/machine.yaml", "name: machine\ndescription: the calibrated machine\nworkers: 2\nthreads: 2\noverheads: { workerHandling: 0.001, messageLatency: 0.002 }\nhost: { cores: 2, load: 0 }\n");
    file("chain/variants/loaded.json", JSON.stringify({ name: "loaded", extends: "../machine.yaml", host: { load: 1.5 }, overheads: { messageLatency: 0.003 } }));
    const top = file("chain/variants/big/big-memory.yaml", "extends: ../loaded.json\nmemoryLimit: 8 GB\n");
    const profile = loadClusterProfile(top);
    // name and description are each file's own: the top one has none
    expect(profile).toEqual({ workers: 2, threads: 2, memoryLimit: 8e9, overheads: { workerHandling: 0.001, messageLatency: 0.003 }, host: { cores: 2, load: 1.5 } });
    expect(loadClusterProfile(join(root, "chain/variants/loaded.json"))).toMatchObject({ name: "loaded", host: { cores: 2, load: 1.5 } });
    expect(loadClusterProfile(join(root, "chain/variants/loaded.json")).description).toBeUndefined();
    // the three files stacked resolve the same
    const layers = [join(root, "chain/machine.yaml"), join(root, "chain/variants/loaded.json"), top].map(ownLayer);
    expect(resolveCluster({}, profile, {}, address)).toEqual(resolveCluster({}, layers, {}, address));
  });

  it("an absolute extends path is taken as it is", () => {
    const base = file("absolute/base.yaml", "workers: 3\n");
    expect(loadClusterProfile(file("elsewhere/child.yaml", `extends: ${JSON.stringify(base)}\nthreads: 5\n`))).toEqual({ workers: 3, threads: 5 });
  });

  const problem = (path: string, shown?: string): string => {
    try {
      loadClusterProfile(path, shown);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`${path} loaded`);
  };

  it("a cycle, a missing base, a folder as base: one line naming the file whose extends is wrong", () => {
    file("cycle/a.yaml", "extends: b.yaml\n");
    file("cycle/b.yaml", "extends: ./a.yaml\nworkers: 2\n");
    expect(problem(join(root, "cycle/a.yaml"), "cycle/a.yaml")).toBe("cycle/b.yaml: extends: a cycle: cycle/a.yaml → cycle/b.yaml → cycle/a.yaml");
    expect(problem(file("cycle/self.yaml", "extends: self.yaml\n"), "self.yaml")).toBe("self.yaml: extends: a cycle: self.yaml → self.yaml");
    expect(problem(file("missing/child.yaml", "extends: gone.yaml\n"), "missing/child.yaml")).toBe("missing/child.yaml: extends: missing/gone.yaml: no such file");
    mkdirSync(join(root, "folder/base.yaml"), { recursive: true });
    expect(problem(file("folder/child.yaml", "extends: base.yaml\n"), "child.yaml")).toBe("child.yaml: extends: base.yaml: a directory, not a profile file");
    expect(problem(file("type/child.yaml", "extends: 3\nworkers: 0\n"), "child.yaml")).toBe(
      "2 problems:\n  child.yaml: extends: expected the path of the profile this one builds on (relative to this file's directory)\n  child.yaml: workers: expected a positive integer",
    );
  });

  it("a bad field in a base names the base's path; a base that is not a profile says what it is", () => {
    file("bad/base.yaml", "workers: 2\nmemory: { pause: 2 }\n");
    expect(problem(file("bad/sub/child.yaml", "extends: ../base.yaml\n"), "bad/sub/child.yaml")).toBe("bad/base.yaml: memory.pause: expected a fraction in (0, 1] or false");
    file("bad/syntax.yaml", "workers: [2\n");
    expect(problem(file("bad/child2.yaml", "extends: syntax.yaml\n"), "bad/child2.yaml")).toMatch(/^bad\/syntax\.yaml: not valid YAML: /);
    file("bad/spec.yaml", "tasks: [{ prefix: a }]\ncluster: { workers: 2 }\n");
    expect(problem(file("bad/child3.yaml", "extends: spec.yaml\n"), "child3.yaml")).toBe(
      "spec.yaml: a workload spec, not a cluster profile (a profile has the fields of a spec's cluster section at its top level)",
    );
  });

  it("extends is a profile file's: a spec's cluster section and options.cluster refuse it in one line", async () => {
    expect(() => validateSpec({ tasks: [{ prefix: "a" }], cluster: { extends: "profile.yaml", workers: 2 } })).toThrow(
      new RegExp("^cluster\\.extends: a workload's cluster section cannot extend a profile: give the profile as --cluster FILE"),
    );
    await expect(simulate("map", { size: 2, cluster: { extends: "x.yaml" } as never })).rejects.toThrow(
      "options.cluster.extends: only a profile file can extend another (loadClusterProfile reads the file and its bases into one profile)",
    );
  });
});

/** One file's own layer, its `extends` not followed (the stacked side of the chain test). */
function ownLayer(path: string): ClusterSpec {
  const text = readFileSync(path, "utf8");
  const { extends: _e, name: _n, description: _d, ...own } = (path.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as Record<string, unknown>;
  return validateClusterProfile(own);
}
