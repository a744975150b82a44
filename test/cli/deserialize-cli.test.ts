// cluster.deserializeBandwidth on the command line (docs/sim.md, "Network"): a bad value is one
// line naming its path and exit 2, in a spec and in a profile; a good one shows in the report.
import { describe, expect, it } from "vitest";
import { cliSandbox, itRejectsEachCluster } from "./sandbox.js";

const sandbox = cliSandbox("spanwork-deserialize-cli-");
const { run, write: file, read } = sandbox;

describe("cluster.deserializeBandwidth on the command line", () => {
  itRejectsEachCluster(sandbox, [
    ["negative.yaml", "cluster: { deserializeBandwidth: -1 }", "error: negative.yaml: cluster.deserializeBandwidth: expected a positive size, got -1"],
    ["word.yaml", "cluster: { deserializeBandwidth: fast }", 'error: word.yaml: cluster.deserializeBandwidth: cannot parse "fast" as a size (examples: 64 KiB, 1.5GB, 200MB)'],
  ]);

  it("a profile's bad value names the profile and the field", async () => {
    const profile = file("bad-profile.yaml", "workers: 2\ndeserializeBandwidth: true\n");
    const outcome = await run(["run", file("spec.yaml", "tasks: [{ prefix: a, count: 4 }]\n"), "--cluster", profile]);
    expect(outcome.stderr).toMatch(/^error: .*bad-profile\.yaml: deserializeBandwidth: expected bytes per second \(a number or a size such as "500 MB"\) or false\n$/);
    expect(outcome.code).toBe(2);
  });

  it("the report states the cluster's figure, and none when it is off", async () => {
    const spec = (value: string) => file(`spec-${value}.yaml`, `tasks: [{ prefix: a, count: 4 }]\ncluster: { deserializeBandwidth: ${value} }\n`);
    expect((await run(["run", spec("2 GB"), "--json", "on.json"])).code).toBe(0);
    expect(JSON.parse(read("on.json")).cluster.network.deserializeBandwidth).toBe(2e9);
    expect((await run(["run", spec("false"), "--json", "off.json"])).code).toBe(0);
    expect(JSON.parse(read("off.json")).cluster.network).not.toHaveProperty("deserializeBandwidth");
  });
});
