// Workload spec files (JSON or YAML): the schema, its validation with errors that name the
// path of the bad field, and loading from disk. docs/sim.md documents the format.
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { parseSize } from "./units.js";

/** A spec that cannot be used, with one entry per problem ("tasks[2].duration.mean: expected a positive number"). */
export class SpecError extends Error {
  override readonly name = "SpecError";
  constructor(readonly issues: readonly string[]) {
    super(issues.length === 1 ? issues[0]! : `${issues.length} problems:\n  ${issues.join("\n  ")}`);
  }
}

const number = (message: string) => z.number({ error: message });
const positive = number("expected a number").positive("expected a positive number");
const nonNegative = number("expected a number").nonnegative("expected a number ≥ 0");
const probability = number("expected a number").min(0, "expected a probability in [0, 1]").max(1, "expected a probability in [0, 1]");
const count = number("expected an integer").int("expected an integer").positive("expected a positive integer");
const index = number("expected an integer").int("expected an integer").nonnegative("expected an integer ≥ 0");

/** Byte quantities: a number, or a string such as "64 KiB" or "1.5GB". */
const bytesPreprocess = (value: unknown): unknown => {
  if (typeof value !== "string") return value;
  const parsed = parseSize(value);
  return parsed === null ? value : parsed;
};
const sizeValue = (schema: z.ZodNumber) =>
  z.preprocess(bytesPreprocess, z.number({ error: 'expected a number of bytes or a size such as "64 KiB"' }).pipe(schema));

// A distribution: a bare number (constant), or an object discriminated by `dist`.
function distribution(value: () => z.ZodType<number>, positiveValue: () => z.ZodType<number>) {
  const variants = z.discriminatedUnion(
    "dist",
    [
      z.object({ dist: z.literal("constant"), value: value() }).strict(),
      z
        .object({ dist: z.literal("uniform"), low: value(), high: value() })
        .strict()
        .refine((d) => d.high >= d.low, { path: ["high"], message: "expected high ≥ low" }),
      z.object({ dist: z.literal("normal"), mean: positiveValue(), std: value() }).strict(),
      z.object({ dist: z.literal("lognormal"), mean: positiveValue(), sigma: nonNegative }).strict(),
      z.object({ dist: z.literal("exponential"), mean: positiveValue() }).strict(),
    ],
    { error: "expected dist to be one of constant, uniform, normal, lognormal, exponential" },
  );
  return z.preprocess((raw) => {
    const bare = bytesPreprocess(raw);
    return typeof bare === "number" ? { dist: "constant", value: bare } : raw;
  }, variants);
}

const durationDistribution = distribution(
  () => nonNegative,
  () => positive,
);
const sizeDistribution = distribution(
  () => sizeValue(number("expected a number").nonnegative("expected a number ≥ 0")),
  () => sizeValue(number("expected a number").positive("expected a positive number")),
);

export type Distribution = z.infer<typeof durationDistribution>;

const prefixName = z
  .string({ error: "expected a task prefix (a string)" })
  .regex(/^[A-Za-z][A-Za-z_]*(-[A-Za-z]+)*$/, "expected a prefix of letters and underscores, words joined by '-' (e.g. load-csv)");

const dependencyPattern = z.discriminatedUnion(
  "pattern",
  [
    z.object({ pattern: z.literal("none") }).strict(),
    z.object({ pattern: z.literal("one-to-one"), on: prefixName }).strict(),
    z.object({ pattern: z.literal("all-to-all"), on: prefixName }).strict(),
    z.object({ pattern: z.literal("reduce"), on: prefixName, fanIn: count }).strict(),
    z.object({ pattern: z.literal("random"), on: prefixName, p: probability }).strict(),
    z
      .object({
        pattern: z.literal("explicit"),
        deps: z.union([
          z.array(z.array(z.string({ error: "expected a task key" }))),
          z.record(z.string(), z.array(z.string({ error: "expected a task key" }))),
        ]),
      })
      .strict(),
  ],
  { error: "expected pattern to be one of none, one-to-one, all-to-all, reduce, random, explicit" },
);
export type DependencyPattern = z.infer<typeof dependencyPattern>;

