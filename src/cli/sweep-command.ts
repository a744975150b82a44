// `spanwork sweep PLAN --out FILE` and `spanwork sweep merge FILE… --out FILE`.
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { expandPlan, PlanError, shardOf, type SweepRun } from "../lab/plan.js";
import { mergeResults } from "../lab/merge.js";
import type { SweepResult } from "../lab/result.js";
import { defaultJobs, runSweep } from "../lab/sweep.js";
import type { CliIo, InterruptSignal } from "./cli-io.js";
import { CliFailure, CliUsageError } from "./errors.js";
import { formatSeconds } from "./format/units.js";
import { checkOutputPath } from "./output-files.js";
import { parseWholeNumber } from "./parse-options.js";
import { existingResults, openResultsAppender, readResultsFiles } from "./results-file.js";
import type { SimulatorApi } from "./simulator-api.js";
import { loadPlanFile, PlanProblemsError, type RunOptionInfo } from "./sweep-plan.js";
import { createSweepProgress } from "./sweep-progress.js";

export interface SweepFlags {
  out?: string;
  jobs?: string;
  shard?: string;
  dryRun?: boolean;
  quiet?: boolean;
}

export interface SweepContext {
  simulator: () => Promise<SimulatorApi>;
  /** The options of `spanwork run`: the names an axis may have. */
  runOptions: readonly RunOptionInfo[];
  /** Stops the sweep (tests); Ctrl-C and SIGTERM always do. */
  signal?: AbortSignal;
}

/** Exit codes of a sweep stopped by a signal (128 + its number), as a shell reports them and as `spanwork run` exits. */
const EXIT_INTERRUPTED: Record<InterruptSignal, number> = { SIGINT: 130, SIGTERM: 143 };

const MAX_JOBS = 1_024;
const MAX_SHARDS = 1_000_000;

export function parseShard(text: string): { index: number; count: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = match === null ? Number.NaN : Number(match[1]);
  const count = match === null ? Number.NaN : Number(match[2]);
  if (!(index >= 1 && count >= index && count <= MAX_SHARDS)) {
    throw new CliUsageError(`--shard: expected i/N with 1 ≤ i ≤ N ≤ ${MAX_SHARDS} (e.g. 2/3), got "${text}"`);
  }
  return { index, count };
}

function runsOf(plan: ReturnType<typeof loadPlanFile>): SweepRun[] {
  try {
    return expandPlan(plan.plan);
  } catch (error) {
    if (error instanceof PlanError) throw new PlanProblemsError(error.issues.map((issue) => `${plan.display}: ${issue}`));
    throw error;
  }
}

function describeFailure(result: SweepResult): string {
  const options = Object.entries(result.options).map(([name, label]) => `${name}=${String(label)}`).join(" ");
  return `failed: ${result.workload}${options ? ` ${options}` : ""} seed ${result.seed}: ${result.error}`;
}

export async function sweepCommand(planArgument: string, flags: SweepFlags, io: CliIo, context: SweepContext): Promise<number> {
  const jobs = flags.jobs === undefined ? defaultJobs() : parseWholeNumber(flags.jobs, "--jobs", 1, MAX_JOBS);
  const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
  if (flags.out === undefined && flags.dryRun !== true) throw new CliUsageError("sweep: --out FILE is required (the JSON-lines file the results are appended to)");
  const outPath = flags.out === undefined ? undefined : checkOutputPath(flags.out, "--out", io.cwd);
  const simulator = await context.simulator();
  let loaded;
  try {
    loaded = loadPlanFile(planArgument, io.cwd, simulator, context.runOptions);
    const all = runsOf(loaded);
    const inShard = shard === undefined ? all : shardOf(all, shard);
    const existing = flags.out === undefined ? null : existingResults(flags.out, io.cwd);
    const done = new Set(existing?.results.map((result) => result.key));
    const todo = inShard.filter((run) => !done.has(run.key));
    const shardText = shard === undefined ? "" : ` (shard ${shard.index}/${shard.count} of ${all.length})`;
    const skippedText = inShard.length > todo.length ? `, ${inShard.length - todo.length} already in ${flags.out}` : "";
    if (flags.dryRun === true) {
      io.stdout.write(`${planArgument}: valid sweep plan "${loaded.name}": ${inShard.length} runs${shardText}${skippedText}; ${todo.length} to run\n`);
      return 0;
    }
    return await execute(todo, { planArgument, out: flags.out!, outPath: outPath!, existing, jobs, quiet: flags.quiet === true, header: `${inShard.length} runs${shardText}${skippedText}` }, io, context.signal);
  } catch (error) {
    if (flags.dryRun === true && error instanceof PlanProblemsError && error.problems.length > 1) {
      for (const problem of error.problems) io.stdout.write(`${problem}\n`);
      throw new PlanProblemsError([`${planArgument}: ${error.problems.length} problems in the sweep plan (listed above)`]);
    }
    throw error;
  }
}

