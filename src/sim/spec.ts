// Workload spec files (JSON or YAML): the schema, its validation with errors that name the
// path of the bad field, and loading from disk. docs/sim.md documents the format.
import { z } from "zod";
import { formatLimit, LIMITS } from "./limits.js";
import { clusterSchema, schedulerProblem } from "./cluster-spec.js";
import { SpecError } from "./spec-error.js";
import { loadDataFile } from "./spec-file.js";
import { durationDistribution, sizeDistribution } from "./distribution-spec.js";
import { checkReferences, formatPath, type GroupFacts, type SpecFacts } from "./spec-checks.js";
import { checkTaskTable, TASK_TABLE_FIELD, taskTableSchema, type TaskRow } from "./task-table.js";
import { bytes, count, index, isPlainObject, nonNegative, parseInto, probability } from "./spec-fields.js";

export type { Distribution } from "./distribution-spec.js";

const prefixName = z
  .string({ error: "expected a task prefix (a string)" })
  .regex(/^[A-Za-z][A-Za-z_]*(-[A-Za-z]+)*$/, "expected a prefix of letters and underscores, words joined by '-' (e.g. load-csv)");

const taskKeys = z.array(z.string({ error: "expected a task key" }), { error: "expected a list of task keys" });

// Explicit dependencies: a list (entry i for task i) or an object of task → keys. The object
// is read into a Map here, not by z.record, which drops a key named "__proto__": keys are data,
// and a key that is not a task of the group must be reported like any other. A Map (a spec
// validated before, passed to simulate()) is read the same way.
const explicitDeps = z.unknown().transform((raw, ctx): string[][] | Map<string, string[]> => {
  if (Array.isArray(raw)) return parseInto(z.array(taskKeys), raw, ctx);
  const entries: Array<[string, unknown]> | null =
    raw instanceof Map ? [...(raw as Map<unknown, unknown>)].map(([name, keys]) => [String(name), keys]) : isPlainObject(raw) ? Object.keys(raw).map((name) => [name, raw[name]]) : null;
  if (entries === null) {
    ctx.addIssue({ code: "custom", message: "expected a list of key lists, or an object of task → list of keys" });
    return z.NEVER;
  }
  const deps = new Map<string, string[]>();
  let ok = true;
  for (const [name, value] of entries) {
    const keys = taskKeys.safeParse(value);
    if (keys.success) deps.set(name, keys.data);
    else {
      ok = false;
      for (const issue of keys.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: [name, ...issue.path] });
    }
  }
  return ok ? deps : z.NEVER;
});

const dependencyPattern = z.discriminatedUnion(
  "pattern",
  [
    z.object({ pattern: z.literal("none") }).strict(),
    z.object({ pattern: z.literal("one-to-one"), on: prefixName }).strict(),
    z.object({ pattern: z.literal("all-to-all"), on: prefixName }).strict(),
    z.object({ pattern: z.literal("reduce"), on: prefixName, fanIn: count }).strict(),
    z.object({ pattern: z.literal("random"), on: prefixName, p: probability }).strict(),
    z.object({ pattern: z.literal("fan-out"), on: prefixName, pieces: count.optional() }).strict(),
    z.object({ pattern: z.literal("strided"), on: prefixName }).strict(),
    z.object({ pattern: z.literal("explicit"), deps: explicitDeps }).strict(),
  ],
  { error: "expected pattern to be one of none, one-to-one, all-to-all, reduce, random, fan-out, strided, explicit" },
);
export type DependencyPattern = z.infer<typeof dependencyPattern>;

const dependsOn = z
  .preprocess((raw) => (raw === "none" ? { pattern: "none" } : raw), z.union([dependencyPattern, z.array(dependencyPattern)]))
  .default({ pattern: "none" });
const groupCount = count.default(1);

