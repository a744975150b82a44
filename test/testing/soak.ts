// `npm run soak -- [--events N] [--seed S] [--cluster-runs R] [--only state|cluster]`:
// the WorkerState property on the testing kit, in batches, until N stimuli have been
// checked, interleaved with whole-cluster fuzz runs (random workloads × random faults ×
// every network model, validate: true) through the public simulate() API. Every batch and
// every cluster run is one fast-check check with its own seed, derived from the soak seed,
// so a failure shrinks like any property and prints the one command that replays it:
// `npm run soak -- --replay state|cluster --seed=S --path P`.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { simulate } from "../../src/index.js";
import type { WorkerState, WorkerStateOptions } from "../../src/state/index.js";
import { StimulusViolation, arbitraryStimuli, formatReplay, freshWorkerState, runStimuli } from "../../src/testing/index.js";
import { fault, networks, TIGHT_MEMORY, workloads, type FuzzWorkload } from "./cluster-fuzz.js";

export type SoakPart = "state" | "cluster";

export interface SoakOptions {
  /** WorkerState stimuli to check. */
  readonly events: number;
  readonly seed: number;
  /** Whole-cluster fuzz runs. */
  readonly clusterRuns: number;
  /** Run one part only. */
  readonly only: SoakPart | null;
  /** Replay one failure (the part's fast-check seed and path) instead of soaking. */
  readonly replay: { readonly part: SoakPart; readonly path: string } | null;
}

export interface SoakIo {
  log(line: string): void;
  /** Seconds, monotonic. */
  now(): number;
}

export interface SoakHooks {
  /** The WorkerState of each state run (default: freshWorkerState with the run's options). */
  workerState?: (options: WorkerStateOptions) => WorkerState;
}

/** A bad command line: one line on stderr, exit 2. */
export class SoakUsageError extends Error {}

export const USAGE =
  "usage: npm run soak -- [--events N] [--seed S] [--cluster-runs R] [--only state|cluster] | --replay state|cluster --seed=S --path P";

/** State runs per fast-check batch (≈ 4,500 stimuli). */
const RUNS_PER_BATCH = 200;
/** Default cluster runs: one per this many WorkerState stimuli (200 for a million). */
const STIMULI_PER_CLUSTER_RUN = 5_000;
const PROGRESS_EVERY_SECONDS = 5;

function integer(text: string | undefined, option: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replaceAll("_", ""));
  if (text.trim() === "" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new SoakUsageError(`--${option} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

function part(text: string | undefined, option: string): SoakPart | undefined {
  if (text === undefined) return undefined;
  if (text !== "state" && text !== "cluster") throw new SoakUsageError(`--${option} must be state or cluster, got ${JSON.stringify(text)}`);
  return text;
}

/** The soak's options from its command line (node:util parseArgs); SoakUsageError names the problem. */
export function parseSoakArgs(argv: readonly string[], randomSeed: () => number): SoakOptions | "help" {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        events: { type: "string" },
        seed: { type: "string" },
        "cluster-runs": { type: "string" },
        only: { type: "string" },
        replay: { type: "string" },
        path: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    // one line: parseArgs explains a value starting with "-" (a negative seed) on its third
    const lines = error instanceof Error ? error.message.split("\n") : [String(error)];
    throw new SoakUsageError(lines.filter((line) => !line.startsWith("Did you forget")).join(" "));
  }
  if (values.help === true) return "help";
  const str = (name: string): string | undefined => values[name] as string | undefined;
  const replayPart = part(str("replay"), "replay");
  const seed = integer(str("seed"), "seed", -(2 ** 31), 2 ** 31 - 1);
  if (replayPart !== undefined) {
    const path = str("path");
    if (seed === undefined || path === undefined) throw new SoakUsageError("--replay needs --seed and --path (as the failure printed them)");
    if (!/^\d+(:\d+)*$/.test(path)) throw new SoakUsageError(`--path must be fast-check's path (numbers joined by ':'), got ${JSON.stringify(path)}`);
    return { events: 0, seed, clusterRuns: 0, only: replayPart, replay: { part: replayPart, path } };
  }
  if (str("path") !== undefined) throw new SoakUsageError("--path only goes with --replay");
  const events = integer(str("events"), "events", 1, 1e12) ?? 1_000_000;
  const clusterRuns = integer(str("cluster-runs"), "cluster-runs", 0, 1e9) ?? Math.ceil(events / STIMULI_PER_CLUSTER_RUN);
  return { events, seed: seed ?? randomSeed(), clusterRuns, only: part(str("only"), "only") ?? null, replay: null };
}

