// Plan files of `spanwork sweep` (YAML, or JSON by extension): read, checked with the path of
// every problem, and turned into the library's SweepPlan. Axis values are parsed by the very
// function that parses `spanwork run`'s flags, and the axis names are the run command's own
// options, so every option `run` gains is an axis with no change here.
import { readFileSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import type { Command } from "commander";
import { parse as parseYaml } from "yaml";
import type { SimOptions } from "../sim/report.js";
import { syntaxProblem } from "../sim/spec-file.js";
import { canonicalJson } from "../util/canonical-json.js";
import type { AxisLabel, AxisValue, SweepAxes, SweepPlan, SweepWorkload } from "../lab/plan.js";
import { CliUsageError } from "./errors.js";
import { parseRunOptions, type RunFlags } from "./run-command.js";
import type { SimulatorApi } from "./simulator-api.js";
import { workloadFromArgument } from "./workload-source.js";

/** A `spanwork run` option as an axis: its flag name (`memory-limit`) and its attribute (`memoryLimit`). */
export interface RunOptionInfo {
  flag: string;
  attribute: string;
}

/** Run options that shape the output or the process, not the simulation: never axes. */
const NOT_AXES = new Set(["json", "html", "trace", "quiet", "debug", "version", "help", "cluster"]);

/** The options of the `run` command that take a value, as commander defines them. */
export function runOptionsOf(run: Command): RunOptionInfo[] {
  return run.options
    .filter((option) => option.long !== undefined && (option.required || option.optional))
    .map((option) => ({ flag: option.long!.replace(/^--/, ""), attribute: option.attributeName() }));
}

/** A plan with problems, one line each ("plan.yaml: axes.workers[1]: expected a whole number, got \"x\""). */
export class PlanProblemsError extends CliUsageError {
  constructor(readonly problems: readonly string[]) {
    super(
      problems.length <= 1
        ? (problems[0] ?? "invalid sweep plan")
        : `${problems[0]} (and ${problems.length - 1} more ${problems.length === 2 ? "problem" : "problems"}; \`spanwork sweep PLAN --dry-run\` lists them all)`,
    );
  }
}

export interface LoadedPlan {
  plan: SweepPlan;
  /** What the user typed, for messages. */
  display: string;
  name: string;
}

const PLAN_FIELDS = ["name", "description", "workloads", "size", "axes", "seeds", "exclude"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "a list" : typeof value;
}

/** The message of a run-flag parse error without its leading "--flag: ". */
function reason(error: unknown, flag: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith(`--${flag}: `) ? message.slice(flag.length + 4) : message;
}

/**
 * Reads and checks a plan file; workload files are taken relative to the plan's folder. Throws
 * PlanProblemsError listing every problem with its path.
 */
export function loadPlanFile(argument: string, cwd: string, simulator: SimulatorApi, runOptions: readonly RunOptionInfo[]): LoadedPlan {
  const path = resolve(cwd, argument);
  let text: string;
  try {
    text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliUsageError(code === "ENOENT" ? `${argument}: no such file` : `${argument}: cannot read the file (${code ?? String(error)})`);
  }
  const json = extname(path).toLowerCase() === ".json";
  let data: unknown;
  try {
    data = json ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new CliUsageError(`${argument}: not valid ${json ? "JSON" : "YAML"}: ${syntaxProblem(error)}`);
  }
  const problems: string[] = [];
  const plan = checkPlan(data, { baseDir: dirname(path), simulator, runOptions, problems });
  if (problems.length > 0 || plan === null) throw new PlanProblemsError(problems.map((problem) => `${argument}: ${problem}`));
  const name = isRecord(data) && typeof data.name === "string" ? data.name : basename(path).replace(/\.(json|ya?ml)$/i, "");
  return { plan, display: argument, name };
}

interface CheckContext {
  baseDir: string;
  simulator: SimulatorApi;
  runOptions: readonly RunOptionInfo[];
  problems: string[];
}

interface ParsedAxis {
  flag: string;
  values: AxisValue[];
}

function checkPlan(data: unknown, context: CheckContext): SweepPlan | null {
  const { problems } = context;
  if (!isRecord(data)) {
    problems.push(`(top level): expected a plan (an object with workloads, axes and seeds), got ${describe(data)}`);
    return null;
  }
  for (const field of Object.keys(data)) {
    if (!(PLAN_FIELDS as readonly string[]).includes(field)) problems.push(`${field}: unknown field (a plan has ${PLAN_FIELDS.join(", ")})`);
  }
  for (const field of ["name", "description"] as const) {
    if (data[field] !== undefined && typeof data[field] !== "string") problems.push(`${field}: expected a string`);
  }
  const workloads = checkWorkloads(data.workloads, context);
  let size: number | undefined;
  if (data.size !== undefined) {
    const parsed = parseValue({ flag: "size", attribute: "size" }, data.size, "size", problems);
    size = parsed?.size;
  }
  const axes = checkAxes(data.axes, context);
  const specIndex = workloads.findIndex((workload) => typeof workload !== "string");
  if (axes.some((axis) => axis.flag === "size") && specIndex >= 0) {
    problems.push(`axes.size: --size sizes built-in workloads, and workloads[${specIndex}] is a spec file (its counts are its own); give size as the plan's size field, or sweep built-ins only`);
  }
  const seeds = checkSeeds(data.seeds, problems);
  const exclude = checkExcludes(data.exclude, axes, workloads, context);
  if (problems.length > 0) return null;
  const sweepAxes: Record<string, AxisValue[]> = Object.create(null) as Record<string, AxisValue[]>;
  for (const axis of axes) sweepAxes[axis.flag] = axis.values;
  return {
    workloads,
    ...(size === undefined ? {} : { size }),
    // Keyed by flag names, which need not be SimOptions fields: the values carry their options.
    axes: sweepAxes as SweepAxes,
    seeds,
    exclude,
  };
}

function checkWorkloads(value: unknown, context: CheckContext): SweepWorkload[] {
  if (!Array.isArray(value) || value.length === 0) {
    context.problems.push("workloads: expected a list of at least one workload (built-in names or spec files)");
    return [];
  }
  const workloads: SweepWorkload[] = [];
  value.forEach((entry: unknown, i) => {
    if (typeof entry !== "string" || entry.trim() === "") {
      context.problems.push(`workloads[${i}]: expected a built-in workload name or the path of a spec file, got ${describe(entry)}`);
      return;
    }
    try {
      // Checked (and compiled once) as `spanwork run` would; the threads compile the spec again for each run's seed.
      const workload = workloadFromArgument(entry, context.simulator, context.baseDir);
      if (typeof workload.input === "string") workloads.push(workload.input);
      else if (workload.spec !== undefined) workloads.push({ name: workload.name, spec: workload.spec });
      else context.problems.push(`workloads[${i}]: ${entry}: the simulator gave no spec to run it with`);
    } catch (error) {
      if (!(error instanceof CliUsageError)) throw error;
      const issues = "problems" in error && Array.isArray(error.problems) ? (error.problems as string[]) : [error.message];
      for (const issue of issues) context.problems.push(`workloads[${i}]: ${issue}`);
    }
  });
  return workloads;
}

/** The axis a plan's name stands for: a run option by flag (`memory-limit`) or attribute (`memoryLimit`). */
function findOption(name: string, runOptions: readonly RunOptionInfo[]): RunOptionInfo | undefined {
  return runOptions.find((option) => option.flag === name || option.attribute === name);
}

/** One axis value through `spanwork run`'s own parser; null (and a problem) when it does not parse or sets nothing. */
function parseValue(option: RunOptionInfo, value: unknown, at: string, problems: string[]): SimOptions | null {
  if (typeof value !== "string" && typeof value !== "number") {
    problems.push(`${at}: expected a value as given to --${option.flag} (a string or a number), got ${describe(value)}`);
    return null;
  }
  let options: SimOptions;
  try {
    options = parseRunOptions({ [option.attribute]: String(value) } as RunFlags);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    problems.push(`${at}: ${reason(error, option.flag)}`);
    return null;
  }
  if (Object.keys(options).length === 0) {
    problems.push(`${at}: --${option.flag} sets no simulation option that a sweep can vary`);
    return null;
  }
  return options;
}

function checkAxes(value: unknown, context: CheckContext): ParsedAxis[] {
  const { problems } = context;
  if (value === undefined) return [];
  if (!isRecord(value)) {
    problems.push(`axes: expected an object of run options and their values, e.g. { workers: [4, 8] }, got ${describe(value)}`);
    return [];
  }
  const axes: ParsedAxis[] = [];
  for (const name of Object.keys(value)) {
    const at = `axes.${name}`;
    const option = findOption(name, context.runOptions);
    if (name === "seed" || name === "seeds") {
      problems.push(`${at}: seeds are not an axis: give them as the plan's own seeds field`);
      continue;
    }
    if (option === undefined || NOT_AXES.has(option.flag)) {
      const names = context.runOptions.filter((candidate) => !NOT_AXES.has(candidate.flag) && candidate.flag !== "seed").map((candidate) => candidate.flag);
      problems.push(`${at}: not a simulation option of spanwork run (axes can be: ${names.join(", ")})`);
      continue;
    }
    if (axes.some((axis) => axis.flag === option.flag)) {
      problems.push(`${at}: the same option as axis ${option.flag}`);
      continue;
    }
    const raw = value[name];
    if (!Array.isArray(raw) || raw.length === 0) {
      problems.push(`${at}: expected a list of at least one value`);
      continue;
    }
    const values: AxisValue[] = [];
    const seen = new Map<string, number>();
    raw.forEach((entry: unknown, i) => {
      const options = parseValue(option, entry, `${at}[${i}]`, problems);
      if (options === null) return;
      const text = canonicalJson(options);
      const earlier = seen.get(text);
      if (earlier !== undefined) {
        problems.push(`${at}[${i}]: the same value as ${at}[${earlier}]`);
        return;
      }
      seen.set(text, i);
      values.push({ label: entry as AxisLabel, options });
    });
    axes.push({ flag: option.flag, values });
  }
  return axes;
}

function checkSeeds(value: unknown, problems: string[]): number | number[] {
  if (value === undefined) return 1;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 1) problems.push(`seeds: expected a count ≥ 1 (seeds 1…N) or a list of seeds, got ${value}`);
    return value;
  }
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(`seeds: expected a count (seeds 1…N) or a list of at least one seed, got ${describe(value)}`);
    return [];
  }
  const seen = new Set<number>();
  value.forEach((seed: unknown, i) => {
    if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) problems.push(`seeds[${i}]: expected a whole number ≥ 0, got ${JSON.stringify(seed) ?? describe(seed)}`);
    else if (seen.has(seed)) problems.push(`seeds[${i}]: seed ${seed} is listed twice`);
    else seen.add(seed);
  });
  return value as number[];
}

