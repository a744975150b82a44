// Runs a sweep's simulations in parallel on a pool of worker threads (tinypool: small, no
// dependencies, supports Node 20 in its current major, and cancels a running task by ending
// its thread, which is what Ctrl-C needs). Each run is deterministic by its seed, so the
// results do not depend on the number of threads nor on which thread ran what.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Tinypool from "tinypool";
import { packageVersion } from "../util/package-version.js";
import { expandPlan, shardOf, type SweepPlan, type SweepRun } from "./plan.js";
import { failedResult, isFailed, type SweepResult } from "./result.js";
import type { SweepTask } from "./run-task.js";

export interface SweepProgress {
  /** Runs finished so far (failed ones included), of `total`. */
  done: number;
  failed: number;
  total: number;
}

export interface RunSweepOptions {
  /** Worker threads (default: the number of cores). */
  jobs?: number;
  /** Called with each finished run, in the order they finish; the sweep waits for it (e.g. to append the line to a file). */
  onResult?: (result: SweepResult, progress: SweepProgress) => void | Promise<void>;
  /** Stops the sweep: runs in progress are abandoned, every finished one has been given to onResult. */
  signal?: AbortSignal;
}

export interface SweepOptions extends RunSweepOptions {
  /** Part `index` (1-based) of `count`: a stable split of the runs by key, for several machines. */
  shard?: { index: number; count: number };
  /** Keys not to run again, e.g. those already in a results file. */
  skip?: ReadonlySet<string>;
}

export interface SweepOutcome {
  /** The results of the runs that finished, in the order they finished. */
  results: SweepResult[];
  /** Runs that were to be run (after shard and skip). */
  total: number;
  failed: number;
  /** Runs left out because their key was in `skip`. */
  skipped: number;
  /** True when the signal stopped the sweep before every run finished. */
  stopped: boolean;
}

/** The default number of jobs: one thread per core. */
export function defaultJobs(): number {
  return availableParallelism();
}

/** Runs every run of `plan` (or of its shard, less `skip`). Throws PlanError for a plan that cannot run. */
export async function sweep(plan: SweepPlan, options: SweepOptions = {}): Promise<SweepOutcome> {
  const all = expandPlan(plan);
  const inShard = options.shard === undefined ? all : shardOf(all, options.shard);
  const todo = options.skip === undefined ? inShard : inShard.filter((run) => !options.skip!.has(run.key));
  const outcome = await runSweep(todo, options);
  return { ...outcome, skipped: inShard.length - todo.length };
}

/**
 * The pool's module and how to load it: the sibling `sweep-worker` with this module's own
 * extension — compiled JavaScript in an installed package, TypeScript in a checkout. Then each
 * thread registers tsx (a development dependency) before loading it, as bin/spanwork.js does:
 * `--import tsx` registers nothing in a worker thread on Node 20, its API's register() does.
 */
function poolModule(): { filename: string; execArgv: string[] } {
  const extension = extname(fileURLToPath(import.meta.url));
  const filename = fileURLToPath(new URL(`./sweep-worker${extension}`, import.meta.url));
  if (extension !== ".ts") return { filename, execArgv: [] };
  const api = tsxEsmApi();
  const preload = `import { register } from ${JSON.stringify(api)}; register();`;
  return { filename, execArgv: ["--import", `data:text/javascript,${encodeURIComponent(preload)}`] };
}

/** The URL of tsx's ES-module API (require.resolve would give its CommonJS twin, whose relative imports differ). */
function tsxEsmApi(): string {
  const manifestPath = createRequire(import.meta.url).resolve("tsx/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { exports: Record<string, { import?: { default?: string } } | string> };
  const entry = manifest.exports["./esm/api"];
  const relative = typeof entry === "object" ? entry.import?.default : undefined;
  if (relative === undefined) throw new Error(`cannot find tsx's ES-module API in ${manifestPath}`);
  return new URL(relative, pathToFileURL(manifestPath)).href;
}

/** Runs the given runs on `jobs` threads. */
export async function runSweep(runs: readonly SweepRun[], options: RunSweepOptions = {}): Promise<Omit<SweepOutcome, "skipped">> {
  const jobs = options.jobs ?? defaultJobs();
  if (!Number.isSafeInteger(jobs) || jobs < 1) throw new RangeError(`jobs must be a whole number ≥ 1, got ${jobs}`);
  const results: SweepResult[] = [];
  const progress: SweepProgress = { done: 0, failed: 0, total: runs.length };
  if (runs.length === 0) return { results, total: 0, failed: 0, stopped: false };

  const threads = Math.min(jobs, runs.length);
  const { filename, execArgv } = poolModule();
  const pool = new Tinypool({ filename, execArgv, minThreads: threads, maxThreads: threads, isolateWorkers: false });
  // Aborting cancels the tasks in progress (tinypool ends their threads); the outer signal and
  // a failing onResult both stop the sweep through it.
  const cancel = new AbortController();
  const stop = (): void => cancel.abort();
  options.signal?.addEventListener("abort", stop, { once: true });
  if (options.signal?.aborted) stop();
  const version = packageVersion();
  let next = 0;
  let callbackError: { error: unknown } | null = null;

  const thread = async (): Promise<void> => {
    while (!cancel.signal.aborted && next < runs.length) {
      const run = runs[next++]!;
      let result: SweepResult;
      try {
        result = (await pool.run({ run, version } satisfies SweepTask, { signal: cancel.signal })) as SweepResult;
      } catch (error) {
        if (cancel.signal.aborted) return;
        // The thread died under the run (out of memory, a crash): the run failed, the sweep goes on.
        result = failedResult(run, new Error(`the worker thread running it failed: ${error instanceof Error ? error.message : String(error)}`), version);
      }
      results.push(result);
      progress.done += 1;
      if (isFailed(result)) progress.failed += 1;
      try {
        await options.onResult?.(result, { ...progress });
      } catch (error) {
        callbackError ??= { error };
        stop();
        return;
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: threads }, thread));
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await pool.destroy();
  }
  if (callbackError !== null) throw (callbackError as { error: unknown }).error;
  return { results, total: runs.length, failed: progress.failed, stopped: progress.done < runs.length };
}
