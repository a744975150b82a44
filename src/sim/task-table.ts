// Per-task tables: a workload given as one row per task (key, duration, output size,
// dependencies), for graphs that task groups cannot express — above all a real dask graph
// with its measured durations and sizes (tools/dask_to_spanwork.py writes them), replayed
// exactly. A spec holds one under its `taskTable` field instead of `tasks` (docs/sim.md).
import { z } from "zod";
import { keySplit } from "../state/key-split.js";
import { GraphBuilder, type TaskGraph } from "./graph.js";
import { formatLimit, LIMITS } from "./limits.js";
import { bytes, nonNegative } from "./spec-fields.js";

/** Bytes as a number or a size string ("1.5 MB"), from 0 to the limit on bytes. */
const outputSize = bytes("nonNegative");

const taskRow = z
  .object({
    key: z.string({ error: "expected a task key (a string)" }).min(1, "expected a non-empty task key"),
    /** dask's key_split of the key when absent. */
    prefix: z.string({ error: "expected a task prefix (a string)" }).min(1, "expected a non-empty task prefix").optional(),
    duration: z.number({ error: "expected seconds (a number)" }).nonnegative("expected seconds ≥ 0").finite("expected seconds ≥ 0"),
    outputSize,
    dependencies: z.array(z.string({ error: "expected a task key (a string)" }), { error: "expected a list of task keys" }).default([]),
    /** CPU share of the duration, 0..1 (default 1). */
    cpu: z.number({ error: "expected a number" }).min(0, "expected a share in [0, 1]").max(1, "expected a share in [0, 1]").optional(),
    /** Its CPU part holds the worker's GIL (default false). */
    gil: z.boolean({ error: "expected true or false" }).optional(),
    /** Bytes/s it builds its output at first, CPU work counted inside its duration (default: no per-byte term). */
    buildBandwidth: bytes("positive").optional(),
    /** Seconds each build costs beyond its bytes (default 0), as a task group's. */
    buildLatency: nonNegative.optional(),
    /** The client keeps this task's result (default: the tasks nothing depends on). */
    output: z.boolean({ error: "expected true or false" }).optional(),
  })
  .strict();

export const taskTableSchema = z
  .array(taskRow, { error: "expected a list of tasks, one row each" })
  .min(1, "expected at least one task")
  .max(LIMITS.tasks, `expected at most ${formatLimit(LIMITS.tasks)} rows (the limit on tasks)`);

export type TaskRow = z.infer<typeof taskRow>;
export type TaskRowInput = z.input<typeof taskRow>;

/** The top-level field of a spec that holds a per-task table. */
export const TASK_TABLE_FIELD = "taskTable";

/**
 * Problems of a parsed table, each with its path: duplicate keys, dependencies on unknown
 * keys or on the task itself, `outputs` naming a prefix no row has. Cycles are found when
 * the graph is built (`compileTaskTable`), as for explicit dependencies.
 */
export function checkTaskTable(rows: readonly TaskRow[], outputs?: readonly string[]): string[] {
  const problems: string[] = [];
  const edges = rows.reduce((sum, row) => sum + row.dependencies.length, 0);
  if (edges > LIMITS.dependencies) {
    return [`${TASK_TABLE_FIELD}: ${formatLimit(edges)} dependencies, at most ${formatLimit(LIMITS.dependencies)} are allowed (the limit on dependencies)`];
  }
  const firstRow = new Map<string, number>();
  rows.forEach((row, i) => {
    const earlier = firstRow.get(row.key);
    if (earlier === undefined) firstRow.set(row.key, i);
    else problems.push(`${TASK_TABLE_FIELD}[${i}].key: duplicate task key ${JSON.stringify(row.key)} (also ${TASK_TABLE_FIELD}[${earlier}])`);
  });
  rows.forEach((row, i) => {
    row.dependencies.forEach((dependency, k) => {
      const at = `${TASK_TABLE_FIELD}[${i}].dependencies[${k}]`;
      if (dependency === row.key) problems.push(`${at}: task ${JSON.stringify(row.key)} cannot depend on itself`);
      else if (!firstRow.has(dependency)) problems.push(`${at}: unknown task key ${JSON.stringify(dependency)}`);
    });
  });
  if (outputs !== undefined) {
    const prefixes = new Set(rows.map(prefixOf));
    outputs.forEach((prefix, j) => {
      if (!prefixes.has(prefix)) problems.push(`outputs[${j}]: no task of prefix ${JSON.stringify(prefix)} in the ${TASK_TABLE_FIELD}`);
    });
  }
  return problems;
}

function prefixOf(row: TaskRow): string {
  return row.prefix ?? keySplit(row.key);
}

/**
 * The graph of a checked table, tasks in row order. Outputs: the rows with `output: true` and
 * the tasks of the `outputs` prefixes; when no row has `output` and there are no `outputs`,
 * every task nothing depends on.
 * Throws GraphError naming the keys of a dependency cycle.
 */
export function compileTaskTable(rows: readonly TaskRow[], name: string, outputs?: readonly string[]): TaskGraph {
  const builder = new GraphBuilder();
  for (const row of rows) {
    builder.addTask({ key: row.key, prefix: prefixOf(row), duration: row.duration, nbytes: Math.round(row.outputSize), cpuShare: row.cpu ?? 1, gil: row.gil === true, buildBandwidth: row.buildBandwidth ?? 0, buildLatency: row.buildLatency ?? 0 });
  }
  rows.forEach((row, id) => {
    for (const dependency of row.dependencies) builder.addDependency(id, builder.idOf(dependency)!);
  });
  const outputPrefixes = new Set(outputs ?? []);
  const marked = outputPrefixes.size > 0 || rows.some((row) => row.output !== undefined);
  return builder.build(name, marked ? (id) => rows[id]!.output === true || outputPrefixes.has(builder.prefixOf(id)) : undefined);
}
