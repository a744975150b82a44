// cluster.host on the command line (docs/sim.md, "Host CPU"): a bad field is one line naming its
// path and exit 2; a profile with a host section reports its model in the JSON report.
import { describe, expect, it } from "vitest";
import { cliSandbox, itRejectsEachCluster } from "./sandbox.js";

const sandbox = cliSandbox("spanwork-host-cli-");
const { run, write: file, read } = sandbox;

describe("cluster.host on the command line", () => {
  itRejectsEachCluster(sandbox, [
    ["cores.yaml", "cluster: { host: { cores: 0 } }", "error: cores.yaml: cluster.host.cores: expected a positive integer"],
    ["load.yaml", "cluster: { host: { cores: 2, load: -1 } }", "error: load.yaml: cluster.host.load: expected a number ≥ 0"],
    ["field.yaml", "cluster: { host: { cores: 2, threads: 4 } }", 'error: field.yaml: cluster.host: Unrecognized key: "threads"'],
    ["nocores.yaml", "cluster: { host: { load: 2 } }", "error: cluster.host: expected cores (the cores of each host) where another of its fields is set"],
    ["credit.yaml", "cluster: { host: { cores: 2, credit: 0.006 } }", "error: cluster.host.credit: only rule credit has a credit (this host's rule is lag, the default, whose burst is slice); set rule: credit, or slice"],
  ]);

  it("a profile's host section shows in the report, with the seconds threads waited for a core", async () => {
    const profile = file("host.yaml", "workers: 2\nthreads: 2\nworkersPerHost: 2\nhost: { cores: 2, load: 4 }\noverheads: { workerHandling: 0.002, schedulerDecision: 0.001 }\n");
    const outcome = await run(["run", file("spec.yaml", "tasks: [{ prefix: a, count: 40, duration: 0.01, cpu: 0.5 }]\n"), "--cluster", profile, "--json", "out.json"]);
    expect(outcome.code).toBe(0);
    const report = JSON.parse(read("out.json"));
    expect(report.cluster.host).toMatchObject({ cores: 2, load: 4, credit: 0.0015, schedulerHost: 0 });
    expect(report.cluster.host.coreWaitSeconds.tasks).toBeGreaterThan(0);
    expect(report.cluster.host.coreWaitSeconds.eventLoops).toHaveLength(2);
  });
});
