// `--scheduler` and `spanwork list --schedulers`, in-process against the fake simulator: the
// selection is checked (and a module loaded) before the run, bad ones exit 2 in one line.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { captureIo, fakeSimulator, type FakeSimulatorCalls } from "./fixtures.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

async function run(argv: string[]) {
  const captured = captureIo({ cwd: repo });
  const calls: FakeSimulatorCalls = { simulate: [] };
  const code = await main(argv, { io: captured.io, simulator: fakeSimulator(undefined, calls) });
  return { code, stdout: captured.stdout(), stderr: captured.stderr(), calls };
}

describe("--scheduler", () => {
  it("passes a checked policy selection to the run, as typed (a sweep sends it to its threads)", async () => {
    const result = await run(["run", "map", "-q", "--scheduler", "dask:stealing=false"]);
    expect(result.code).toBe(0);
    expect(result.calls.simulate[0]!.options.scheduler).toBe("dask:stealing=false");
  });

  it("loads a policy module relative to the working directory, before the run", async () => {
    const result = await run(["run", "map", "-q", "--scheduler", "./examples/earliest-start-policy.ts:transfer-weight=2"]);
    expect(result.code).toBe(0);
    expect(result.calls.simulate[0]!.options.scheduler).toMatchObject({ name: "./examples/earliest-start-policy.ts", options: { "transfer-weight": 2 } });
  });

  it("refuses an unknown policy, option or module in one line with exit 2, before any run", async () => {
    for (const [value, message] of [
      ["fast", /^error: --scheduler: unknown scheduler policy "fast" \(known: dask, locality, random, round-robin, blevel, or a path/],
      ["dask:steal=0", /^error: --scheduler: scheduler policy "dask" has no option "steal"/],
      ["./no-such-policy.ts", /^error: --scheduler: scheduler policy module \.\/no-such-policy\.ts: no such file/],
    ] as const) {
      const result = await run(["run", "map", "--scheduler", value]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.calls.simulate).toHaveLength(0);
    }
  });
});

describe("spanwork list schedulers", () => {
  it("lists every policy with its description and options, the default marked; --schedulers says the same", async () => {
    const result = await run(["list", "schedulers"]);
    expect((await run(["list", "--schedulers"])).stdout).toBe(result.stdout);
    expect((await run(["list", "networks", "--schedulers"])).code).toBe(2);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^dask +dask 2022\.12\.1: .*\(default\)$/);
    expect(lines).toContainEqual(expect.stringMatching(/^ +stealing=true +work stealing/));
    // dask's options: their descriptions start in one column
    const options = lines.filter((line) => /^ +(stealing|stealing-interval|worker-saturation)=/.test(line));
    expect(options).toHaveLength(3);
    expect(new Set(options.map((line) => /^ +\S+ +/.exec(line)![0].length)).size).toBe(1);
    for (const name of ["locality", "random", "round-robin", "blevel"]) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${name} +\\w`)));
    expect(lines.at(-1)).toMatch(/or a path to a \.ts\/\.js\/\.mjs module/);
  });
});

describe("a policy module that misbehaves (real simulator)", () => {
  it("stops the run with exit 2 and one line naming the policy, the call and the task", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spanwork-policy-"));
    try {
      writeFileSync(join(dir, "bad.mjs"), "export default (context) => ({ decideWorker: (task) => (context.cluster.assignments < 5 ? 0 : 42) });\n");
      const captured = captureIo({ cwd: dir });
      const code = await main(["run", "map", "--size", "30", "-q", "--scheduler", "./bad.mjs"], { io: captured.io });
      expect(code).toBe(2);
      expect(captured.stderr()).toMatch(/^error: scheduler policy "\.\/bad\.mjs": decideWorker\(task "map-\d+", "(ready|queued)"\): returned 42, which is not a worker id \(0–3\), QUEUE \(-2\) or NO_WORKER \(-1\)\n$/);
      expect(captured.stdout()).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