/** The seed of batch `index` of a soak seeded `seed` (distinct per batch, any 32-bit value). */
export function batchSeed(seed: number, part: SoakPart, index: number): number {
  return (Math.imul(seed ^ (part === "state" ? 0x5bd1e995 : 0x27d4eb2f), 0x9e3779b1) + Math.imul(index + 1, 0x85ebca6b)) | 0;
}

// ---- the two properties ------------------------------------------------------------------

/** Worker shapes of the state part: the property test's among them (2 threads, count limit 2, 20 MB messages). */
const workerOptions = fc.record({
  nthreads: fc.integer({ min: 1, max: 3 }),
  transferIncomingCountLimit: fc.constantFrom(1, 2, 9999),
  transferMessageBytesLimit: fc.constantFrom(20e6, 50e6),
});

function stateProperty(hooks: SoakHooks, checked: { stimuli: number }) {
  const make = hooks.workerState ?? freshWorkerState;
  return fc.property(workerOptions, arbitraryStimuli(), (options, stimuli) => {
    const ws = make({ ...options, resources: { R: 1 }, transferIncomingBytesLimit: 50e6 });
    checked.stimuli += runStimuli(ws, stimuli).events.length;
  });
}

interface ClusterCase {
  readonly workload: FuzzWorkload;
  readonly faults: readonly import("../../src/sim/index.js").FaultSpec[];
  readonly network: (typeof networks)[number];
  readonly seed: number;
  readonly tight: boolean;
}

const clusterCase: fc.Arbitrary<ClusterCase> = fc.record({
  workload: fc.constantFrom(...(Object.keys(workloads) as FuzzWorkload[])),
  faults: fc.array(fault, { maxLength: 4 }),
  network: fc.constantFrom(...networks),
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  tight: fc.boolean(),
});

function clusterProperty(byNetwork: Map<string, number>) {
  return fc.asyncProperty(clusterCase, async (c) => {
    // Worker 0 never dies, so the run can always finish.
    const faults = c.faults.filter((f) => f.kind !== "worker-death" || f.worker !== 0);
    const { report } = await simulate(c.workload, {
      size: workloads[c.workload],
      seed: c.seed,
      network: c.network,
      faults,
      validate: true,
      ...(c.tight ? TIGHT_MEMORY : {}),
    });
    byNetwork.set(c.network, (byNetwork.get(c.network) ?? 0) + 1);
    const { total, completed, erred, lost } = report.tasks;
    if (!report.complete || completed + erred !== total || lost !== 0) {
      throw new Error(`${c.workload} (size ${workloads[c.workload]}, seed ${c.seed}, ${c.network}): ${report.completion} ${JSON.stringify(report.stuck ?? [])}`);
    }
  });
}

// ---- running -----------------------------------------------------------------------------

/** `--seed=S`: fast-check's seeds may be negative, and parseArgs takes "-5" after a space for an option. */
function replayCommand(part: SoakPart, seed: number, path: string): string {
  return `npm run soak -- --replay ${part} --seed=${seed} --path ${path}`;
}

/** null for a pass; else the shrunk counterexample, then the one command that replays it (the last line). */
function failureOf<Ts extends unknown[]>(part: SoakPart, details: fc.RunDetails<Ts>): string | null {
  if (!details.failed) return null;
  const error = details.errorInstance;
  const path = details.counterexamplePath ?? "";
  const lines = [`${part} part FAILED:`];
  if (error instanceof StimulusViolation) {
    // its own replay lines speak of runStimuli/assertStimuli; the soak's is below
    lines.push(...error.message.split("\n").filter((line) => !line.startsWith("replay: ") && !line.startsWith("or, without fast-check: ")));
    lines.push(`worker options: ${JSON.stringify(details.counterexample?.[0])}`);
    if (error.reproduction !== null) lines.push(`without fast-check: ${error.reproduction}`);
  } else {
    lines.push(fc.defaultReportMessage(details) ?? "failed", error instanceof Error ? error.message : String(error));
  }
  lines.push(`fast-check parameters: ${formatReplay({ seed: details.seed, path })}`);
  lines.push(`replay: ${replayCommand(part, details.seed, path)}`);
  return lines.join("\n");
}

