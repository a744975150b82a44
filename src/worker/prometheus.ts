// Prometheus text exposition (format 0.0.4) of a worker's metrics, written by hand: the
// fine metrics are already aggregated in the MetricsStore, so a scrape is one pass over
// its series with string concatenation — measured several times cheaper than building a
// prom-client registry per scrape (docs/worker.md, "Prometheus").
import type { MetricEntry } from "./types.js";

export type PrometheusType = "counter" | "gauge";

export interface PrometheusSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusFamily {
  readonly name: string;
  readonly type: PrometheusType;
  readonly help: string;
  readonly samples: readonly PrometheusSample[];
}

/** What a worker exposes besides its fine metrics. */
export interface WorkerGauges {
  /** Task count per state (`memory` split into `memory` and `disk` when a SpillBuffer is used). */
  readonly tasks: Readonly<Record<string, number>>;
  /** Bytes held in memory by the data store (managed) and written to disk (spilled). */
  readonly memory?: { readonly managed: number; readonly spilled: number };
  /** Keys per tier of the data store. */
  readonly keys?: { readonly memory: number; readonly disk: number };
  /** Async instructions and get-data requests in progress, by kind. */
  readonly inProgress?: Readonly<Record<string, number>>;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** A valid metric-name fragment: invalid characters become "_", a leading digit gets "_". */
export function sanitizeMetricName(text: string): string {
  if (METRIC_NAME.test(text)) return text;
  const replaced = text.replace(/[^a-zA-Z0-9_:]/g, "_");
  return /^[0-9]/.test(replaced) ? `_${replaced}` : replaced;
}

/** Label value escaping of the exposition format: backslash, double quote, newline. */
const NEEDS_ESCAPE = /[\\"\n]/;

export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** Text exposition of the given families, in order; families without samples are skipped. */
export function formatFamilies(families: Iterable<PrometheusFamily>): string {
  let out = "";
  for (const family of families) {
    if (family.samples.length === 0) continue;
    out += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`;
    for (const sample of family.samples) {
      let labels = "";
      for (const label in sample.labels) {
        labels += `${labels === "" ? "" : ","}${label}="${escapeLabelValue(sample.labels[label] as string)}"`;
      }
      out += `${family.name}${labels === "" ? "" : `{${labels}}`} ${formatSampleValue(sample.value)}\n`;
    }
  }
  return out;
}

interface MutableFamily {
  name: string;
  type: PrometheusType;
  help: string;
  samples: PrometheusSample[];
}

function familyFor(
  families: Map<string, MutableFamily>,
  name: string,
  type: PrometheusType,
  help: string,
): MutableFamily {
  let family = families.get(name);
  if (family === undefined) {
    family = { name, type, help, samples: [] };
    families.set(name, family);
  }
  return family;
}

// A Map: a unit is free text, and "constructor" must not find Object.prototype's.
const UNIT_HELP: ReadonlyMap<string, string> = new Map([
  ["seconds", "seconds"],
  ["bytes", "bytes"],
  ["count", "occurrences"],
]);

/**
 * Fine metrics as Prometheus families.
 * - `[context, …qualifiers, activity, unit]` → `spanwork_fine_<unit>_total{context, prefix,
 *   activity, outcome}`; `prefix` is the qualifiers joined with "/" ("" when none).
 * - `[activity, unit]` (the unqualified aggregate copy of spill activity) →
 *   `spanwork_spill_<unit>_total{activity}`, summed over outcomes (each outcome series is
 *   monotone, so the sum is too).
 */
function fineHelp(unit: string): string {
  return `Fine performance metrics in ${UNIT_HELP.get(unit) ?? unit}: [context, prefix, activity] of every span, by outcome ("running" = accrued while in progress).`;
}

function spillHelp(unit: string): string {
  return `Spill activity of the data store in ${UNIT_HELP.get(unit) ?? unit}, over every context.`;
}

function qualifiers(name: readonly string[]): string {
  if (name.length === 4) return name[1] as string;
  return name.length > 4 ? name.slice(1, name.length - 2).join("/") : "";
}

/**
 * Text of the fine-metric families, written straight from the entries (the hot path of a
 * scrape: no intermediate sample objects). Same output as
 * `formatFamilies(fineMetricFamilies(entries))`.
 */
export function formatFineMetrics(entries: Iterable<MetricEntry>): string {
  const families = new Map<string, { metric: string; body: string }>();
  const spill = new Map<string, Map<string, number>>();
  for (const entry of entries) {
    const name = entry.name;
    const unit = name[name.length - 1] as string;
    const activity = name[name.length - 2] as string;
    if (name.length === 2) {
      let byActivity = spill.get(unit);
      if (byActivity === undefined) spill.set(unit, (byActivity = new Map()));
      byActivity.set(activity, (byActivity.get(activity) ?? 0) + entry.value);
      continue;
    }
    let family = families.get(unit);
    if (family === undefined) {
      family = { metric: `spanwork_fine_${sanitizeMetricName(unit)}_total`, body: "" };
      families.set(unit, family);
    }
    family.body +=
      `${family.metric}{context="${escapeLabelValue(name[0] as string)}",prefix="${escapeLabelValue(qualifiers(name))}",` +
      `activity="${escapeLabelValue(activity)}",outcome="${escapeLabelValue(entry.outcome)}"} ${formatSampleValue(entry.value)}\n`;
  }
  let out = "";
  for (const [unit, { metric, body }] of families) {
    out += `# HELP ${metric} ${escapeHelp(fineHelp(unit))}\n# TYPE ${metric} counter\n${body}`;
  }
  for (const [unit, byActivity] of spill) {
    const metric = `spanwork_spill_${sanitizeMetricName(unit)}_total`;
    out += `# HELP ${metric} ${escapeHelp(spillHelp(unit))}\n# TYPE ${metric} counter\n`;
    for (const [activity, value] of byActivity) out += `${metric}{activity="${escapeLabelValue(activity)}"} ${formatSampleValue(value)}\n`;
  }
  return out;
}

export function fineMetricFamilies(entries: Iterable<MetricEntry>): PrometheusFamily[] {
  const families = new Map<string, MutableFamily>();
  const spill = new Map<string, Map<string, number>>();
  for (const entry of entries) {
    const name = entry.name;
    const unit = name[name.length - 1] as string;
    const activity = name[name.length - 2] as string;
    if (name.length === 2) {
      let byActivity = spill.get(unit);
      if (byActivity === undefined) spill.set(unit, (byActivity = new Map()));
      byActivity.set(activity, (byActivity.get(activity) ?? 0) + entry.value);
      continue;
    }
    const metric = `spanwork_fine_${sanitizeMetricName(unit)}_total`;
    const family = families.get(metric) ?? familyFor(families, metric, "counter", fineHelp(unit));
    family.samples.push({
      labels: { context: name[0] as string, prefix: qualifiers(name), activity, outcome: entry.outcome },
      value: entry.value,
    });
  }
  for (const [unit, byActivity] of spill) {
    const family = familyFor(families, `spanwork_spill_${sanitizeMetricName(unit)}_total`, "counter", spillHelp(unit));
    for (const [activity, value] of byActivity) family.samples.push({ labels: { activity }, value });
  }
  return [...families.values()];
}

/** A gauge family with one label, one sample per entry of `values` (in its key order). */
function labelledGauge(name: string, help: string, label: string, values: Readonly<Record<string, number>>): PrometheusFamily {
  return {
    name,
    type: "gauge",
    help,
    samples: Object.entries(values).map(([value, sample]) => ({ labels: { [label]: value }, value: sample })),
  };
}

export function workerGaugeFamilies(gauges: WorkerGauges): PrometheusFamily[] {
  const families: PrometheusFamily[] = [
    labelledGauge(
      "spanwork_worker_tasks",
      "Tasks known to the worker by state (memory split into memory and disk).",
      "state",
      gauges.tasks,
    ),
  ];
  if (gauges.memory !== undefined) {
    families.push(
      labelledGauge(
        "spanwork_worker_memory_bytes",
        "Bytes of task data: managed = in memory (sizeof), spilled = written to disk.",
        "type",
        { managed: gauges.memory.managed, spilled: gauges.memory.spilled },
      ),
    );
  }
  if (gauges.keys !== undefined) {
    families.push(
      labelledGauge("spanwork_worker_keys", "Keys held by the data store per tier.", "tier", {
        memory: gauges.keys.memory,
        disk: gauges.keys.disk,
      }),
    );
  }
  if (gauges.inProgress !== undefined) {
    families.push(
      labelledGauge(
        "spanwork_worker_in_progress",
        "Work in progress by kind (execute, gather-dep, get-data, retry-busy-worker).",
        "kind",
        gauges.inProgress,
      ),
    );
  }
  return families;
}
