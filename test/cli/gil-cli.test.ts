// The spec's `gil` field from the command line (docs/sim.md, "Tasks that hold the GIL"): a
// bad value is one line naming the file and the field's path, exit 2; a task table's rows take
// it too; a run with it reports each worker's gilWaitSeconds.
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./sandbox.js";

const sandbox = cliSandbox("spanwork-gil-");

describe("tasks[].gil and taskTable[].gil", () => {
  it.each([
    ["group.yaml", "tasks:\n  - { prefix: a, count: 2 }\n  - { prefix: b, gil: yes-please }\n", "error: group.yaml: tasks[1].gil: expected true or false"],
    ["number.json", JSON.stringify({ tasks: [{ prefix: "a", gil: 1 }] }), "error: number.json: tasks[0].gil: expected true or false"],
    ["table.json", JSON.stringify({ taskTable: [{ key: "a-0", duration: 1, outputSize: 10 }, { key: "a-1", duration: 1, outputSize: 10, gil: "true" }] }), "error: table.json: taskTable[1].gil: expected true or false"],
  ])("%s: one line and exit 2", async (name, text, line) => {
    const outcome = await sandbox.run(["run", sandbox.write(name, text)]);
    expect(outcome.stderr).toBe(`${line}\n`);
    expect(outcome.code).toBe(2);
  });

  it("a task table's GIL-holding rows share their worker's lock", async () => {
    const rows = [0, 1, 2, 3].map((i) => ({ key: `py-${i}`, duration: 1, outputSize: 10, gil: i < 2 }));
    const file = sandbox.write("rows.json", JSON.stringify({ taskTable: rows, cluster: { workers: 1, threads: 4 } }));
    const outcome = await sandbox.run(["run", file, "--network", "instant", "--json", "rows.report.json", "-q"]);
    expect(outcome.code).toBe(0);
    const report = JSON.parse(sandbox.read("rows.report.json")) as { taskRecords: { key: string; end: number }[]; perWorker: { gilWaitSeconds?: number }[] };
    const end = new Map(report.taskRecords.map((r) => [r.key, r.end]));
    // py-0 and py-1 share the lock (2 s of CPU); py-2 and py-3 release it.
    expect(end.get("py-0")! - end.get("py-2")!).toBeCloseTo(1, 2);
    expect(end.get("py-1")! - end.get("py-3")!).toBeCloseTo(1, 2);
    expect(report.perWorker[0]!.gilWaitSeconds).toBeGreaterThan(1.9);
  });
});
