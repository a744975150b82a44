// Sweep benchmark: `npm run bench -- sweep [--runs 64] [--size 2000] [--repeat 2]`.
//
// The same `runs` simulations of the built-in `map` (`size` tasks each, one seed per run)
// three ways, back to back, `repeat` times: in one plain loop (runSweepTask, the function the
// pool threads run), then on the sweep's pool with --jobs 1, then with --jobs 2. Each way runs
// in a fresh child process, so each starts as cold as a real sweep does: the loop's JIT warms
// up in its one thread as each pool thread's does in its own. Figures: the speed-up of 2 jobs
// over 1 (target ≥ 1.7× on the 2-core machine) and the pool's overhead over the loop (target
// ≤ 5 %), per repeat, so that pairs measured back to back can be compared on a shared machine;
// and the CPU seconds of each (all threads), which other jobs on the machine change less than
// wall time.
//
// The children run an esbuild bundle (plain node, as the other suites): the bench and the
// pool's thread module are bundled side by side in bench/.sweep-*/ — inside the checkout, so
// that the bundle finds package.json (the run keys hold the version) and tinypool (left
// external: it starts its threads from its own files).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { expandPlan, type SweepRun } from "../src/lab/plan.js";
import { runSweep } from "../src/lab/sweep.js";
import { packageVersion } from "../src/util/package-version.js";
import { parseSuiteOptions, runFromCommandLine, type OptionSpecs, type OptionValues } from "./options.js";
import { collectGarbage, jsonLines, round } from "./support.js";

const SELF = fileURLToPath(import.meta.url);
const WORKER = fileURLToPath(new URL("../src/lab/sweep-worker.ts", import.meta.url));
const BENCH_DIR = fileURLToPath(new URL(".", import.meta.url));

export const OPTIONS = {
  runs: { kind: "integer", default: 64 },
  size: { kind: "integer", default: 2000 },
  repeat: { kind: "integer", default: 2 },
  /** The way a child runs (the parent passes it). */
  child: { kind: "string", choices: ["loop", "jobs-1", "jobs-2"], internal: true },
} as const satisfies OptionSpecs;

type Settings = OptionValues<typeof OPTIONS>;

function settingsOf(argv: readonly string[]): Settings {
  return parseSuiteOptions("sweep", OPTIONS, argv);
}

/** Wall seconds, and CPU seconds of the whole process (every thread of the pool included). */
async function timed(work: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - start) / 1000, cpu: (used.user + used.system) / 1e6 };
}

type Mode = "loop" | "jobs-1" | "jobs-2";
const MODES: readonly Mode[] = ["loop", "jobs-1", "jobs-2"];

/** In a child: one way of running the runs, as one JSON line. */
async function measure(settings: Settings, mode: Mode): Promise<void> {
  const runs: SweepRun[] = expandPlan({ workloads: ["map"], size: settings.size, seeds: settings.runs });
  const version = packageVersion();
  const work =
    mode === "loop"
      ? async (): Promise<void> => {
          // Loaded here, not at the top: on the pool's ways only the threads load the simulator, as in `spanwork sweep`.
          const { runSweepTask } = await import("../src/lab/run-task.js");
          for (const run of runs) {
            const result = await runSweepTask({ run, version });
            if (result.error !== undefined) throw new Error(`bench sweep: run ${run.seed} failed: ${result.error}`);
          }
        }
      : async (): Promise<void> => {
          const jobs = mode === "jobs-1" ? 1 : 2;
          const outcome = await runSweep(runs, { jobs });
          if (outcome.failed > 0 || outcome.results.length !== runs.length) throw new Error(`bench sweep: ${outcome.failed} of ${runs.length} runs failed with --jobs ${jobs}`);
        };
  const time = await timed(work);
  process.stdout.write(`${JSON.stringify({ wall: time.wall, cpu: time.cpu })}\n`);
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
    const emit = jsonLines("sweep");
    for (let repeat = 1; repeat <= settings.repeat; repeat++) {
      const load = round(loadavg()[0]!, 2);
      const times = new Map<Mode, { wall: number; cpu: number }>();
      for (const mode of MODES) {
        const child = spawnSync(process.execPath, ["--expose-gc", `${dir}/sweep-bench.mjs`, "--child", mode, ...argv], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
        if (child.status !== 0) throw new Error(`bench sweep: child ${mode} failed (status ${child.status})`);
        times.set(mode, JSON.parse(child.stdout.trim()) as { wall: number; cpu: number });
      }
      const loopTime = times.get("loop")!;
      const oneJob = times.get("jobs-1")!;
      const twoJobs = times.get("jobs-2")!;
      const base = { runs: settings.runs, tasksPerRun: settings.size, repeat, loadBefore: load, process: "child per way (node, esbuild bundle)" };
      const figures = (time: { wall: number; cpu: number }) => ({ wallSeconds: round(time.wall, 3), cpuSeconds: round(time.cpu, 3), msPerRun: round((time.wall / settings.runs) * 1000, 2) });
      emit({ ...base, name: "loop", ...figures(loopTime) });
      emit({ ...base, name: "jobs-1", ...figures(oneJob), overheadOverLoop: round(oneJob.wall / loopTime.wall - 1, 4), cpuOverheadOverLoop: round(oneJob.cpu / loopTime.cpu - 1, 4) });
      emit({ ...base, name: "jobs-2", ...figures(twoJobs), speedupOverJobs1: round(oneJob.wall / twoJobs.wall, 3), cpuOverJobs1: round(twoJobs.cpu / oneJob.cpu, 3), loadAfter: round(loadavg()[0]!, 2) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childMode = process.argv.includes("--child") ? settingsOf(process.argv.slice(2)).child : undefined;
if (childMode !== undefined) await runFromCommandLine(async (argv) => measure(settingsOf(argv), childMode as Mode));