const taskGroup = z
  .object({
    prefix: prefixName,
    count: groupCount,
    duration: durationDistribution.default({ dist: "constant", value: 0.1 }),
    outputSize: sizeDistribution.default({ dist: "constant", value: 1_000_000 }),
    cpu: probability.default(1),
    /** Its CPU part holds the worker's GIL (pure Python); absent: false, it releases it (numpy-style). */
    gil: z.boolean({ error: "expected true or false" }).optional(),
    /** Bytes/s it builds its output at first, CPU work counted inside its duration; absent: no per-byte term. */
    buildBandwidth: bytes("positive").optional(),
    /** Seconds each build costs beyond its bytes (a build is buildLatency + outputSize / buildBandwidth); absent: 0. */
    buildLatency: nonNegative.optional(),
    failureProbability: probability.default(0),
    dependsOn,
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

export const workloadSchema = z
  .object({
    name: z.string({ error: "expected a string" }).min(1, "expected a non-empty name").optional(),
    description: z.string({ error: "expected a string" }).optional(),
    tasks: z.array(taskGroup, { error: "expected a list of task groups" }).min(1, "expected at least one task group"),
    outputs: z.array(prefixName).optional(),
    faults: z.array(faultSchema, { error: "expected a list of faults" }).default([]),
    cluster: clusterSchema.optional(),
  })
  .strict();

/** A spec whose tasks are one row each (src/sim/task-table.ts) instead of groups. */
export const taskTableWorkloadSchema = workloadSchema.omit({ tasks: true }).extend({ [TASK_TABLE_FIELD]: taskTableSchema }).strict();

/** A validated spec. A per-task table spec has `taskTable` and no task groups (`tasks` is empty). */
export type WorkloadSpec = z.infer<typeof workloadSchema> & { taskTable?: TaskRow[] };
export type WorkloadSpecInput = z.input<typeof workloadSchema> | z.input<typeof taskTableWorkloadSchema>;

export { formatPath, SpecError };

function patternsOf(dependsOnValue: TaskGroupSpec["dependsOn"]): DependencyPattern[] {
  return Array.isArray(dependsOnValue) ? dependsOnValue : [dependsOnValue];
}

function factsOf(spec: WorkloadSpec): SpecFacts {
  return {
    groups: spec.tasks.map((group) => ({ prefix: group.prefix, count: group.count, patterns: patternsOf(group.dependsOn), listed: Array.isArray(group.dependsOn) })),
    outputs: spec.outputs ?? null,
  };
}

/** What validates of each group of a spec that failed the schema, so its reference errors can be reported with its field errors. */
function salvageFacts(input: unknown): SpecFacts | null {
  if (!isPlainObject(input) || !Array.isArray(input.tasks)) return null;
  const groups = input.tasks.map((raw: unknown): GroupFacts => {
    const group = isPlainObject(raw) ? raw : {};
    const prefix = prefixName.safeParse(group.prefix);
    const groupSize = groupCount.safeParse(group.count);
    const patterns = dependsOn.safeParse(group.dependsOn);
    return {
      prefix: prefix.success ? prefix.data : null,
      count: groupSize.success ? groupSize.data : null,
      patterns: patterns.success ? patternsOf(patterns.data) : null,
      listed: Array.isArray(group.dependsOn),
    };
  });
  const outputs = z.array(prefixName).safeParse(input.outputs);
  return { groups, outputs: outputs.success ? outputs.data : null };
}

/**
 * Checks a parsed JSON/YAML object against the spec schema, the references between groups
 * (unknown prefixes, mismatched counts, group-level cycles, unknown explicit keys) and the
 * limits (docs/sim.md). Returns the spec with defaults filled; throws SpecError listing every
 * problem with its path: field errors and reference errors together. Key-level cycles of
 * explicit dependencies are found when the graph is built (`compileSpec`).
 */
export function validateSpec(input: unknown): WorkloadSpec {
  if (isPlainObject(input) && Object.hasOwn(input, TASK_TABLE_FIELD)) return validateTaskTableSpec(input);
  const parsed = workloadSchema.safeParse(input);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
    const facts = salvageFacts(input);
    throw new SpecError([...fields, ...(facts === null ? [] : checkReferences(facts))]);
  }
  const problems = checkReferences(factsOf(parsed.data));
  const scheduler = schedulerProblem(parsed.data.cluster?.scheduler);
  if (scheduler !== null) problems.push(scheduler);
  if (problems.length > 0) throw new SpecError(problems);
  return parsed.data;
}

function validateTaskTableSpec(input: Record<string, unknown>): WorkloadSpec {
  // A validated table spec carries `tasks: []`, and validating it again must give it back.
  const { tasks, ...rest } = input;
  if (tasks !== undefined && !(Array.isArray(tasks) && tasks.length === 0)) {
    throw new SpecError([`${TASK_TABLE_FIELD}: a spec has either tasks (task groups) or ${TASK_TABLE_FIELD} (one row per task), not both`]);
  }
  const parsed = taskTableWorkloadSchema.safeParse(rest);
  if (!parsed.success) {
    throw new SpecError(parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`));
  }
  const problems = checkTaskTable(parsed.data.taskTable, parsed.data.outputs);
  const scheduler = schedulerProblem(parsed.data.cluster?.scheduler);
  if (scheduler !== null) problems.push(scheduler);
  if (problems.length > 0) throw new SpecError(problems);
  return { ...parsed.data, tasks: [] };
}

/** Reads a JSON (.json) or YAML (anything else) workload file and validates it. */
export function loadWorkloadFile(path: string): WorkloadSpec {
  return loadDataFile(path, (data) => {
    const spec = validateSpec(data);
    return spec.name === undefined ? { ...spec, name: baseName(path) } : spec;
  });
}

function baseName(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  return file.replace(/\.(json|ya?ml)$/i, "");
}
