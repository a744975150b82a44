// The command as a user runs it: `node bin/spanwork.js …` in a temporary directory, with the real
// simulator. Each process spends most of its time loading TypeScript, so the spawned runs are the
// ones only a process can prove (the bin entry, exit codes, stdout/stderr, each subcommand once,
// determinism across processes); all start at once in beforeAll. The remaining real-simulator
// cases run main() in-process, which exercises the same code without the start-up cost.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { reportSchema } from "../../src/cli/report-schema.js";
import { captureIo } from "./fixtures.js";

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

// Both workers die before the first task ends: nothing can finish.
const DOOMED_SPEC = `name: doomed
tasks:
  - prefix: work
    count: 6
    duration: 0.5
faults:
  - { kind: worker-death, worker: 0, at: 0.2 }
  - { kind: worker-death, worker: 1, at: 0.2 }
cluster:
  workers: 2
  threads: 1
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

/** main() in this process with the real simulator, the same temporary directory, no terminal. */
async function inProcess(args: string[]): Promise<Outcome> {
  const captured = captureIo({ cwd: dir });
  const code = await main(args, { io: captured.io });
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

function expectOneLineError(outcome: Outcome, code: number, text: string): void {
  expect(outcome.code, outcome.stderr).toBe(code);
  expect(outcome.stderr.trimEnd().split("\n"), outcome.stderr).toHaveLength(1);
  expect(outcome.stderr).toContain(text);
  expect(outcome.stderr).not.toMatch(/\n\s+at /);
}

interface TraceEvent {
  ph: string;
  name: string;
  ts?: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: Record<string, unknown>;
}

/** Complete events that overlap another on the same thread without nesting in it. */
function overlappingEvents(events: readonly TraceEvent[]): string[] {
  const byThread = new Map<string, TraceEvent[]>();
  for (const event of events) {
    const lane = `${event.pid}/${event.tid}`;
    if (!byThread.has(lane)) byThread.set(lane, []);
    byThread.get(lane)!.push(event);
  }
  const problems: string[] = [];
  const epsilon = 1e-3;
  for (const [lane, laneEvents] of byThread) {
    laneEvents.sort((a, b) => a.ts! - b.ts! || b.dur! - a.dur!);
    const open: TraceEvent[] = [];
    for (const event of laneEvents) {
      while (open.length > 0 && open.at(-1)!.ts! + open.at(-1)!.dur! <= event.ts! + epsilon) open.pop();
      const parent = open.at(-1);
      if (parent && event.ts! + event.dur! > parent.ts! + parent.dur! + epsilon) problems.push(`${lane}: ${event.name}@${event.ts} overlaps ${parent.name}@${parent.ts}`);
      open.push(event);
    }
  }
  return problems;
}

const runs: Record<string, Promise<Outcome>> = {};

// Generous: several Node processes start at once, and CI machines are shared. Correctness only,
// no timing is asserted.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-cli-"));
  writeFileSync(join(dir, "tiny.yaml"), TINY_SPEC);
  writeFileSync(join(dir, "bad.yaml"), "name: bad\ntasks:\n  - prefix: load\n    count: -4\n");
  writeFileSync(join(dir, "broken.json"), '{"tasks": [');
  writeFileSync(join(dir, "doomed.yaml"), DOOMED_SPEC);
  const outputs = (name: string) => ["--json", `${name}.json`, "--html", `${name}.html`, "--trace", `${name}-trace.json`];
  const commands: Record<string, string[]> = {
    first: ["run", "tiny.yaml", "--seed", "5", ...outputs("first")],
    second: ["run", "tiny.yaml", "--seed", "5", ...outputs("second"), "--quiet"],
    doomed: ["run", "doomed.yaml", "--json", "doomed.json"],
    list: ["list"],
    validBad: ["validate", "bad.yaml"],
    version: ["run", "--version"],
    badSize: ["run", "tiny.yaml", "--memory-limit", "2GiX"],
  };
  for (const [name, args] of Object.entries(commands)) runs[name] = spanwork(args);
  // Settle everything before the temporary directory can go away.
  return async () => {
    await Promise.allSettled(Object.values(runs));
  };
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("spanwork run (end to end)", () => {
  it("prints the summary and writes a schema-valid JSON report", async () => {
    const first = await runs.first!;
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain("spanwork run · tiny · 3 workers × 2 threads");
    expect(first.stdout).toMatch(/makespan +[\d.]+ (s|ms) \(simulated\)/);
    expect(first.stdout).toContain("✔ all 27 tasks finished");
    expect(first.stdout).toMatch(/^ {2}execute +load +thread-cpu /m);
    expect(first.stdout).toContain("wrote first.json (report JSON");
    expect(first.stdout).not.toContain("\u001b[");

    const parsed = reportSchema.safeParse(JSON.parse(readFileSync(join(dir, "first.json"), "utf8")));
    expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBe(true);
    const report = parsed.data!;
    expect(report).toMatchObject({ schemaVersion: 2, workload: "tiny", seed: 5, workers: 3, threadsPerWorker: 2, complete: true });
    expect(report.tasks).toEqual({ total: 27, completed: 27, erred: 0, lost: 0 });
    expect(report.makespan).toBeGreaterThan(0);
    expect(report.metrics.some((metric) => metric.name[0] === "execute" && metric.name[1] === "load")).toBe(true);
    expect(report.taskRecords.length).toBeGreaterThanOrEqual(27);
  });

  it("writes the same JSON and HTML bytes for the same inputs", async () => {
    const [first, second] = await Promise.all([runs.first!, runs.second!]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe("");
    expect(readFileSync(join(dir, "second.json"), "utf8")).toBe(readFileSync(join(dir, "first.json"), "utf8"));
    expect(readFileSync(join(dir, "second.html"), "utf8")).toBe(readFileSync(join(dir, "first.html"), "utf8"));
  });

  it("writes a self-contained HTML report and a Chrome trace", async () => {
    expect((await runs.first!).code).toBe(0);
    const html = readFileSync(join(dir, "first.html"), "utf8");
    expect(html).toContain("spanwork report · tiny");
    expect(html).not.toMatch(/<link|\bsrc=|\bhref=|https?:\/\//i);
    for (const chart of ["time-by-activity", "bytes-by-activity", "task-stream", "memory"]) expect(html).toContain(`data-chart="${chart}"`);
    const trace = JSON.parse(readFileSync(join(dir, "first-trace.json"), "utf8")) as { traceEvents: TraceEvent[] };
    const spans = trace.traceEvents.filter((event) => event.ph === "X");
    expect(spans.length).toBeGreaterThan(27);
    expect(spans.some((event) => event.name.startsWith("execute"))).toBe(true);
    // One process per worker, named by its address; complete events on one thread must nest.
    const processes = trace.traceEvents.filter((event) => event.name === "process_name").map((event) => event.args?.name);
    const report = JSON.parse(readFileSync(join(dir, "first.json"), "utf8")) as { perWorker: Array<{ address: string }> };
    expect(processes).toEqual(report.perWorker.map((worker) => worker.address));
    expect(overlappingEvents(spans)).toEqual([]);
  });

  it("says so and exits 1 when the run ends incomplete, and still writes the report", async () => {
    const outcome = await runs.doomed!;
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain("✘ ");
    expect(outcome.stdout).toContain("(died)");
    expectOneLineError(outcome, 1, "error: run incomplete: ");
    const report = JSON.parse(readFileSync(join(dir, "doomed.json"), "utf8")) as { complete: boolean; tasks: { completed: number }; stuck?: unknown[] };
    expect(report.complete).toBe(false);
    expect(report.tasks.completed).toBe(0);
    expect(report.stuck?.length).toBeGreaterThan(0);
  });

  it("runs a built-in workload by name, the JSON on stdout with --json -", async () => {
    const outcome = await inProcess(["run", "chain", "--size", "20", "--workers", "2", "--json", "-"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = JSON.parse(outcome.stdout) as { workload: string; workers: number; complete: boolean; tasks: { total: number } };
    expect(report).toMatchObject({ workload: "chain", workers: 2, complete: true, tasks: { total: 20 } });
  });
});

describe("spanwork list, validate, --version (end to end)", () => {
  it("lists the built-in workloads, one per line", async () => {
    const outcome = await runs.list!;
    expect(outcome.code).toBe(0);
    const names = outcome.stdout.trimEnd().split("\n").map((line) => line.split(/\s+/)[0]);
    for (const name of ["map", "tree-reduce", "shuffle", "chain", "random-dag", "spill-pressure"]) expect(names).toContain(name);
  });

  it("validates a good spec and names the problems of bad ones with their path", async () => {
    const good = await inProcess(["validate", "tiny.yaml"]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toBe('tiny.yaml: valid workload spec "tiny" (2 task groups, 27 tasks)\n');
    expectOneLineError(await runs.validBad!, 2, "bad.yaml: tasks[0].count: expected a positive integer");
    expectOneLineError(await inProcess(["run", "broken.json"]), 2, "broken.json: not valid JSON");
  });

  it("prints the version", async () => {
    expect(await runs.version!).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });
});

describe("bad input (end to end): exit 2, one line, no stack trace", () => {
  it("a size that does not parse", async () => {
    expectOneLineError(await runs.badSize!, 2, 'error: --memory-limit: cannot parse "2GiX" as a size (examples: 64 KiB, 1.5GB, 200MB)');
  });
  it("an unknown workload", async () => {
    expectOneLineError(await inProcess(["run", "no-such-workload"]), 2, 'error: unknown workload "no-such-workload" (built-in: map, tree-reduce, shuffle, chain, random-dag, spill-pressure;');
  });
  it("an unknown option", async () => {
    expectOneLineError(await inProcess(["run", "--frobnicate"]), 2, "error: unknown option '--frobnicate'");
  });
  it("a cluster profile with a bad field names the file and the field", async () => {
    writeFileSync(join(dir, "bad-profile.yaml"), "overheads:\n  workerHandling: -1\n");
    expectOneLineError(await inProcess(["run", "map", "--size", "4", "--cluster", "bad-profile.yaml"]), 2, "error: bad-profile.yaml: overheads.workerHandling: expected a number ≥ 0");
  });
});

describe("spanwork run --cluster (in process)", () => {
  it("runs the workload on the profile's cluster, over the spec's own", async () => {
    writeFileSync(join(dir, "two-groups.yaml"), "# a profile\ngroups:\n  - { count: 1, threads: 3 }\n  - { count: 2, threads: 1 }\nnetwork: shared-host\nlatency: 0.002\n");
    const outcome = await inProcess(["run", "tiny.yaml", "--cluster", "two-groups.yaml", "--json", "profiled.json", "-q"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, "profiled.json"), "utf8")) as { workers: number; network: string; perWorker: Array<{ nthreads: number }> };
    expect(report.workers).toBe(3);
    expect(report.network).toBe("shared-host");
    expect(report.perWorker.map((w) => w.nthreads)).toEqual([3, 1, 1]);
  });
});
