// The spec's `buildBandwidth` and `buildLatency` fields from the command line (docs/sim.md,
// "Tasks that build their output"): a bad value is one line naming the file and the field's
// path, exit 2, for task groups and task-table rows alike; a good one runs.
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./sandbox.js";

const sandbox = cliSandbox("spanwork-build-");

describe("tasks[].buildBandwidth, buildLatency and taskTable[].buildBandwidth, buildLatency", () => {
  it.each([
    ["negative.yaml", "tasks:\n  - { prefix: a, count: 2 }\n  - { prefix: b, buildBandwidth: -5 }\n", "error: negative.yaml: tasks[1].buildBandwidth: expected a positive size, got -5"],
    ["zero.json", JSON.stringify({ tasks: [{ prefix: "a", buildBandwidth: 0 }] }), "error: zero.json: tasks[0].buildBandwidth: expected a positive size, got 0"],
    ["boolean.json", JSON.stringify({ tasks: [{ prefix: "a", buildBandwidth: true }] }), 'error: boolean.json: tasks[0].buildBandwidth: expected a number of bytes or a size such as "64 KiB"'],
    ["word.yaml", "tasks:\n  - { prefix: a, buildBandwidth: fast }\n", 'error: word.yaml: tasks[0].buildBandwidth: cannot parse "fast" as a size (examples: 64 KiB, 1.5GB, 200MB)'],
    [
      "table.json",
      JSON.stringify({ taskTable: [{ key: "a-0", duration: 1, outputSize: 10 }, { key: "a-1", duration: 1, outputSize: 10, buildBandwidth: "-1 MB" }] }),
      'error: table.json: taskTable[1].buildBandwidth: expected a positive size, got "-1 MB"',
    ],
    ["latency.yaml", "tasks:\n  - { prefix: a, buildBandwidth: 1.81 GB, buildLatency: -0.001 }\n", "error: latency.yaml: tasks[0].buildLatency: expected a number ≥ 0"],
    ["latency-table.json", JSON.stringify({ taskTable: [{ key: "a-0", duration: 1, outputSize: 10, buildLatency: "1 ms" }] }), "error: latency-table.json: taskTable[0].buildLatency: expected a number"],
  ])("%s: one line and exit 2", async (name, text, line) => {
    const outcome = await sandbox.run(["run", sandbox.write(name, text)]);
    expect(outcome.stderr).toBe(`${line}\n`);
    expect(outcome.code).toBe(2);
  });

  it("a group that builds 10 MB at 50 MB/s in 0.1 s runs 0.2 s a task", async () => {
    const file = sandbox.write("build.yaml", "tasks:\n  - { prefix: a, count: 1, duration: 0.1, outputSize: 10 MB, cpu: 0, buildBandwidth: 50 MB }\ncluster: { workers: 1, threads: 1 }\n");
    const outcome = await sandbox.run(["run", file, "--network", "instant", "--json", "build.report.json", "-q"]);
    expect(outcome.code).toBe(0);
    const report = JSON.parse(sandbox.read("build.report.json")) as { taskRecords: { start: number; end: number }[] };
    expect(report.taskRecords[0]!.end - report.taskRecords[0]!.start).toBeCloseTo(0.2, 3);
  });
});
