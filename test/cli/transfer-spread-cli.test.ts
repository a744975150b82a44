// cluster.transferSpread on the command line (docs/sim.md, "Transfers vary"): a bad value is one
// line naming its path and exit 2, in a spec and in a profile; a good one shows in the report.
import { describe, expect, it } from "vitest";
import { cliSandbox, itRejectsEachCluster } from "./sandbox.js";

const sandbox = cliSandbox("spanwork-transfer-spread-cli-");
const { run, write: file, read } = sandbox;

describe("cluster.transferSpread on the command line", () => {
  itRejectsEachCluster(sandbox, [
    ["negative.yaml", "cluster: { transferSpread: -0.5 }", "error: negative.yaml: cluster.transferSpread: expected a sigma (a number from 0 to 3) or false"],
    ["word.yaml", "cluster: { transferSpread: wide }", "error: word.yaml: cluster.transferSpread: expected a sigma (a number from 0 to 3) or false"],
  ]);

  it("a profile's bad value names the profile and the field", async () => {
    const profile = file("bad-profile.yaml", "workers: 2\ntransferSpread: true\n");
    const outcome = await run(["run", file("spec.yaml", "tasks: [{ prefix: a, count: 4 }]\n"), "--cluster", profile]);
    expect(outcome.stderr).toMatch(/^error: .*bad-profile\.yaml: transferSpread: expected a sigma \(a number from 0 to 3\) or false\n$/);
    expect(outcome.code).toBe(2);
  });

  it("the report states the cluster's figure, and none when it is off", async () => {
    const spec = (value: string) => file(`spec-${value}.yaml`, `tasks: [{ prefix: a, count: 4 }]\ncluster: { transferSpread: ${value} }\n`);
    expect((await run(["run", spec("0.62"), "--json", "on.json"])).code).toBe(0);
    expect(JSON.parse(read("on.json")).cluster.network.transferSpread).toBe(0.62);
    expect((await run(["run", spec("false"), "--json", "off.json"])).code).toBe(0);
    expect(JSON.parse(read("off.json")).cluster.network).not.toHaveProperty("transferSpread");
  });
});
