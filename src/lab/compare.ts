// Compares the configurations of a sweep, workload by workload: makespan over seeds (median,
// quartiles, range), transfer and spill bytes, utilisation and balance, the fine-metric time by
// activity, and each configuration against a baseline — the ratio of medians and whether the
// difference is beyond the seed-to-seed spread.
import { canonicalJson } from "../util/canonical-json.js";
import type { AxisLabel } from "./plan.js";
import { isFailed, type ActivityTotal, type SweepResult } from "./result.js";
import { byText, medianOf, spreadOf, type Spread } from "./stats.js";

/**
 * How a configuration's makespan stands against its baseline's:
 * - `faster`/`slower`: beyond the seed-to-seed spread. With at least MIN_PAIRED_SEEDS seeds run
 *   by both, every one of them moved the same way (a sign test: by chance alone, all 10 of 10
 *   seeds agree with probability 0.2 %); with fewer, the two ranges over seeds do not overlap.
 * - `within spread`: the seeds disagree, or the ranges overlap.
 * - `baseline`: it is the baseline; `no baseline`: the baseline configuration was not run;
 *   `too few seeds`: fewer than two successful runs on either side.
 */
export type Verdict = "faster" | "slower" | "within spread" | "baseline" | "no baseline" | "too few seeds";

export const MIN_PAIRED_SEEDS = 3;

export interface BaselineComparison {
  /** The label of the configuration compared with. */
  label: string;
  /** Median makespan over the baseline's median makespan. */
  ratio: number | null;
  verdict: Verdict;
  /** Seeds run successfully by both, and on how many of them this configuration was faster / slower. */
  pairedSeeds: number;
  faster: number;
  slower: number;
}

export interface ConfigurationComparison {
  /** The axis labels of the configuration. */
  options: Record<string, AxisLabel>;
  /** "workers=4 scheduler=dask" ("(no axes)" when the plan had none). */
  label: string;
  runs: number;
  failed: number;
  /** The errors of the failed runs, with their seeds. */
  failures: Array<{ seed: number; error: string }>;
  /** Successful runs, by seed. */
  makespans: Array<{ seed: number; makespan: number }>;
  makespan: Spread | null;
  /** Medians over the successful runs. */
  transferBytes: number | null;
  spillBytes: number | null;
  utilisation: number | null;
  balance: number | null;
  /** Seconds and bytes per context and activity, the mean over the successful runs. */
  activities: ActivityTotal[];
  baseline: BaselineComparison;
}

export interface WorkloadComparison {
  workload: string;
  /** Axis names, in plan order. */
  axes: string[];
  /** Sorted by their axis labels, in axis order. */
  configurations: ConfigurationComparison[];
}

export interface Comparison {
  workloads: WorkloadComparison[];
  /** Results whose key appeared more than once; the first of each was kept. */
  duplicates: number;
}

export interface CompareOptions {
  /**
   * Axis labels that name the baseline: each configuration is compared with the one that has
   * these labels and its own on every other axis (`{ scheduler: "dask" }` compares each
   * locality run with the dask run of the same cluster). Default: the first configuration.
   */
  baseline?: Readonly<Record<string, AxisLabel>>;
}

export function configurationLabel(options: Readonly<Record<string, AxisLabel>>): string {
  const parts = Object.entries(options).map(([name, label]) => `${name}=${typeof label === "string" ? label : JSON.stringify(label)}`);
  return parts.length === 0 ? "(no axes)" : parts.join(" ");
}

function compareLabels(a: AxisLabel, b: AxisLabel): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return byText(typeof a === "string" ? a : JSON.stringify(a), typeof b === "string" ? b : JSON.stringify(b));
}

/** Compares the results of one or more sweeps. */
export function compare(results: readonly SweepResult[], options: CompareOptions = {}): Comparison {
  const seen = new Set<string>();
  let duplicates = 0;
  const byWorkload = new Map<string, SweepResult[]>();
  for (const result of results) {
    if (seen.has(result.key)) {
      duplicates += 1;
      continue;
    }
    seen.add(result.key);
    let list = byWorkload.get(result.workload);
    if (list === undefined) byWorkload.set(result.workload, (list = []));
    list.push(result);
  }
  const workloads = [...byWorkload]
    .sort(([a], [b]) => byText(a, b))
    .map(([workload, list]) => compareWorkload(workload, list, options.baseline));
  return { workloads, duplicates };
}

