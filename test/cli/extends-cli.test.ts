// --cluster with a profile that extends another (docs/sim.md, "Clusters and profiles"): a
// problem anywhere in the chain is one line naming the file it is in, as the user would find
// it from where they typed the path, and exit 2; a good chain runs as its flat equivalent.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./sandbox.js";

const sandbox = cliSandbox("spanwork-extends-cli-");
const { run, read } = sandbox;
const file = (name: string, text: string): string => {
  mkdirSync(join(sandbox.dir, name, ".."), { recursive: true });
  return sandbox.write(name, text);
};
const SPEC = "tasks: [{ prefix: a, count: 12, duration: 0.01, outputSize: 2 MB }, { prefix: b, count: 3, duration: 0.01, dependsOn: { pattern: reduce, on: a, fanIn: 4 } }]\n";

describe("spanwork run --cluster with extends", () => {
  it.each([
    ["missing", "profiles/child.yaml", { "profiles/child.yaml": "extends: base.yaml\n" }, "error: profiles/child.yaml: extends: profiles/base.yaml: no such file"],
    ["cycle", "loop/a.yaml", { "loop/a.yaml": "extends: b.yaml\n", "loop/b.yaml": "extends: a.yaml\nworkers: 2\n" }, "error: loop/b.yaml: extends: a cycle: loop/a.yaml → loop/b.yaml → loop/a.yaml"],
    ["bad field in the base", "v/child.yaml", { "base.yaml": "workers: 2\noverheads: { workerHandling: -1 }\n", "v/child.yaml": "extends: ../base.yaml\nthreads: 2\n" }, "error: base.yaml: overheads.workerHandling: expected a number ≥ 0"],
    ["not a path", "odd.yaml", { "odd.yaml": "extends: [base.yaml]\n" }, "error: odd.yaml: extends: expected the path of the profile this one builds on (relative to this file's directory)"],
  ] as const)("%s: one line and exit 2", async (_case, profile, files, line) => {
    for (const [name, text] of Object.entries(files)) file(name, text);
    const outcome = await run(["run", file("spec.yaml", SPEC), "--cluster", profile]);
    expect(outcome.stderr).toBe(`${line}\n`);
    expect(outcome.code).toBe(2);
  });

  it("a spec's cluster section cannot extend: one line and exit 2", async () => {
    const outcome = await run(["run", file("inline.yaml", `${SPEC}cluster: { extends: base.yaml, workers: 2 }\n`)]);
    expect(outcome.stderr).toBe(
      "error: inline.yaml: cluster.extends: a workload's cluster section cannot extend a profile: give the profile as --cluster FILE (simulate's options.cluster), the layer above this section\n",
    );
    expect(outcome.code).toBe(2);
  });

  it("a chain runs as the one profile it stands for: the same JSON report, its cluster section included", async () => {
    file("m/machine.yaml", "name: machine\nworkers: 2\nthreads: 2\nworkersPerHost: 2\nnetwork: shared-host\nsendBandwidth: 300 MB\nhost: { cores: 2 }\noverheads: { workerHandling: 0.001 }\n");
    file("m/loaded.yaml", "name: loaded\nextends: machine.yaml\nbandwidth: 500 MB\nhost: { load: 1.5 }\n");
    file("flat.yaml", "name: loaded\nworkers: 2\nthreads: 2\nworkersPerHost: 2\nnetwork: shared-host\nbandwidth: 500 MB\nhost: { cores: 2, load: 1.5 }\noverheads: { workerHandling: 0.001 }\n");
    file("spec.yaml", SPEC);
    const chained = await run(["run", "spec.yaml", "--cluster", "m/loaded.yaml", "--json", "chained.json", "-q"]);
    const flat = await run(["run", "spec.yaml", "--cluster", "flat.yaml", "--json", "flat.json", "-q"]);
    expect(chained.code, chained.stderr).toBe(0);
    expect(flat.code, flat.stderr).toBe(0);
    const report = JSON.parse(read("chained.json")) as { cluster: { host: { load: number }; network: { bandwidth: number } } };
    expect(report.cluster.host.load).toBe(1.5);
    expect(report.cluster.network.bandwidth).toBe(5e8);
    expect(report).toEqual(JSON.parse(read("flat.json")));
  });
});
