// `spanwork sweep` with the real simulator on a real thread pool: the command in-process, and
// the bin in a child process where only a process can prove it (Ctrl-C, a killed sweep).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanworkInProcess } from "./in-process.js";

const BIN = fileURLToPath(new URL("../../bin/spanwork.js", import.meta.url));
const SLOW = 90_000;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-sweep-"));
  // 2 workloads × 2 worker counts × 2 networks × 2 seeds − 4 excluded = 12 runs.
  writeFileSync(
    join(dir, "plan.yaml"),
    `workloads: [map, random-dag]
size: 40
axes:
  workers: [2, 3]
  network: [instant, max-min]
seeds: 2
exclude:
  - { workload: map, network: instant }
`,
  );
  // The fault names worker 2: with 2 workers it does not exist, so those runs fail; with 3 they run.
  writeFileSync(
    join(dir, "faulty.yaml"),
    `name: faulty
tasks:
  - { prefix: work, count: 12, duration: 0.05 }
faults:
  - { kind: worker-death, worker: 2, at: 0.01 }
`,
  );
  writeFileSync(join(dir, "failing-plan.yaml"), "workloads: [faulty.yaml]\naxes:\n  workers: [2, 3]\nseeds: [5, 6]\n");
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function spanwork(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return spanworkInProcess(args, dir);
}

function lines(file: string): string[] {
  return readFileSync(join(dir, file), "utf8").split("\n").filter((line) => line !== "");
}

function sortedText(file: string): string {
  return `${lines(file).sort().join("\n")}\n`;
}

describe("spanwork sweep", () => {
  it("checks the plan first, naming every problem with its path", async () => {
    writeFileSync(join(dir, "bad.yaml"), "workloads: [map, nosuch]\naxes:\n  workers: [2, two]\n  wrkers: [1]\nseeds: [1, 1]\n");
    const outcome = await spanwork(["sweep", "bad.yaml", "--out", "never.jsonl"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe(
      'error: bad.yaml: workloads[1]: unknown workload "nosuch" (built-in: map, tree-reduce, shuffle, chain, random-dag, spill-pressure; or give the path of a JSON/YAML spec file) (and 3 more problems; `spanwork sweep PLAN --dry-run` lists them all)\n',
    );
    expect(existsSync(join(dir, "never.jsonl"))).toBe(false);
    const listed = await spanwork(["sweep", "bad.yaml", "--dry-run"]);
    expect(listed.code).toBe(2);
    expect(listed.stdout.split("\n").slice(1, 4)).toEqual([
      'bad.yaml: axes.workers[1]: expected a whole number, got "two"',
      "bad.yaml: axes.wrkers: not a simulation option of spanwork run (axes can be: workers, threads, memory-limit, size, network, scheduler, latency, bandwidth)",
      "bad.yaml: seeds[1]: seed 1 is listed twice",
    ]);
    writeFileSync(join(dir, "sized.yaml"), "workloads: [map, faulty.yaml]\naxes:\n  size: [10, 20]\n");
    expect((await spanwork(["sweep", "sized.yaml", "--dry-run"])).stderr).toMatch(/^error: sized\.yaml: axes\.size: --size sizes built-in workloads, and workloads\[1\] is a spec file/);
    expect((await spanwork(["sweep", "plan.yaml"])).stderr).toMatch(/--out FILE is required/);
    expect((await spanwork(["sweep", "plan.yaml", "--out", "x.jsonl", "--shard", "4/3"])).stderr).toMatch(/^error: --shard: expected i\/N/);
    expect((await spanwork(["sweep", "plan.yaml", "--out", "x.jsonl", "--jobs", "0"])).code).toBe(2);
  });

  it("counts the cross product less the excluded runs", async () => {
    const outcome = await spanwork(["sweep", "plan.yaml", "--dry-run"]);
    expect(outcome).toMatchObject({ code: 0, stdout: 'plan.yaml: valid sweep plan "plan": 12 runs; 12 to run\n' });
  });

  it("gives the same results with --jobs 1 and --jobs 4, one line per run", async () => {
    const one = await spanwork(["sweep", "plan.yaml", "--out", "one.jsonl", "--jobs", "1"]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^sweep plan\.yaml: 12 runs done in .*; results in one\.jsonl\n/);
    expect(one.stderr).toMatch(/^sweep plan\.yaml: 12 runs; running 12 on 1 thread\n/);
    const four = await spanwork(["sweep", "plan.yaml", "--out", "four.jsonl", "--jobs", "4", "--quiet"]);
    expect(four).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(sortedText("four.jsonl")).toBe(sortedText("one.jsonl"));
    const results = lines("one.jsonl").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(new Set(results.map((result) => result.key)).size).toBe(12);
    expect(results.filter((result) => result.workload === "map").every((result) => (result.options as { network: string }).network === "max-min")).toBe(true);
    for (const result of results) {
      expect(result).toMatchObject({ version: expect.any(String), makespan: expect.any(Number), complete: true });
      expect(result).not.toHaveProperty("error");
    }
  }, SLOW);

  it("skips what is already in the output: a re-run with nothing left runs nothing", async () => {
    const again = await spanwork(["sweep", "plan.yaml", "--out", "one.jsonl"]);
    expect(again).toMatchObject({ code: 0, stdout: "sweep plan.yaml: 12 runs, 12 already in one.jsonl; nothing left to run\n" });
    expect(lines("one.jsonl")).toHaveLength(12);
  });

  it("splits the runs into shards that merge into the unsharded output", async () => {
    for (const index of [1, 2, 3]) {
      const shard = await spanwork(["sweep", "plan.yaml", "--out", `shard-${index}.jsonl`, "--shard", `${index}/3`, "--quiet"]);
      expect(shard.code, shard.stderr).toBe(0);
    }
    const sizes = [1, 2, 3].map((index) => lines(`shard-${index}.jsonl`).length);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(12);
    const keys = [1, 2, 3].flatMap((index) => lines(`shard-${index}.jsonl`).map((line) => (JSON.parse(line) as { key: string }).key));
    expect(new Set(keys).size).toBe(12);
    const merged = await spanwork(["sweep", "merge", "shard-1.jsonl", "shard-2.jsonl", "shard-3.jsonl", "one.jsonl", "--out", "merged.jsonl"]);
    expect(merged).toMatchObject({ code: 0, stdout: "merged 4 files: 12 runs (12 duplicate lines dropped) → merged.jsonl\n" });
    expect(readFileSync(join(dir, "merged.jsonl"), "utf8")).toBe(sortedText("one.jsonl"));
  }, SLOW);

  it("records a failing run with its error and seed, and completes the others", async () => {
    const outcome = await spanwork(["sweep", "failing-plan.yaml", "--out", "failing.jsonl", "--jobs", "2"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/4 runs done in .* \(2 failed, recorded with their errors\)/);
    const results = lines("failing.jsonl").map((line) => JSON.parse(line) as { options: { workers: number }; seed: number; error?: string; makespan: number | null });
    const failed = results.filter((result) => result.error !== undefined);
    expect(failed.map((result) => [result.options.workers, result.seed]).sort()).toEqual([
      [2, 5],
      [2, 6],
    ]);
    for (const result of failed) {
      expect(result.makespan).toBeNull();
      expect(result.error).toMatch(/worker/);
    }
    expect(outcome.stderr).toMatch(/failed: faulty workers=2 seed 5: /);
    expect(results.filter((result) => result.error === undefined).map((result) => result.options.workers)).toEqual([3, 3]);
  }, SLOW);
});

interface Child {
  code: Promise<number | null>;
  stderr: () => string;
  kill: (signal: NodeJS.Signals) => void;
}

function spawnSweep(args: string[]): Child {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdout.resume();
  return {
    code: new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal === null ? null : 128)))),
    stderr: () => stderr,
    kill: (signal) => child.kill(signal),
  };
}

