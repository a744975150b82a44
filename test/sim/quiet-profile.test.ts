// profiles/dask-localcluster-2x2-quiet.yaml states the quiet machine's lone-transfer figures (the
// calibration's: 628 MB/s, 1.62 ms) and its host's cores, so that what slows a transfer inside a
// run — the deserialisation, the spread, a build on the host's cores — is the model's, not a
// slower bandwidth taken from in-run transfers (docs/sim.md, heavy-tree). A lone value takes the
// calibration's time; beside a build on the host it takes longer.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GraphBuilder, loadClusterProfile, simulate, type Workload } from "../../src/sim/index.js";

const profile = loadClusterProfile(join("profiles", "dask-localcluster-2x2-quiet.yaml"));

/** x and y (32 MB each), one on each worker, and j needing both: one lone 32 MB fetch; `builder`: a task whose 64 MB build starts with it. */
function pair(builder: boolean): Workload {
  const g = new GraphBuilder();
  const x = g.addTask({ key: "x", prefix: "x", duration: 0.1, nbytes: 32e6 });
  const y = g.addTask({ key: "y", prefix: "y", duration: 0.1, nbytes: 32e6 });
  const j = g.addTask({ key: "j", prefix: "j", duration: 0.1, nbytes: 1 });
  g.addDependency(j, x);
  g.addDependency(j, y);
  if (builder) {
    // 0.1 s behind x and y (a 0.1 s task before it): its build of 64 MB (35 ms at 1.81 GB/s) starts as the fetch does.
    const w = g.addTask({ key: "w", prefix: "w", duration: 0.1, nbytes: 1 });
    const b = g.addTask({ key: "b", prefix: "b", duration: 0.2, nbytes: 64e6, buildBandwidth: 1.81e9 });
    g.addDependency(b, w);
  }
  return { name: "pair", description: "", graph: g.build("pair"), faults: [], cluster: {} };
}

async function fetch(builder: boolean): Promise<number> {
  // The spread off: one transfer's own draw is not what the test is about.
  const { report } = await simulate(pair(builder), { cluster: { ...profile, transferSpread: false }, collectSpans: false, seed: 1 });
  const xs = report.transfers.filter((t) => t.outcome === "ok" && t.bytes === 32e6);
  expect(xs).toHaveLength(1);
  return xs[0]!.end - xs[0]!.start;
}

describe("the quiet profile", () => {
  it("moves a lone 32 MB value in the calibration's time: latency + a new connection + bytes / 628 MB/s", async () => {
    expect(profile.bandwidth).toBe(628e6);
    expect(profile).not.toHaveProperty("hostBandwidth");
    expect(await fetch(false)).toBeCloseTo(0.00162 + 0.0023 + 32e6 / 628e6, 6);
  });

  it("has the host's two cores, no other job: a build beside the fetch slows it", async () => {
    expect(profile.host).toEqual({ cores: 2, load: 0 });
    expect(await fetch(true)).toBeGreaterThan((await fetch(false)) + 0.001);
  });
});
