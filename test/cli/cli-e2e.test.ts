// The command as a user runs it: `node bin/spanwork.js …` in a temporary directory, with the real
// simulator. Runs are kept small (a 27-task spec) so the whole file stays fast.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportSchema } from "../../src/cli/report-schema.js";

const BIN = fileURLToPath(new URL("../../bin/spanwork.js", import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

const TINY_SPEC = `# 24 loads reduced 8 at a time: transfers between 3 workers, a little spill
name: tiny
tasks:
  - prefix: load
    count: 24
    duration: 0.05
    outputSize: 4 MB
  - prefix: total
    count: 3
    duration: 0.02
    outputSize: 1 kB
    dependsOn: { pattern: reduce, on: load, fanIn: 8 }
cluster:
  workers: 3
  threads: 2
  memoryLimit: 20 MB
`;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;

function spanwork(args: string[], env: Record<string, string | undefined> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const childEnv: Record<string, string | undefined> = { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env };
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: childEnv as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function expectOneLineError(outcome: Outcome, code: number, text: string): void {
  expect(outcome.code, outcome.stderr).toBe(code);
  expect(outcome.stderr.trimEnd().split("\n"), outcome.stderr).toHaveLength(1);
  expect(outcome.stderr).toContain(text);
  expect(outcome.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-cli-"));
  writeFileSync(join(dir, "tiny.yaml"), TINY_SPEC);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("spanwork run (end to end)", () => {
  it("prints the summary, writes a schema-valid JSON report, the same bytes on every run", async () => {
    const [first, second] = await Promise.all([
      spanwork(["run", "tiny.yaml", "--seed", "5", "--json", "first.json"]),
      spanwork(["run", "tiny.yaml", "--seed", "5", "--json", "second.json", "--quiet"]),
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain("spanwork run · tiny · 3 workers × 2 threads");
    expect(first.stdout).toMatch(/makespan +[\d.]+ (s|ms) \(simulated\)/);
    expect(first.stdout).toContain("✔ all 27 tasks finished");
    expect(first.stdout).toMatch(/^ {2}execute +load +thread-cpu /m);
    expect(first.stdout).toContain("wrote first.json (report JSON");
    expect(first.stdout).not.toContain("\u001b[");
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe("");

    const bytes = readFileSync(join(dir, "first.json"), "utf8");
    expect(readFileSync(join(dir, "second.json"), "utf8")).toBe(bytes);
    const parsed = reportSchema.safeParse(JSON.parse(bytes));
    expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBe(true);
    const report = parsed.data!;
    expect(report).toMatchObject({ schemaVersion: 1, workload: "tiny", seed: 5, workers: 3, threadsPerWorker: 2, complete: true });
    expect(report.tasks).toEqual({ total: 27, completed: 27, erred: 0, lost: 0 });
    expect(report.makespan).toBeGreaterThan(0);
    expect(report.metrics.some((metric) => metric.name[0] === "execute" && metric.name[1] === "load")).toBe(true);
    expect(report.taskRecords.length).toBeGreaterThanOrEqual(27);
  });

  it("writes a self-contained HTML report and a Chrome trace", async () => {
    const outcome = await spanwork(["run", "tiny.yaml", "--html", "report.html", "--trace", "trace.json", "--quiet"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).toContain("spanwork report · tiny");
    expect(html).not.toMatch(/<link|\bsrc=|\bhref=|https?:\/\//i);
    for (const chart of ["time-by-activity", "bytes-by-activity", "task-stream", "memory"]) expect(html).toContain(`data-chart="${chart}"`);
    const trace = JSON.parse(readFileSync(join(dir, "trace.json"), "utf8")) as { traceEvents?: Array<{ ph: string; name: string }> } | Array<{ ph: string }>;
    const events = Array.isArray(trace) ? trace : (trace.traceEvents ?? []);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => typeof event.ph === "string")).toBe(true);
  });

  it("runs a built-in workload by name", async () => {
    const outcome = await spanwork(["run", "chain", "--workers", "2", "--json", "-"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = JSON.parse(outcome.stdout) as { workload: string; workers: number; complete: boolean };
    expect(report).toMatchObject({ workload: "chain", workers: 2, complete: true });
  });
});

describe("spanwork list, validate, --help, --version (end to end)", () => {
  it("lists the built-in workloads, one per line", async () => {
    const outcome = await spanwork(["list"]);
    expect(outcome.code).toBe(0);
    const names = outcome.stdout.trimEnd().split("\n").map((line) => line.split(/\s+/)[0]);
    for (const name of ["map", "tree-reduce", "shuffle", "chain", "random-dag", "spill-pressure"]) expect(names).toContain(name);
  });

  it("validates a good spec and names the problems of bad ones", async () => {
    writeFileSync(join(dir, "bad.yaml"), "name: bad\ntasks:\n  - prefix: load\n    count: -4\n");
    writeFileSync(join(dir, "broken.json"), '{"tasks": [');
    writeFileSync(join(dir, "broken.yaml"), "tasks: [\n  - prefix: x\n");
    const [good, bad, brokenJson, brokenYaml] = await Promise.all([
      spanwork(["validate", "tiny.yaml"]),
      spanwork(["validate", "bad.yaml"]),
      spanwork(["run", "broken.json"]),
      spanwork(["validate", "broken.yaml"]),
    ]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^tiny\.yaml: valid workload spec "tiny"/);
    expectOneLineError(bad, 2, "tasks[0].count");
    expectOneLineError(brokenJson, 2, "broken.json");
    expectOneLineError(brokenYaml, 2, "broken.yaml");
  });

  it("prints the version and help", async () => {
    const [version, help] = await Promise.all([spanwork(["run", "--version"]), spanwork(["--help"])]);
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: spanwork");
  });
});

describe("bad input (end to end): exit 2, one line, no stack trace", () => {
  it.each([
    [["run", "tiny.yaml", "--memory-limit", "2GiX"], '--memory-limit: cannot parse "2GiX" as a size (examples: 2GiB, 500MB)'],
    [["run", "no-such-workload"], 'unknown workload "no-such-workload"'],
    [["run", "missing.json"], "missing.json: no such file"],
    [["run", "--frobnicate"], "unknown option '--frobnicate'"],
  ])("%j", async (args, message) => {
    expectOneLineError(await spanwork(args), 2, message);
  });
});