async function waitForLines(file: string, count: number, child: Child): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (existsSync(join(dir, file)) && lines(file).length >= count) return;
    if (Date.now() > deadline) throw new Error(`no ${count} lines in ${file}: ${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("spanwork sweep, stopped and resumed", () => {
  it("stops cleanly on Ctrl-C keeping every finished run, and a re-run runs exactly the missing ones", async () => {
    const child = spawnSweep(["sweep", "plan.yaml", "--out", "stopped.jsonl", "--jobs", "1"]);
    await waitForLines("stopped.jsonl", 3, child);
    child.kill("SIGINT");
    expect(await child.code).toBe(130);
    const kept = lines("stopped.jsonl");
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(12);
    expect(child.stderr()).toMatch(new RegExp(`stopped \\(SIGINT\\): ${kept.length} of 12 runs finished and kept in stopped\\.jsonl`));
    // Every kept line is a complete result, identical to the same run's line in a full sweep.
    const reference = new Set(lines("one.jsonl"));
    for (const line of kept) expect(reference.has(line)).toBe(true);

    const resumed = await spanwork(["sweep", "plan.yaml", "--out", "stopped.jsonl", "--jobs", "2"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`12 runs, ${kept.length} already in stopped\\.jsonl; running ${12 - kept.length} on`));
    expect(resumed.stdout).toMatch(new RegExp(`^sweep plan\\.yaml: ${12 - kept.length} runs done`));
    expect(sortedText("stopped.jsonl")).toBe(sortedText("one.jsonl"));
  }, SLOW);

  it("resumes after a hard kill, cutting off a half-written last line", async () => {
    const child = spawnSweep(["sweep", "plan.yaml", "--out", "killed.jsonl", "--jobs", "1"]);
    await waitForLines("killed.jsonl", 2, child);
    child.kill("SIGKILL");
    await child.code;
    // As if the kill had come in the middle of a write.
    writeFileSync(join(dir, "killed.jsonl"), `${readFileSync(join(dir, "killed.jsonl"), "utf8")}{"key":"abc","workl`);
    const resumed = await spanwork(["sweep", "plan.yaml", "--out", "killed.jsonl", "--quiet"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sortedText("killed.jsonl")).toBe(sortedText("one.jsonl"));
  }, SLOW);

  it("refuses an output file that is not sweep results", async () => {
    writeFileSync(join(dir, "other.jsonl"), '{"key":"k","workload":"map","seed":1,"options":{},"makespan":1}\nnot json\n');
    const outcome = await spanwork(["sweep", "plan.yaml", "--out", "other.jsonl"]);
    expect(outcome).toMatchObject({ code: 2, stderr: "error: other.jsonl:2: not a sweep result line (a JSON object with key, workload, seed, options and makespan)\n" });
  });
});