const taskGroup = z
  .object({
    prefix: prefixName,
    count: count.default(1),
    duration: durationDistribution.default({ dist: "constant", value: 0.1 }),
    outputSize: sizeDistribution.default({ dist: "constant", value: 1_000_000 }),
    cpu: probability.default(1),
    failureProbability: probability.default(0),
    dependsOn: z
      .preprocess(
        (raw) => (raw === "none" ? { pattern: "none" } : raw),
        z.union([dependencyPattern, z.array(dependencyPattern)]),
      )
      .default({ pattern: "none" }),
  })
  .strict();
export type TaskGroupSpec = z.infer<typeof taskGroup>;

const workerRef = z.union([index, z.string({ error: "expected a worker index or address" })]);
const window = {
  after: nonNegative.optional(),
  before: nonNegative.optional(),
};

export const faultSchema = z.discriminatedUnion(
  "kind",
  [
    z.object({ kind: z.literal("worker-death"), worker: workerRef, at: nonNegative }).strict(),
    z
      .object({
        kind: z.literal("transfer-failure"),
        probability,
        from: workerRef.optional(),
        to: workerRef.optional(),
        ...window,
      })
      .strict(),
    z.object({ kind: z.literal("busy"), probability, worker: workerRef.optional(), ...window }).strict(),
    z.object({ kind: z.literal("task-failure"), probability, prefix: prefixName.optional(), ...window }).strict(),
  ],
  { error: "expected kind to be one of worker-death, transfer-failure, busy, task-failure" },
);
export type FaultSpec = z.infer<typeof faultSchema>;

const clusterDefaults = z
  .object({
    workers: count.optional(),
    threads: count.optional(),
    memoryLimit: z.union([sizeValue(number("expected a number").positive("expected a positive number")), z.null()]).optional(),
    network: z.enum(["instant", "latency-bandwidth", "max-min"], { error: "expected instant, latency-bandwidth or max-min" }).optional(),
    latency: nonNegative.optional(),
    bandwidth: sizeValue(number("expected a number").positive("expected a positive number")).optional(),
  })
  .strict();

export const workloadSchema = z
  .object({
    name: z.string({ error: "expected a string" }).min(1, "expected a non-empty name").optional(),
    description: z.string({ error: "expected a string" }).optional(),
    tasks: z.array(taskGroup, { error: "expected a list of task groups" }).min(1, "expected at least one task group"),
    outputs: z.array(prefixName).optional(),
    faults: z.array(faultSchema, { error: "expected a list of faults" }).default([]),
    cluster: clusterDefaults.optional(),
  })
  .strict();

export type WorkloadSpec = z.infer<typeof workloadSchema>;
export type WorkloadSpecInput = z.input<typeof workloadSchema>;

/** "tasks[2].duration.mean" from ["tasks", 2, "duration", "mean"]. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else text += text === "" ? String(part) : `.${String(part)}`;
  }
  return text === "" ? "(top level)" : text;
}

/**
 * Checks a parsed JSON/YAML object against the spec schema and the references between
 * groups (unknown prefixes, mismatched counts, group-level cycles). Returns the spec with
 * defaults filled; throws SpecError listing every problem with its path.
 * Key-level problems of explicit dependencies (unknown keys, cycles) are found when the
 * graph is built (`compileSpec`), which `validateWorkload` also does.
 */
