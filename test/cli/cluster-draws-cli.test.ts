// A profile's drawn overheads and removal figures through the CLI: a good one runs, a bad one
// is one line naming the file and the field, exit 2 (docs/sim.md, "Overheads" and "Disk").
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./sandbox.js";

const sandbox = cliSandbox("spanwork-draws-");

function run(profile: string, args: string[] = []) {
  sandbox.write("profile.yaml", profile);
  return sandbox.run(["run", "map", "--size", "8", "--cluster", "profile.yaml", ...args]);
}

describe("spanwork run --cluster with drawn overheads and a removal cost", () => {
  it("runs, and the JSON report carries the distribution and the disk's removal figures", async () => {
    const outcome = await run("overheads:\n  workerHandling: { dist: lognormal, mean: 0.00117, sigma: 1.06 }\ndisk:\n  removeBandwidth: 15 GB\n", ["--json", "report.json"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = JSON.parse(sandbox.read("report.json")) as { cluster: { overheads: unknown; disk: unknown } };
    expect(report.cluster.overheads).toMatchObject({ workerHandling: { dist: "lognormal", mean: 0.00117, sigma: 1.06 } });
    expect(report.cluster.disk).toMatchObject({ removeLatency: 0, removeBandwidth: 15e9 });
  });

  it.each([
    ["overheads:\n  workerHandling: { dist: lognormal, mean: 0.001 }\n", "error: profile.yaml: overheads.workerHandling.sigma: expected a number"],
    ["overheads:\n  workerMessage: { dist: pareto, mean: 0.001 }\n", "error: profile.yaml: overheads.workerMessage.dist: expected dist to be one of constant, uniform, normal, lognormal, exponential"],
    ["disk:\n  removeBandwidth: -3\n", "error: profile.yaml: disk.removeBandwidth: expected a positive size, got -3"],
    ["disk:\n  removeLatency: -1\n", "error: profile.yaml: disk.removeLatency: expected a number ≥ 0"],
  ])("a bad field is one line and exit 2: %s", async (profile, line) => {
    const outcome = await run(profile);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(outcome.stderr).toContain(line);
    expect(outcome.stderr).not.toMatch(/\n\s+at /);
  });
});
