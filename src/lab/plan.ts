// A sweep plan and the runs it stands for: workloads × the cross product of the axes × seeds,
// minus the excluded combinations. Each run is keyed by a hash of what decides its result
// (workload, options, seed, spanwork version), so a re-run can skip what is done and shards
// can split the runs between machines without talking to each other.
import { createHash } from "node:crypto";
import type { SimOptions } from "../sim/report.js";
import type { WorkloadSpec } from "../sim/spec.js";
import { canonicalJson } from "../util/canonical-json.js";
import { packageVersion } from "../util/package-version.js";

/** What one axis value may set: any simulation option but the seed (seeds are their own list) and callbacks. */
export type AxisOptions = Omit<SimOptions, "seed" | "onProgress" | "collectSpans">;

/** How an axis value shows in results and comparisons: as written in the plan. */
export type AxisLabel = string | number | boolean | null;

/** An axis value with a label of its own, for values that set options other than the axis's name (what the CLI builds from run flags). */
export interface AxisValue {
  readonly label: AxisLabel;
  readonly options: Readonly<AxisOptions>;
}

/**
 * The axes: for each simulation option, its values (`workers: [4, 8]`), or labelled values that
 * set any options. The cross product of all axes is run.
 */
export type SweepAxes = { readonly [K in keyof AxisOptions]?: ReadonlyArray<AxisOptions[K] | AxisValue> };

/** A workload of a sweep: a built-in name, or a validated spec with the name results show. */
export type SweepWorkload = string | { readonly name: string; readonly spec: WorkloadSpec };

export interface SweepPlan {
  readonly workloads: readonly SweepWorkload[];
  /** Size of the built-in workloads (what it counts: see `builtInWorkloads`); ignored for specs. */
  readonly size?: number;
  readonly axes?: SweepAxes;
  /** A list of seeds, or a count N for seeds 1…N. */
  readonly seeds: number | readonly number[];
  /** Combinations not to run: each entry excludes the runs that match every field it names (`workload`, `seed`, axis names with labels). */
  readonly exclude?: ReadonlyArray<Readonly<Record<string, AxisLabel>>>;
}

/** One simulation of a sweep. */
export interface SweepRun {
  /** 16 hex digits of SHA-256 over (workload, options, seed, spanwork version). */
  readonly key: string;
  readonly workload: string;
  readonly seed: number;
  /** The axis labels of this run, by axis name, in axis order. */
  readonly options: Readonly<Record<string, AxisLabel>>;
  /** What simulate() gets: a built-in name or a validated spec. */
  readonly input: string | WorkloadSpec;
  readonly simOptions: SimOptions;
}

/** A plan that cannot be run, with one line per problem. */
export class PlanError extends Error {
  override readonly name = "PlanError";
  constructor(readonly issues: readonly string[]) {
    super(issues.length === 1 ? issues[0]! : `${issues.length} problems:\n  ${issues.join("\n  ")}`);
  }
}

/** Cross products beyond this are a typo, not an experiment. */
export const MAX_RUNS = 1_000_000;

interface ResolvedAxis {
  name: string;
  values: AxisValue[];
}

function isAxisValue(value: unknown): value is AxisValue {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.hasOwn(value, "label") && Object.hasOwn(value, "options");
}

function resolveAxes(axes: SweepAxes | undefined): ResolvedAxis[] {
  const resolved: ResolvedAxis[] = [];
  const problems: string[] = [];
  for (const [name, values] of Object.entries(axes ?? {}) as Array<[string, ReadonlyArray<unknown> | undefined]>) {
    if (values === undefined) continue;
    if (!Array.isArray(values) || values.length === 0) {
      problems.push(`axes.${name}: expected a list of at least one value`);
      continue;
    }
    const axisValues = values.map((value: unknown): AxisValue => (isAxisValue(value) ? value : { label: labelOf(value), options: { [name]: value } }));
    const seen = new Map<string, number>();
    axisValues.forEach((value, i) => {
      const text = canonicalJson(value.options);
      const earlier = seen.get(text);
      if (earlier !== undefined) problems.push(`axes.${name}[${i}]: the same value as axes.${name}[${earlier}]`);
      else seen.set(text, i);
    });
    resolved.push({ name, values: axisValues });
  }
  if (problems.length > 0) throw new PlanError(problems);
  return resolved;
}

function labelOf(value: unknown): AxisLabel {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return canonicalJson(value);
}

/** The seeds of a plan: 1…N for a count, else the list as given. */
export function planSeeds(seeds: SweepPlan["seeds"]): number[] {
  const list = typeof seeds === "number" ? Array.from({ length: seeds }, (_, i) => i + 1) : [...seeds];
  const problems: string[] = [];
  if (typeof seeds === "number" && (!Number.isSafeInteger(seeds) || seeds < 1)) problems.push(`seeds: expected a count ≥ 1 or a list of seeds, got ${seeds}`);
  if (list.length === 0 && typeof seeds !== "number") problems.push("seeds: expected at least one seed");
  const seen = new Set<number>();
  list.forEach((seed, i) => {
    if (!Number.isSafeInteger(seed) || seed < 0) problems.push(`seeds[${i}]: expected a whole number ≥ 0, got ${seed}`);
    else if (seen.has(seed)) problems.push(`seeds[${i}]: seed ${seed} is listed twice`);
    seen.add(seed);
  });
  if (problems.length > 0) throw new PlanError(problems);
  return list;
}

