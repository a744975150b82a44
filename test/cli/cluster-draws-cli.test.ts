// A profile's drawn overheads and removal figures through the CLI: a good one runs, a bad one
// is one line naming the file and the field, exit 2 (docs/sim.md, "Overheads" and "Disk").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { captureIo } from "./fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "spanwork-draws-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(profile: string, args: string[] = []) {
  writeFileSync(join(dir, "profile.yaml"), profile);
  const captured = captureIo({ cwd: dir });
  const code = await main(["run", "map", "--size", "8", "--cluster", "profile.yaml", ...args], { io: captured.io });
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

describe("spanwork run --cluster with drawn overheads and a removal cost", () => {
  it("runs, and the JSON report carries the distribution and the disk's removal figures", async () => {
    const outcome = await run("overheads:\n  workerHandling: { dist: lognormal, mean: 0.00117, sigma: 1.06 }\ndisk:\n  removeBandwidth: 15 GB\n", ["--json", "report.json"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as { cluster: { overheads: unknown; disk: unknown } };
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
