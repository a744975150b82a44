// Cluster sections and profiles (docs/sim.md, "Clusters and profiles"): how the layers
// combine, worker groups, validation with paths, and profile files.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  DEFAULT_OVERHEADS,
  GraphBuilder,
  loadClusterProfile,
  NO_OVERHEADS,
  resolveCluster,
  simulate,
  SpecError,
  validateClusterProfile,
  validateSpec,
  type ClusterSpec,
  type Workload,
} from "../../src/sim/index.js";

const address = (worker: number, host: number, slot: number) => `w${worker}@h${host}:${slot}`;

describe("resolveCluster", () => {
  it("takes each field from the highest layer: defaults < workload < profile < options", () => {
    const workload: ClusterSpec = { workers: 3, threads: 4, latency: 0.01, overheads: { workerHandling: 0.5 }, disk: { bandwidth: 1e6 } };
    const profile: ClusterSpec = { threads: 2, overheads: { messageLatency: 0.25 }, disk: { latency: 0.5 } };
    const c = resolveCluster(workload, profile, { latency: 0.02 }, address);
    expect(c.workers.map((w) => w.nthreads)).toEqual([2, 2, 2]);
    expect(c.latency).toBe(0.02);
    // sections merge field by field
    expect(c.overheads).toEqual({ ...DEFAULT_OVERHEADS, workerHandling: 0.5, messageLatency: 0.25 });
    expect(c.disk).toEqual({ bandwidth: 1e6, latency: 0.5, hostBandwidth: null, removeLatency: 0, removeBandwidth: null });
  });

  it("lays workers out from groups: their own threads, limits and bandwidths, the layer's as defaults", () => {
    const c = resolveCluster(
      {
        threads: 8,
        bandwidth: 100,
        groups: [
          { name: "big", count: 1, threads: 16, memoryLimit: 64e9, bandwidth: 1000 },
          { count: 2, sendBandwidth: 50 },
        ],
      },
      undefined,
      {},
      address,
    );
    expect(c.workers.map((w) => [w.group, w.nthreads, w.memoryLimit, w.sendBandwidth, w.receiveBandwidth])).toEqual([
      ["big", 16, 64e9, 1000, 1000],
      [null, 8, null, 50, 100],
      [null, 8, null, 50, 100],
    ]);
  });

  it("applies a higher layer's threads, limit and bandwidth to every group", () => {
    const c = resolveCluster({ groups: [{ count: 1, threads: 16 }, { count: 1, threads: 2, memoryLimit: 1e9 }] }, { memoryLimit: 4e9 }, { threads: 3, bandwidth: 7 }, address);
    expect(c.workers.map((w) => [w.nthreads, w.memoryLimit, w.sendBandwidth, w.receiveBandwidth])).toEqual([
      [3, 4e9, 7, 7],
      [3, 4e9, 7, 7],
    ]);
  });

  it("packs workersPerHost workers to a host, in order", () => {
    const c = resolveCluster({ workers: 5, workersPerHost: 2 }, undefined, {}, address);
    expect(c.workers.map((w) => w.address)).toEqual(["w0@h0:0", "w1@h0:1", "w2@h1:0", "w3@h1:1", "w4@h2:0"]);
  });

  it("refuses options.workers over a layout of groups", () => {
    expect(() => resolveCluster({ groups: [{ count: 2 }] }, undefined, { workers: 4 }, address)).toThrow(/cannot replace the cluster's worker groups/);
    // a profile's plain workers over a spec's groups is a new layout, not a conflict
    expect(resolveCluster({ groups: [{ count: 2, threads: 5 }] }, { workers: 3 }, {}, address).workers).toHaveLength(3);
  });
});

describe("cluster validation", () => {
  it("names every bad field with its path", () => {
    let issues: readonly string[] = [];
    try {
      validateSpec({
        tasks: [{ prefix: "a" }],
        cluster: {
          workers: 2,
          groups: [{ count: 0 }],
          overheads: { workerHandling: -1, typo: 1 },
          memory: { spill: 1.5, unmanaged: "lots" },
          disk: { bandwidth: 0 },
          network: "tin-cans",
        },
      });
    } catch (error) {
      issues = (error as SpecError).issues;
    }
    expect(issues).toEqual(
      expect.arrayContaining([
        "cluster.groups[0].count: expected a positive integer",
        "cluster.overheads.workerHandling: expected a number ≥ 0",
        'cluster.overheads: Unrecognized key: "typo"',
        "cluster.memory.spill: expected a fraction in (0, 1] or false",
        'cluster.memory.unmanaged: cannot parse "lots" as a size (examples: 64 KiB, 1.5GB, 200MB)',
        "cluster.disk.bandwidth: expected a positive size, got 0",
        "cluster.network: expected instant, latency-bandwidth, max-min or shared-host",
      ]),
    );
  });

  it("refuses workers and groups in one section", () => {
    expect(() => validateSpec({ tasks: [{ prefix: "a" }], cluster: { workers: 2, groups: [{ count: 2 }] } })).toThrow(
      "cluster.groups: give either workers or groups (each with its count), not both",
    );
  });

  it("accepts today's fields as they were, and false for a memory fraction", () => {
    const spec = validateSpec({ tasks: [{ prefix: "a" }], cluster: { workers: 4, threads: 2, memoryLimit: "1 GB", network: "max-min", latency: 0.001, bandwidth: "100 MB" } });
    expect(spec.cluster).toEqual({ workers: 4, threads: 2, memoryLimit: 1e9, network: "max-min", latency: 0.001, bandwidth: 100e6 });
    expect(validateClusterProfile({ memory: { terminate: false } }).memory).toEqual({ terminate: false });
  });

  it("simulate() checks its cluster option like a profile", async () => {
    await expect(simulate("map", { size: 4, cluster: { overheads: { messageLatency: -1 } } })).rejects.toThrow("options.cluster.overheads.messageLatency: expected a number ≥ 0");
  });
});

describe("profile files", () => {
  const root = mkdtempSync(join(tmpdir(), "spanwork-profiles-"));
  const dir = () => root;
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("load from YAML with comments, and errors name the file and the field", () => {
    const good = join(dir(), "good.yaml");
    writeFileSync(good, "# a machine\nname: lab\nworkers: 2\noverheads:\n  workerHandling: 0.001  # measured\n");
    expect(loadClusterProfile(good)).toEqual({ name: "lab", workers: 2, overheads: { workerHandling: 0.001 } });
    const bad = join(dir(), "bad.json");
    writeFileSync(bad, JSON.stringify({ memory: { pause: 2 } }));
    expect(() => loadClusterProfile(bad)).toThrow(`${bad}: memory.pause: expected a fraction in (0, 1] or false`);
    expect(() => loadClusterProfile(join(dir(), "missing.yaml"))).toThrow(/cannot read the file \(ENOENT\)/);
  });

  // The shipped profiles are documentation users copy: each must load, and describe the one
  // 2-core host of the fidelity machine it was measured on.
  it.each(readdirSync("profiles").filter((f) => /\.ya?ml$/.test(f)))("profiles/%s loads and lays out one host of two workers", (file) => {
    const profile = loadClusterProfile(join("profiles", file));
    const c = resolveCluster({}, profile, {}, address);
    expect(c.workers.map((w) => w.nthreads)).toEqual([2, 2]);
    expect(new Set(c.workers.map((w) => w.host)).size).toBe(1);
  });

  // The loaded profile is the quiet machine plus the other jobs' competition (its header): a
  // figure re-measured in one must move in both, or the loaded one is no longer that machine.
  // It extends the quiet profile, so they move together as long as it sets nothing else.
  it("profiles/dask-localcluster-2x2.yaml is the quiet profile's machine with the other jobs' load on its host", () => {
    const own = parseYaml(readFileSync(join("profiles", "dask-localcluster-2x2.yaml"), "utf8")) as Record<string, unknown>;
    expect(Object.keys(own).sort()).toEqual(["description", "extends", "host", "name"]);
    expect(own.extends).toBe("dask-localcluster-2x2-quiet.yaml");
    expect(own.host).toEqual({ load: 1.5 });
    const { name: _n, description: _d, host, ...loaded } = loadClusterProfile(join("profiles", "dask-localcluster-2x2.yaml"));
    const { name: _qn, description: _qd, host: quietHost, ...quiet } = loadClusterProfile(join("profiles", "dask-localcluster-2x2-quiet.yaml"));
    expect(loaded).toEqual(quiet);
    expect(quietHost).toEqual({ cores: 2, load: 0 });
    expect(host).toEqual({ cores: 2, load: 1.5 });
  });

  it("apply over a workload's own cluster in a run", async () => {
    const builder = new GraphBuilder();
    builder.addTask({ key: "a-0", prefix: "a", duration: 1, nbytes: 1 });
    const workload: Workload = { name: "one", description: "", graph: builder.build("one"), faults: [], cluster: { workers: 3, threads: 1 } };
    const { report } = await simulate(workload, { cluster: { groups: [{ count: 1, threads: 4 }, { count: 1, threads: 2 }], overheads: NO_OVERHEADS } });
    expect(report.perWorker.map((w) => w.nthreads)).toEqual([4, 2]);
    expect(report.makespan).toBe(1);
  });
});
