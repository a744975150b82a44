import type { MetricTotal } from "../sim/report.js";
import { compareActivities } from "./activities.js";
import { compareText } from "./text-order.js";

/**
 * One row of the fine-metrics breakdown: a context (execute, gather-dep, get-data, …), its
 * qualifier (the task prefix for execute and gather-dep), an activity and the outcome of the
 * work that produced it, with its totals by unit.
 */
export interface FineMetricRow {
  context: string;
  /** Qualifiers between context and activity joined with "/", usually the task prefix; "" when none. */
  prefix: string;
  activity: string;
  /** ok, failed, cancelled, missing, busy… as recorded; "" when the metric carries no outcome (get-data). */
  outcome: string;
  seconds: number;
  bytes: number;
  count: number;
}

/** Units other than seconds, bytes and count, kept per row key so nothing is silently dropped. */
export interface FineMetricBreakdown {
  rows: FineMetricRow[];
  /** Sum of the seconds of every row. */
  totalSeconds: number;
  /** Seconds per context, in descending order. */
  secondsByContext: Array<{ context: string; seconds: number }>;
  /** Metrics in units the breakdown does not tabulate, e.g. user-defined ones. */
  otherUnits: Array<{ name: string[]; value: number }>;
}

/**
 * Folds the report's metric totals into table rows. Names shorter than `[context, activity,
 * unit]` are the unqualified copies of `aggregate` spans (`["disk-write", "bytes"]`): they repeat
 * values already counted under their context, so the breakdown leaves them out.
 * Rows are sorted by seconds, then bytes, then count (largest first), then by label.
 */
export function fineMetricBreakdown(metrics: readonly MetricTotal[]): FineMetricBreakdown {
  const rowsByKey = new Map<string, FineMetricRow>();
  const otherUnits: Array<{ name: string[]; value: number }> = [];
  for (const metric of metrics) {
    const { name } = metric;
    if (name.length < 3) continue;
    const context = name[0]!;
    const unit = name[name.length - 1]!;
    const activity = name[name.length - 2]!;
    const prefix = name.slice(1, -2).join("/");
    const outcome = metric.outcome ?? "";
    if (unit !== "seconds" && unit !== "bytes" && unit !== "count") {
      otherUnits.push({ name: [...name], value: metric.value });
      continue;
    }
    const key = JSON.stringify([context, prefix, activity, outcome]);
    let row = rowsByKey.get(key);
    if (!row) {
      row = { context, prefix, activity, outcome, seconds: 0, bytes: 0, count: 0 };
      rowsByKey.set(key, row);
    }
    row[unit] += metric.value;
  }
  const rows = [...rowsByKey.values()].sort(compareRows);
  const totalSeconds = rows.reduce((sum, row) => sum + row.seconds, 0);
  const contextSeconds = new Map<string, number>();
  for (const row of rows) contextSeconds.set(row.context, (contextSeconds.get(row.context) ?? 0) + row.seconds);
  const secondsByContext = [...contextSeconds]
    .map(([context, seconds]) => ({ context, seconds }))
    .sort((a, b) => b.seconds - a.seconds || compareText(a.context, b.context));
  return { rows, totalSeconds, secondsByContext, otherUnits };
}

function compareRows(a: FineMetricRow, b: FineMetricRow): number {
  return (
    b.seconds - a.seconds ||
    b.bytes - a.bytes ||
    b.count - a.count ||
    compareText(a.context, b.context) ||
    compareText(a.prefix, b.prefix) ||
    compareText(a.activity, b.activity) ||
    compareText(a.outcome, b.outcome)
  );
}

/** A bar of a stacked chart: one context and prefix, its value per activity. */
export interface ActivityStack {
  /** "execute · inc", "gather-dep · inc", "get-data". */
  label: string;
  context: string;
  prefix: string;
  total: number;
  segments: Array<{ activity: string; value: number }>;
}

/**
 * Groups rows by context and prefix and sums `unit` per activity (outcomes merged), for the
 * stacked-bar charts. Stacks with a zero total are left out; stacks sort by total, largest first.
 */
export function activityStacks(rows: readonly FineMetricRow[], unit: "seconds" | "bytes" | "count"): ActivityStack[] {
  const stacks = new Map<string, { context: string; prefix: string; byActivity: Map<string, number> }>();
  for (const row of rows) {
    const value = row[unit];
    if (value === 0) continue;
    const key = JSON.stringify([row.context, row.prefix]);
    let stack = stacks.get(key);
    if (!stack) {
      stack = { context: row.context, prefix: row.prefix, byActivity: new Map() };
      stacks.set(key, stack);
    }
    stack.byActivity.set(row.activity, (stack.byActivity.get(row.activity) ?? 0) + value);
  }
  return [...stacks.values()]
    .map(({ context, prefix, byActivity }) => {
      const segments = [...byActivity]
        .map(([activity, value]) => ({ activity, value }))
        .sort((a, b) => compareActivities(a.activity, b.activity));
      return {
        label: prefix === "" ? context : `${context} · ${prefix}`,
        context,
        prefix,
        total: segments.reduce((sum, segment) => sum + segment.value, 0),
        segments,
      };
    })
    .sort((a, b) => b.total - a.total || compareText(a.label, b.label));
}