/** Exclude entries with each axis value replaced by the label it matches (`1 GiB` finds the axis value `1GiB`). */
function checkExcludes(value: unknown, axes: readonly ParsedAxis[], workloads: readonly SweepWorkload[], context: CheckContext): Array<Record<string, AxisLabel>> {
  const { problems } = context;
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push(`exclude: expected a list of combinations, e.g. [{ workload: map, workers: 8 }], got ${describe(value)}`);
    return [];
  }
  const names = workloads.map((workload) => (typeof workload === "string" ? workload : workload.name));
  return value.map((entry: unknown, i) => {
    const at = `exclude[${i}]`;
    const normalised: Record<string, AxisLabel> = Object.create(null) as Record<string, AxisLabel>;
    if (!isRecord(entry) || Object.keys(entry).length === 0) {
      problems.push(`${at}: expected an object naming a workload, a seed or axis values, e.g. { workload: map, workers: 8 }`);
      return normalised;
    }
    for (const name of Object.keys(entry)) {
      const field = entry[name];
      if (name === "workload") {
        if (typeof field !== "string" || !names.includes(field)) problems.push(`${at}.workload: ${JSON.stringify(field)} is not a workload of the plan (${names.join(", ")})`);
        else normalised.workload = field;
        continue;
      }
      if (name === "seed") {
        if (typeof field !== "number" || !Number.isSafeInteger(field)) problems.push(`${at}.seed: expected a seed (a whole number)`);
        else normalised.seed = field;
        continue;
      }
      const option = findOption(name, context.runOptions);
      const axis = option === undefined ? undefined : axes.find((candidate) => candidate.flag === option.flag);
      if (option === undefined || axis === undefined) {
        problems.push(`${at}.${name}: not an axis of the plan (axes: ${axes.map((candidate) => candidate.flag).join(", ") || "none"}; or workload, seed)`);
        continue;
      }
      const options = parseValue(option, field, `${at}.${name}`, problems);
      if (options === null) continue;
      const match = axis.values.find((candidate) => canonicalJson(candidate.options) === canonicalJson(options));
      if (match === undefined) problems.push(`${at}.${name}: ${JSON.stringify(field)} is not a value of axis ${axis.flag} (${axis.values.map((candidate) => JSON.stringify(candidate.label)).join(", ")})`);
      else normalised[axis.flag] = match.label;
    }
    return normalised;
  });
}
