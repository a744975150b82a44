import type { MetricTotal, SimReport } from "../sim/report.js";
import { compareText } from "./text-order.js";

// The order of the top-level fields in the file, as docs/report-schema.md lists them: the
// headline numbers first, the long arrays last. Fields a newer simulator adds come after these,
// alphabetically, so the output stays deterministic.
const FIELD_ORDER: ReadonlyArray<keyof SimReport> = [
  "schemaVersion",
  "workload",
  "seed",
  "workers",
  "threadsPerWorker",
  "memoryLimit",
  "network",
  "tasks",
  "makespan",
  "tasksPerSecond",
  "transfer",
  "spill",
  "complete",
  "completion",
  "stuck",
  "faults",
  "faultCounts",
  "perWorker",
  "scheduler",
  "balance",
  "metrics",
  "taskRecords",
  "taskRecordsDropped",
  "transfers",
  "transfersDropped",
  "steals",
  "stealsDropped",
  "memory",
  "cluster",
];

/**
 * The `--json` file: the report with fields in a fixed order, metrics sorted by name, one array
 * element per line (diffable, and much smaller than fully indented JSON for large runs). Same
 * report, same bytes.
 */
export function reportToJson(report: SimReport): string {
  const fields = report as unknown as Readonly<Record<string, unknown>>;
  const extra = Object.keys(fields)
    .filter((key) => !(FIELD_ORDER as readonly string[]).includes(key))
    .sort(compareText);
  const lines = [...FIELD_ORDER, ...extra]
    .filter((key) => fields[key] !== undefined)
    .map((key) => {
      const value = key === "metrics" ? sortMetrics(report.metrics) : fields[key];
      return `  ${JSON.stringify(key)}: ${renderValue(value)}`;
    });
  return `{\n${lines.join(",\n")}\n}\n`;
}

function renderValue(value: unknown): string {
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "object" && item !== null)) {
    return `[\n${value.map((item) => `    ${JSON.stringify(item)}`).join(",\n")}\n  ]`;
  }
  return JSON.stringify(value);
}

function sortMetrics(metrics: readonly MetricTotal[]): MetricTotal[] {
  const sortKey = (metric: MetricTotal): string => `${metric.name.join("\u0000")}\u0001${metric.outcome ?? ""}`;
  return [...metrics].sort((a, b) => compareText(sortKey(a), sortKey(b)));
}
