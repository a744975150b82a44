// Sweep benchmark: `npm run bench -- sweep [--runs 64] [--size 2000] [--repeat 2]`.
//
// The same `runs` simulations of the built-in `map` (`size` tasks each, one seed per run)
// three ways, back to back, `repeat` times: in one plain loop in this thread (runSweepTask,
// the function the pool threads run), then on the sweep's pool with --jobs 1, then with
// --jobs 2. Figures: the speed-up of 2 jobs over 1 (target ≥ 1.7× on the 2-core machine) and
// the pool's overhead over the loop (target ≤ 5 %), each per repeat, so that pairs measured
// back to back can be compared on a shared machine.
//
// It runs in a child process on an esbuild bundle (plain node, as the other suites): the bench
// and the pool's thread module are bundled side by side in bench/.sweep-*/ — inside the
// checkout, so that the bundle finds package.json (the run keys hold the version) and
// tinypool (left external: it starts its threads from its own files).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { expandPlan, type SweepRun } from "../src/lab/plan.js";
import { runSweepTask } from "../src/lab/run-task.js";
import { runSweep } from "../src/lab/sweep.js";
import { packageVersion } from "../src/util/package-version.js";
import { collectGarbage, jsonLines, round } from "./support.js";

const SELF = fileURLToPath(import.meta.url);
const WORKER = fileURLToPath(new URL("../src/lab/sweep-worker.ts", import.meta.url));
const BENCH_DIR = fileURLToPath(new URL(".", import.meta.url));

interface Settings {
  runs: number;
  size: number;
  repeat: number;
}

function settingsOf(argv: readonly string[]): Settings {
  const { values } = parseArgs({
    args: [...argv],
    options: { runs: { type: "string" }, size: { type: "string" }, repeat: { type: "string" }, child: { type: "boolean" } },
    strict: false,
    allowPositionals: true,
  });
  const whole = (value: unknown, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    const number = Number(value);
    if (!Number.isSafeInteger(number) || number < 1) throw new Error(`bench sweep: --${name} must be a whole number ≥ 1, got ${String(value)}`);
    return number;
  };
  return { runs: whole(values.runs, 64, "runs"), size: whole(values.size, 2000, "size"), repeat: whole(values.repeat, 2, "repeat") };
}

async function timed(work: () => Promise<void>): Promise<number> {
  collectGarbage();
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
}

async function measure(settings: Settings): Promise<void> {
  const emit = jsonLines("sweep");
  const runs: SweepRun[] = expandPlan({ workloads: ["map"], size: settings.size, seeds: settings.runs });
  const version = packageVersion();
  const loop = async (): Promise<void> => {
    for (const run of runs) {
      const result = await runSweepTask({ run, version });
      if (result.error !== undefined) throw new Error(`bench sweep: run ${run.seed} failed: ${result.error}`);
    }
  };
  const pool = (jobs: number) => async (): Promise<void> => {
    const outcome = await runSweep(runs, { jobs });
    if (outcome.failed > 0 || outcome.results.length !== runs.length) throw new Error(`bench sweep: ${outcome.failed} of ${runs.length} runs failed with --jobs ${jobs}`);
  };
  for (let repeat = 1; repeat <= settings.repeat; repeat++) {
    const load = round(loadavg()[0]!, 2);
    const loopSeconds = await timed(loop);
    const oneJob = await timed(pool(1));
    const twoJobs = await timed(pool(2));
    const base = { runs: runs.length, tasksPerRun: settings.size, repeat, loadBefore: load };
    emit({ ...base, name: "loop", wallSeconds: round(loopSeconds, 3), msPerRun: round((loopSeconds / runs.length) * 1000, 2) });
    emit({ ...base, name: "jobs-1", wallSeconds: round(oneJob, 3), msPerRun: round((oneJob / runs.length) * 1000, 2), overheadOverLoop: round(oneJob / loopSeconds - 1, 4) });
    emit({ ...base, name: "jobs-2", wallSeconds: round(twoJobs, 3), msPerRun: round((twoJobs / runs.length) * 1000, 2), speedupOverJobs1: round(oneJob / twoJobs, 3), loadAfter: round(loadavg()[0]!, 2) });
  }
}

export async function run(argv: string[]): Promise<void> {
  const settings = settingsOf(argv);
  const esbuild = await import("esbuild");
  const dir = mkdtempSync(`${BENCH_DIR}.sweep-`);
  try {
    await esbuild.build({
      entryPoints: { "sweep-bench": SELF, "sweep-worker": WORKER },
      outdir: dir,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      logLevel: "silent",
    });
    const child = spawnSync(process.execPath, ["--expose-gc", `${dir}/sweep-bench.mjs`, "--child", ...argv], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
    if (child.status !== 0) throw new Error(`bench sweep: child failed (status ${child.status})`);
    for (const line of child.stdout.trim().split("\n")) console.log(JSON.stringify({ ...(JSON.parse(line) as Record<string, unknown>), process: "child (node, esbuild bundle)" }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--child")) await measure(settingsOf(process.argv.slice(2)));