function workloadOf(workload: SweepWorkload): { name: string; input: string | WorkloadSpec; identity: unknown } {
  if (typeof workload === "string") return { name: workload, input: workload, identity: { builtIn: workload } };
  // Hashed once here, not per run: a replayed dask graph can have a hundred thousand rows.
  return { name: workload.name, input: workload.spec, identity: { spec: createHash("sha256").update(canonicalJson(workload.spec)).digest("hex") } };
}

/** The key of a run: what decides its result, hashed. */
export function runKey(identity: unknown, options: SimOptions, seed: number, version = packageVersion()): string {
  const text = canonicalJson({ version, workload: identity, options, seed });
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/**
 * Every run of the plan, in order: workload, then each axis (the first varies slowest), then
 * seed. Throws PlanError naming each problem (no workloads, empty axes, duplicate values or
 * seeds, a name in `exclude` that is no axis, a cross product over MAX_RUNS).
 */
export function expandPlan(plan: SweepPlan): SweepRun[] {
  const problems: string[] = [];
  if (plan.workloads.length === 0) problems.push("workloads: expected at least one workload");
  const workloads = plan.workloads.map(workloadOf);
  const names = new Map<string, number>();
  workloads.forEach((workload, i) => {
    const earlier = names.get(workload.name);
    if (earlier !== undefined) problems.push(`workloads[${i}]: "${workload.name}" is also the name of workloads[${earlier}]; each workload needs its own name`);
    else names.set(workload.name, i);
  });
  if (problems.length > 0) throw new PlanError(problems);
  const axes = resolveAxes(plan.axes);
  const seeds = planSeeds(plan.seeds);
  const excludes = checkExcludes(plan.exclude ?? [], axes);
  const total = axes.reduce((product, axis) => product * axis.values.length, workloads.length * seeds.length);
  if (total > MAX_RUNS) throw new PlanError([`the plan has ${total} runs (workloads × axes × seeds); at most ${MAX_RUNS} are allowed`]);

  const version = packageVersion();
  const runs: SweepRun[] = [];
  const combination: AxisValue[] = [];
  const visit = (workload: (typeof workloads)[number], depth: number): void => {
    if (depth < axes.length) {
      for (const value of axes[depth]!.values) {
        combination[depth] = value;
        visit(workload, depth + 1);
      }
      return;
    }
    const labels: Record<string, AxisLabel> = Object.create(null) as Record<string, AxisLabel>;
    const options: SimOptions = typeof workload.input === "string" && plan.size !== undefined ? { size: plan.size } : {};
    axes.forEach((axis, i) => {
      labels[axis.name] = combination[i]!.label;
      Object.assign(options, combination[i]!.options);
    });
    for (const seed of seeds) {
      if (excludes.some((exclude) => exclude(workload.name, seed, labels))) continue;
      runs.push({ key: runKey(workload.identity, options, seed, version), workload: workload.name, seed, options: labels, input: workload.input, simOptions: { ...options, seed } });
    }
  };
  for (const workload of workloads) visit(workload, 0);
  return runs;
}

type ExcludeTest = (workload: string, seed: number, labels: Readonly<Record<string, AxisLabel>>) => boolean;

function checkExcludes(entries: SweepPlan["exclude"] & object, axes: readonly ResolvedAxis[]): ExcludeTest[] {
  const problems: string[] = [];
  const byName = new Map(axes.map((axis) => [axis.name, axis]));
  const tests = entries.map((entry, i): ExcludeTest => {
    const fields = Object.entries(entry);
    if (fields.length === 0) problems.push(`exclude[${i}]: expected at least one field (workload, seed or an axis name)`);
    for (const [name, label] of fields) {
      if (name === "workload" || name === "seed") continue;
      const axis = byName.get(name);
      if (axis === undefined) {
        problems.push(`exclude[${i}].${name}: not an axis of the plan (axes: ${[...byName.keys()].join(", ") || "none"}; or workload, seed)`);
      } else if (!axis.values.some((value) => canonicalJson(value.label) === canonicalJson(label))) {
        problems.push(`exclude[${i}].${name}: ${JSON.stringify(label)} is not a value of axis ${name} (${axis.values.map((value) => JSON.stringify(value.label)).join(", ")})`);
      }
    }
    return (workload, seed, labels) =>
      fields.every(([name, label]) => {
        if (name === "workload") return label === workload;
        if (name === "seed") return label === seed;
        return canonicalJson(labels[name]) === canonicalJson(label);
      });
  });
  if (problems.length > 0) throw new PlanError(problems);
  return tests;
}

/** `--shard i/N`: the runs whose key falls in part i (1-based) of N, a split that depends on nothing but the keys. */
export function shardOf(runs: readonly SweepRun[], shard: { index: number; count: number }): SweepRun[] {
  return runs.filter((run) => Number.parseInt(run.key.slice(0, 8), 16) % shard.count === shard.index - 1);
}