const count = (n: number): string => n.toLocaleString("en-US");
const load = (): string => loadavg()[0]!.toFixed(2);

/** Soaks (or replays) as `options` says; returns the exit code (0 clean, 1 a failure). */
export async function runSoak(options: SoakOptions, io: SoakIo, hooks: SoakHooks = {}): Promise<number> {
  const checked = { stimuli: 0 };
  const byNetwork = new Map<string, number>();
  if (options.replay !== null) {
    const parameters = { seed: options.seed, path: options.replay.path, endOnFailure: true };
    const failure =
      options.replay.part === "state"
        ? failureOf("state", fc.check(stateProperty(hooks, checked), parameters))
        : failureOf("cluster", await fc.check(clusterProperty(byNetwork), parameters));
    io.log(failure ?? `replayed the ${options.replay.part} case (seed ${options.seed}, path ${options.replay.path}): it passes now`);
    return failure === null ? 0 : 1;
  }

  const runState = options.only !== "cluster";
  const runCluster = options.only !== "state";
  const stateTarget = runState ? options.events : 0;
  const clusterTarget = runCluster ? options.clusterRuns : 0;
  const started = io.now();
  io.log(`soak seed ${options.seed}: ${count(stateTarget)} WorkerState stimuli, ${count(clusterTarget)} cluster runs (load ${load()})`);
  io.log(`replay the whole soak: npm run soak -- --events ${options.events} --seed ${options.seed} --cluster-runs ${options.clusterRuns}${options.only === null ? "" : ` --only ${options.only}`}`);
  let lastProgress = started;
  let stateBatches = 0;
  let clusterDone = 0;
  const progress = (force: boolean): void => {
    const now = io.now();
    if (!force && now - lastProgress < PROGRESS_EVERY_SECONDS) return;
    lastProgress = now;
    const seconds = now - started;
    const rate = seconds > 0 ? Math.round(checked.stimuli / seconds) : 0;
    io.log(
      `  ${seconds.toFixed(0)} s: ${count(checked.stimuli)}/${count(stateTarget)} stimuli (${count(rate)}/s), ` +
        `${count(clusterDone)}/${count(clusterTarget)} cluster runs, load ${load()}`,
    );
  };
  const clusterRun = async (): Promise<boolean> => {
    const failure = failureOf("cluster", await fc.check(clusterProperty(byNetwork), { seed: batchSeed(options.seed, "cluster", clusterDone), numRuns: 1 }));
    clusterDone++;
    if (failure === null) return true;
    io.log(failure);
    return false;
  };

  while (checked.stimuli < stateTarget) {
    const failure = failureOf("state", fc.check(stateProperty(hooks, checked), { seed: batchSeed(options.seed, "state", stateBatches), numRuns: RUNS_PER_BATCH }));
    stateBatches++;
    if (failure !== null) {
      io.log(failure);
      return 1;
    }
    // keep the cluster part level with the state part
    while (clusterDone < clusterTarget && clusterDone / clusterTarget < checked.stimuli / stateTarget) {
      if (!(await clusterRun())) return 1;
      progress(false);
    }
    progress(false);
  }
  while (clusterDone < clusterTarget) {
    if (!(await clusterRun())) return 1;
    progress(false);
  }
  progress(true);
  const networksLine = networks.map((network) => `${network} ${byNetwork.get(network) ?? 0}`).join(", ");
  io.log(
    `soak clean: ${count(checked.stimuli)} WorkerState stimuli in ${count(stateBatches * RUNS_PER_BATCH)} runs, ` +
      `${count(clusterDone)} cluster runs (${networksLine}) in ${(io.now() - started).toFixed(1)} s, load ${load()}`,
  );
  return 0;
}

/** The command: parse, soak, exit code (2 for a bad command line). */
export async function main(argv: readonly string[]): Promise<number> {
  let options: SoakOptions | "help";
  try {
    options = parseSoakArgs(argv, () => Math.floor(Math.random() * 2 ** 31));
  } catch (error) {
    if (!(error instanceof SoakUsageError)) throw error;
    process.stderr.write(`soak: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  return runSoak(options, { log: (line) => process.stdout.write(`${line}\n`), now: () => performance.now() / 1000 });
}
