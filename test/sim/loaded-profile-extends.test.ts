// profiles/dask-localcluster-2x2.yaml became `extends: dask-localcluster-2x2-quiet.yaml` plus its
// host.load on 3 December; the fixture is the file as it was before (every figure copied from the
// quiet profile). Every fidelity spec must resolve to the same cluster under both. This pins the
// figures of that day: re-measuring the quiet profile moves the loaded one (that is the point of
// extends) and this test with it (then drop it, or copy the new figures into the fixture);
// test/sim/cluster.test.ts keeps the lasting rule (the quiet profile + host.load).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadClusterProfile, loadWorkloadFile, resolveCluster } from "../../src/sim/index.js";

const address = (worker: number, host: number, slot: number) => `w${worker}@h${host}:${slot}`;

describe("profiles/dask-localcluster-2x2.yaml as an extension of the quiet profile", () => {
  const before = loadClusterProfile(join(import.meta.dirname, "../fixtures/dask-localcluster-2x2-before-extends.yaml"));
  const after = loadClusterProfile(join("profiles", "dask-localcluster-2x2.yaml"));
  const specs = ["fidelity/specs", "fidelity/quiet/specs", "fidelity/shared/specs"].flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .map((name) => join(dir, name)),
  );

  it("has the figures it had, its name and description", () => {
    expect(after).toEqual(before);
    expect(specs.length).toBeGreaterThanOrEqual(12);
  });

  it.each(specs)("%s resolves to the same cluster as with the file before", (path) => {
    const spec = loadWorkloadFile(path);
    expect(resolveCluster(spec.cluster ?? {}, after, {}, address)).toEqual(resolveCluster(spec.cluster ?? {}, before, {}, address));
  });
});

