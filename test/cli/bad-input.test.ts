// The command with the real simulator on hostile and mistaken input (issue 12, items 9-11):
// exit 2, one line on stderr naming the problem, nothing run, control characters escaped.
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./sandbox.js";

const { run, write: spec } = cliSandbox("spanwork-bad-input-");

function expectUsageError(outcome: { code: number; stderr: string }, line: string): void {
  expect(outcome.stderr).toBe(`${line}\n`);
  expect(outcome.code).toBe(2);
}

describe("limits: the CLI and the spec agree", () => {
  it("rejects a built-in size beyond the limit", async () => {
    expectUsageError(await run(["run", "map", "--size", "100000000"]), "error: --size: must be between 1 and 1000000, got 100000000");
  });

  it("rejects a spec count beyond the limit before building the graph", async () => {
    const file = spec("huge.yaml", "tasks:\n  - { prefix: a, count: 1e12 }\n");
    expectUsageError(await run(["run", file]), "error: huge.yaml: tasks[0].count: expected at most 2,000,000 (the limit on tasks)");
  });

  it("rejects as many workers in a spec as on the command line", async () => {
    expectUsageError(await run(["run", "map", "--workers", "100000"]), "error: --workers: must be between 1 and 10000, got 100000");
    const file = spec("wide.yaml", "tasks: [{ prefix: a }]\ncluster: { workers: 100000 }\n");
    expectUsageError(await run(["run", file]), "error: wide.yaml: cluster.workers: expected at most 10,000 workers");
  });

  it("rejects an absurd memory limit", async () => {
    expectUsageError(await run(["run", "map", "--memory-limit", "2PiB"]), 'error: --memory-limit: expected at most 1 PiB (1,125,899,906,842,624 bytes), got "2PiB"');
  });
});

describe("messages", () => {
  it("--size with a spec file is rejected, not ignored", async () => {
    const file = spec("small.yaml", "tasks: [{ prefix: a, count: 2 }]\n");
    expectUsageError(await run(["run", file, "--size", "50"]), "error: --size: sets the size of a built-in workload; small.yaml sets its own task counts (change count in the file)");
  });

  it("a fault naming a worker the cluster lacks names the file", async () => {
    const file = spec("faulty.yaml", "tasks: [{ prefix: a }]\nfaults: [{ kind: worker-death, worker: 9, at: 1 }]\n");
    const outcome = await run(["run", file, "--workers", "2", "-q"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^error: faulty\.yaml: faults\[0\]\.worker: no worker 9 in this cluster/);
  });

  it("escapes control characters of the spec in the error line", async () => {
    const file = spec("escape.json", JSON.stringify({ tasks: [{ prefix: "a" }, { prefix: "b", dependsOn: { pattern: "explicit", deps: [["a-0\u0000\u001b[2J"]] } }] }));
    const outcome = await run(["run", file]);
    expectUsageError(outcome, 'error: escape.json: tasks[1].dependsOn.deps[0][0]: unknown dependency "a-0\\u0000\\u001b[2J"');
    expect(outcome.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it("runs a JSON spec saved with a byte-order mark", async () => {
    const file = spec("bom.json", '\ufeff{"tasks":[{"prefix":"a","count":3}]}');
    const outcome = await run(["validate", file]);
    expect(outcome.stdout).toBe('bom.json: valid workload spec "bom" (1 task group, 3 tasks)\n');
    expect(outcome.code).toBe(0);
  });

  it("validate lists field errors and reference errors together", async () => {
    const file = spec("broken.yaml", "tasks:\n  - { prefix: load, duration: { dist: normal, mean: -1, std: 0 } }\n  - { prefix: total, dependsOn: { pattern: one-to-one, on: lod } }\n");
    const outcome = await run(["validate", file]);
    expect(outcome.stdout).toBe(
      'broken.yaml: tasks[0].duration.mean: expected a positive number\nbroken.yaml: tasks[1].dependsOn.on: unknown task prefix "lod" (known: load, total)\n',
    );
    expectUsageError(outcome, "error: broken.yaml: 2 problems in the workload spec (listed above)");
  });
});

describe("a size with a space, unquoted", () => {
  it("says the unit left where the workload goes is a size unit", async () => {
    const outcome = await run(["run", "--memory-limit", "64", "KiB"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^error: unknown workload "KiB" \(built-in: .*; "KiB" is a size unit: quote a size with a space, --memory-limit "64 KiB"\)\n$/);
    expect((await run(["run", "m"])).stderr).not.toContain("size unit");
  });
});

describe("files that do not parse", () => {
  it("a YAML syntax error is one line ending with where it is, for a spec and for a plan", async () => {
    const text = "tasks:\n  - prefix: a\n    count: [\n";
    expectUsageError(
      await run(["validate", spec("syntax.yaml", text)]),
      "error: syntax.yaml: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 4, column 1",
    );
    expectUsageError(
      await run(["sweep", spec("plan-syntax.yaml", text), "--out", "out.jsonl"]),
      "error: plan-syntax.yaml: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 4, column 1",
    );
  });
});

describe("prototype-named names are ordinary names", () => {
  it.each(["constructor", "__proto__", "toString"])("spanwork run %s is an unknown workload", async (name) => {
    const outcome = await run(["run", name]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(new RegExp(`^error: unknown workload "${name}" \\(built-in: map,`));
  });

  it("--network constructor is an unknown model, --memory-limit 5constructor an unknown size", async () => {
    expect((await run(["run", "map", "--network", "constructor"])).stderr).toMatch(/^error: --network: unknown network model "constructor"/);
    expect((await run(["run", "map", "--memory-limit", "5constructor"])).stderr).toMatch(/^error: --memory-limit: cannot parse "5constructor" as a size/);
  });
});