export function validateSpec(input: unknown): WorkloadSpec {
  const parsed = workloadSchema.safeParse(input);
  if (!parsed.success) {
    throw new SpecError(parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`));
  }
  const spec = parsed.data;
  const problems = checkReferences(spec);
  if (problems.length > 0) throw new SpecError(problems);
  return spec;
}

function patternsOf(group: TaskGroupSpec): DependencyPattern[] {
  return Array.isArray(group.dependsOn) ? group.dependsOn : [group.dependsOn];
}

function checkReferences(spec: WorkloadSpec): string[] {
  const problems: string[] = [];
  const groups = new Map<string, { index: number; count: number }>();
  spec.tasks.forEach((group, i) => {
    if (groups.has(group.prefix)) problems.push(`tasks[${i}].prefix: duplicate prefix "${group.prefix}"`);
    else groups.set(group.prefix, { index: i, count: group.count });
  });
  const edges = new Map<string, Set<string>>();
  spec.tasks.forEach((group, i) => {
    const own = new Set<string>();
    edges.set(group.prefix, own);
    const patterns = patternsOf(group);
    patterns.forEach((pattern, j) => {
      const at = Array.isArray(group.dependsOn) ? `tasks[${i}].dependsOn[${j}]` : `tasks[${i}].dependsOn`;
      if (pattern.pattern === "none" || pattern.pattern === "explicit") return;
      const target = groups.get(pattern.on);
      if (target === undefined) {
        problems.push(`${at}.on: unknown task prefix "${pattern.on}" (known: ${[...groups.keys()].join(", ")})`);
        return;
      }
      if (pattern.on === group.prefix) {
        if (pattern.pattern !== "random") {
          problems.push(`${at}.on: "${group.prefix}" cannot depend on itself with pattern ${pattern.pattern} (only random, which links each task to earlier ones)`);
        }
        return;
      }
      own.add(pattern.on);
      if (pattern.pattern === "one-to-one" && target.count !== group.count) {
        problems.push(`${at}: one-to-one needs equal counts, but "${group.prefix}" has ${group.count} and "${pattern.on}" has ${target.count}`);
      }
      if (pattern.pattern === "reduce") {
        const expected = Math.ceil(target.count / pattern.fanIn);
        if (expected !== group.count) {
          problems.push(`${at}: reduce of ${target.count} "${pattern.on}" tasks with fanIn ${pattern.fanIn} needs count ${expected}, not ${group.count}`);
        }
      }
    });
    if (patterns.some((p) => p.pattern === "explicit")) {
      const explicit = patterns.filter((p) => p.pattern === "explicit");
      for (const pattern of explicit) {
        if (pattern.pattern === "explicit" && Array.isArray(pattern.deps) && pattern.deps.length > group.count) {
          problems.push(`tasks[${i}].dependsOn: explicit deps list has ${pattern.deps.length} entries but the group has ${group.count} tasks`);
        }
      }
    }
  });
  for (const [j, prefix] of (spec.outputs ?? []).entries()) {
    if (!groups.has(prefix)) problems.push(`outputs[${j}]: unknown task prefix "${prefix}"`);
  }
  const cycle = findGroupCycle(edges);
  if (cycle !== null) problems.push(`tasks: dependency cycle between task groups: ${cycle.join(" → ")}`);
  return problems;
}

function findGroupCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, 1 | 2>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 1);
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const s = state.get(next);
      if (s === 1) return [...path.slice(path.indexOf(next)), next];
      if (s === undefined) {
        const found = visit(next);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(node, 2);
    return null;
  };
  for (const node of edges.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found !== null) return found;
  }
  return null;
}

/** Reads a JSON (.json) or YAML (anything else) workload file and validates it. */
export function loadWorkloadFile(path: string): WorkloadSpec {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new SpecError([`${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`]);
  }
  let data: unknown;
  try {
    data = extname(path).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SpecError([`${path}: not valid ${extname(path).toLowerCase() === ".json" ? "JSON" : "YAML"}: ${(error as Error).message.split("\n")[0]}`]);
  }
  try {
    const spec = validateSpec(data);
    return spec.name === undefined ? { ...spec, name: baseName(path) } : spec;
  } catch (error) {
    if (error instanceof SpecError) throw new SpecError(error.issues.map((issue) => `${path}: ${issue}`));
    throw error;
  }
}

function baseName(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  return file.replace(/\.(json|ya?ml)$/i, "");
}