interface ExecuteSettings {
  planArgument: string;
  out: string;
  outPath: string;
  existing: ReturnType<typeof existingResults>;
  jobs: number;
  quiet: boolean;
  header: string;
}

async function execute(todo: readonly SweepRun[], settings: ExecuteSettings, io: CliIo, signal: AbortSignal | undefined): Promise<number> {
  const { out, quiet } = settings;
  if (todo.length === 0) {
    if (!quiet) io.stdout.write(`sweep ${settings.planArgument}: ${settings.header}; nothing left to run\n`);
    return 0;
  }
  const threads = Math.min(settings.jobs, todo.length);
  if (!quiet) io.stderr.write(`sweep ${settings.planArgument}: ${settings.header}; running ${todo.length} on ${threads} ${threads === 1 ? "thread" : "threads"}\n`);
  const appender = openResultsAppender(settings.outPath, settings.existing, "--out");
  const progress = createSweepProgress(io.stderr, { enabled: !quiet, now: io.now });
  const stop = new AbortController();
  let stoppedBy: InterruptSignal = "SIGINT";
  // The first Ctrl-C stops the sweep cleanly; a second one, with the listener gone, ends the process.
  const off = io.onInterrupt((received) => {
    stoppedBy = received;
    off();
    stop.abort();
  });
  const interrupt = (): void => stop.abort();
  signal?.addEventListener("abort", interrupt, { once: true });
  const started = io.now();
  const failures: SweepResult[] = [];
  let outcome;
  try {
    outcome = await runSweep(todo, {
      jobs: settings.jobs,
      signal: stop.signal,
      onResult: (result, state) => {
        appender.append(result);
        if (result.error !== undefined) failures.push(result);
        progress.update(state);
      },
    });
  } finally {
    off();
    signal?.removeEventListener("abort", interrupt);
    progress.stop();
    appender.close();
  }
  const seconds = (io.now() - started) / 1000;
  if (!quiet) for (const failure of failures.slice(0, 10)) io.stderr.write(`${describeFailure(failure)}\n`);
  if (!quiet && failures.length > 10) io.stderr.write(`… and ${failures.length - 10} more failed runs, each recorded with its error in ${out}\n`);
  const finished = outcome.results.length;
  if (outcome.stopped) {
    io.stderr.write(`stopped (${stoppedBy}): ${finished} of ${todo.length} runs finished and kept in ${out}; run the same command again to run the rest\n`);
    return EXIT_INTERRUPTED[stoppedBy];
  }
  if (!quiet) {
    const failed = outcome.failed > 0 ? ` (${outcome.failed} failed, recorded with their errors)` : "";
    io.stdout.write(`sweep ${settings.planArgument}: ${finished} ${finished === 1 ? "run" : "runs"} done in ${formatSeconds(seconds)}${failed}; results in ${out}\ncompare them: spanwork compare ${out}\n`);
  }
  return 0;
}

export interface MergeFlags {
  out?: string;
}

/** `spanwork sweep merge A.jsonl B.jsonl --out all.jsonl`: one line per key, sorted by key. */
export function sweepMergeCommand(files: readonly string[], flags: MergeFlags, io: CliIo): number {
  if (flags.out === undefined) throw new CliUsageError("sweep merge: --out FILE is required");
  const outPath = checkOutputPath(flags.out, "--out", io.cwd);
  const inputs = files.map((file) => resolve(io.cwd, file));
  if (inputs.includes(outPath) && existsSync(outPath)) {
    throw new CliUsageError(`--out: "${flags.out}" is one of the inputs; write the merge to a new file`);
  }
  const merged = mergeResults(readResultsFiles(files, io.cwd));
  const text = merged.results.map((result) => `${JSON.stringify(result)}\n`).join("");
  try {
    writeFileSync(outPath, text);
  } catch (error) {
    throw new CliFailure(`--out: cannot write "${outPath}" (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  for (const key of merged.conflicts.slice(0, 10)) io.stderr.write(`warning: results for key ${key} differ between the inputs; kept the first\n`);
  const duplicates = merged.duplicates > 0 ? ` (${merged.duplicates} duplicate ${merged.duplicates === 1 ? "line" : "lines"} dropped)` : "";
  io.stdout.write(`merged ${files.length} ${files.length === 1 ? "file" : "files"}: ${merged.results.length} runs${duplicates} → ${flags.out}\n`);
  return 0;
}