function compareWorkload(workload: string, results: readonly SweepResult[], baseline: CompareOptions["baseline"]): WorkloadComparison {
  const axes: string[] = [];
  for (const result of results) for (const name of Object.keys(result.options)) if (!axes.includes(name)) axes.push(name);
  const groups = new Map<string, SweepResult[]>();
  for (const result of results) {
    const id = canonicalJson(result.options);
    let list = groups.get(id);
    if (list === undefined) groups.set(id, (list = []));
    list.push(result);
  }
  const configurations = [...groups.values()]
    .map((list) => summarise(axes, list))
    .sort((a, b) => {
      for (const axis of axes) {
        const order = compareLabels(a.options[axis] ?? null, b.options[axis] ?? null);
        if (order !== 0) return order;
      }
      return 0;
    });
  const byOptions = new Map(configurations.map((configuration) => [canonicalJson(configuration.options), configuration]));
  for (const configuration of configurations) {
    const target = baseline === undefined ? configurations[0]! : byOptions.get(canonicalJson(withBaseline(configuration.options, baseline, axes)));
    configuration.baseline = target === undefined ? noBaseline(withBaseline(configuration.options, baseline ?? {}, axes)) : against(configuration, target);
  }
  return { workload, axes, configurations };
}

function withBaseline(options: Readonly<Record<string, AxisLabel>>, baseline: Readonly<Record<string, AxisLabel>>, axes: readonly string[]): Record<string, AxisLabel> {
  const merged: Record<string, AxisLabel> = Object.create(null) as Record<string, AxisLabel>;
  for (const axis of axes) {
    const value = Object.hasOwn(baseline, axis) ? baseline[axis] : options[axis];
    if (value !== undefined) merged[axis] = value;
  }
  return merged;
}

function summarise(axes: readonly string[], results: readonly SweepResult[]): ConfigurationComparison {
  const options: Record<string, AxisLabel> = Object.create(null) as Record<string, AxisLabel>;
  for (const axis of axes) if (Object.hasOwn(results[0]!.options, axis)) options[axis] = results[0]!.options[axis]!;
  const ok = results.filter((result) => !isFailed(result) && result.makespan !== null).sort((a, b) => a.seed - b.seed);
  const failures = results.filter(isFailed).map((result) => ({ seed: result.seed, error: result.error! })).sort((a, b) => a.seed - b.seed);
  const median = (pick: (result: SweepResult) => number | undefined): number | null => medianOf(ok.map(pick).filter((value): value is number => value !== undefined));
  return {
    options,
    label: configurationLabel(options),
    runs: results.length,
    failed: failures.length,
    failures,
    makespans: ok.map((result) => ({ seed: result.seed, makespan: result.makespan! })),
    makespan: spreadOf(ok.map((result) => result.makespan!)),
    transferBytes: median((result) => result.transfer?.bytes),
    spillBytes: median((result) => result.spill?.bytesWritten),
    utilisation: median((result) => result.utilisation),
    balance: median((result) => result.balance),
    activities: meanActivities(ok),
    baseline: { label: "", ratio: null, verdict: "baseline", pairedSeeds: 0, faster: 0, slower: 0 },
  };
}

function meanActivities(results: readonly SweepResult[]): ActivityTotal[] {
  const totals = new Map<string, ActivityTotal>();
  for (const result of results) {
    for (const entry of result.activities ?? []) {
      const key = `${entry.context}\u0000${entry.activity}`;
      let total = totals.get(key);
      if (total === undefined) totals.set(key, (total = { context: entry.context, activity: entry.activity, seconds: 0, bytes: 0 }));
      total.seconds += entry.seconds / results.length;
      total.bytes += entry.bytes / results.length;
    }
  }
  return [...totals.values()].sort((a, b) => byText(a.context, b.context) || byText(a.activity, b.activity));
}

function noBaseline(options: Record<string, AxisLabel>): BaselineComparison {
  return { label: configurationLabel(options), ratio: null, verdict: "no baseline", pairedSeeds: 0, faster: 0, slower: 0 };
}

function against(configuration: ConfigurationComparison, baseline: ConfigurationComparison): BaselineComparison {
  const result: BaselineComparison = { label: baseline.label, ratio: null, verdict: "baseline", pairedSeeds: 0, faster: 0, slower: 0 };
  if (configuration === baseline) return result;
  const own = configuration.makespan;
  const theirs = baseline.makespan;
  if (own !== null && theirs !== null && theirs.median > 0) result.ratio = own.median / theirs.median;
  const baselineBySeed = new Map(baseline.makespans.map((entry) => [entry.seed, entry.makespan]));
  for (const { seed, makespan } of configuration.makespans) {
    const other = baselineBySeed.get(seed);
    if (other === undefined) continue;
    result.pairedSeeds += 1;
    if (makespan < other) result.faster += 1;
    else if (makespan > other) result.slower += 1;
  }
  if (own === null || theirs === null || own.n < 2 || theirs.n < 2) {
    result.verdict = "too few seeds";
  } else if (result.pairedSeeds >= MIN_PAIRED_SEEDS) {
    result.verdict = result.faster === result.pairedSeeds ? "faster" : result.slower === result.pairedSeeds ? "slower" : "within spread";
  } else {
    result.verdict = own.max < theirs.min ? "faster" : own.min > theirs.max ? "slower" : "within spread";
  }
  return result;
}
