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

// Fine metrics as Prometheus series, injective in the metric name (docs/worker.md,
// "Prometheus"): `[context, …qualifiers, activity, unit]` →
//   family  `spanwork_fine_<unit>_total` when the unit is made of metric-name characters
//           ([a-zA-Z0-9_:]), else `spanwork_fine_total` with a `unit` label (sanitizing would
//           make "a-b" and "a_b" one family);
//   labels  `context`, `prefix` (the first qualifier, "" when none), `path` (the further
//           qualifiers — nested user spans — joined with "/", only when there are some),
//           `activity`, `outcome`. Qualifier segments are escaped so the split is reversible:
//           "%" → "%25", "/" → "%2F", and an empty segment is a lone "%".
// `[activity, unit]` (the unqualified aggregate copy of spill activity) →
//   `spanwork_spill_<unit>_total{activity}` (or `spanwork_spill_total{activity, unit}`),
//   summed over outcomes (each outcome series is monotone, so the sum is too).
const UNIT_FRAGMENT = /^[a-zA-Z0-9_:]+$/;
const SEGMENT_SPECIALS = /[%/]/;

// Characters that make a qualifier anything but itself in the label text: the segment
// escape's and the exposition's. Most prefixes have none, and then one test settles both.
const SEGMENT_OR_LABEL_SPECIALS = /[%/\\"\n]/;

/** The `prefix` label's text, escaped for the exposition (the hot path of a scrape). */
function prefixLabelText(segment: string): string {
  if (segment !== "" && !SEGMENT_OR_LABEL_SPECIALS.test(segment)) return segment;
  return escapeLabelValue(escapeSegment(segment));
}

/** A qualifier segment as written in the `prefix` and `path` labels (see above). */
function escapeSegment(segment: string): string {
  if (segment === "") return "%";
  if (!SEGMENT_SPECIALS.test(segment)) return segment;
  return segment.replace(/%/g, "%25").replace(/\//g, "%2F");
}

/** `path` label of a name with nested qualifiers ("" when it has at most one). */
function qualifierPath(name: readonly string[]): string {
  let path = "";
  for (let i = 2; i < name.length - 2; i++) path += `${i === 2 ? "" : "/"}${escapeSegment(name[i] as string)}`;
  return path;
}

type FamilyKind = "fine" | "spill";

/** The family a unit's series belong to, and the `unit` label it needs (none for a named family). */
function familyName(kind: FamilyKind, unit: string): { metric: string; unitLabel: string | undefined } {
  return UNIT_FRAGMENT.test(unit)
    ? { metric: `spanwork_${kind}_${unit}_total`, unitLabel: undefined }
    : { metric: `spanwork_${kind}_total`, unitLabel: unit };
}

function familyHelp(kind: FamilyKind, unitLabel: string | undefined, unit: string): string {
  const measure = unitLabel === undefined ? (UNIT_HELP.get(unit) ?? unit) : "the unit of the unit label";
  return kind === "fine"
    ? `Fine performance metrics in ${measure}: [context, prefix, path, activity] of every span, by outcome ("running" = accrued while in progress).`
    : `Spill activity of the data store in ${measure}, over every context.`;
}

/** Sums the unqualified `[activity, unit]` entries per unit, then activity (first-seen order). */
function addSpill(spill: Map<string, Map<string, number>>, unit: string, activity: string, value: number): void {
  let byActivity = spill.get(unit);
  if (byActivity === undefined) spill.set(unit, (byActivity = new Map()));
  byActivity.set(activity, (byActivity.get(activity) ?? 0) + value);
}

interface FamilyText {
  readonly metric: string;
  readonly help: string;
  body: string;
}

/** Family text of a unit, created on first use; `families` keeps first-created order by metric name. */
function familyText(families: Map<string, FamilyText>, kind: FamilyKind, unit: string): { family: FamilyText; unitLabel: string } {
  const { metric, unitLabel } = familyName(kind, unit);
  let family = families.get(metric);
  if (family === undefined) {
    family = { metric, help: familyHelp(kind, unitLabel, unit), body: "" };
    families.set(metric, family);
  }
  return { family, unitLabel: unitLabel === undefined ? "" : `,unit="${escapeLabelValue(unitLabel)}"` };
}

/**
 * Text of the fine-metric families, written straight from the entries (the hot path of a
 * scrape: no intermediate sample objects). Same output as
 * `formatFamilies(fineMetricFamilies(entries))`.
 */
export function formatFineMetrics(entries: Iterable<MetricEntry>): string {
  const families = new Map<string, FamilyText>();
  // per unit: its family and `,unit="…"` (computed once per unit, not per entry)
  const byUnit = new Map<string, { family: FamilyText; unitLabel: string }>();
  const spill = new Map<string, Map<string, number>>();
  for (const entry of entries) {
    const name = entry.name;
    const unit = name[name.length - 1] as string;
    const activity = name[name.length - 2] as string;
    if (name.length === 2) {
      addSpill(spill, unit, activity, entry.value);
      continue;
    }
    let target = byUnit.get(unit);
    if (target === undefined) byUnit.set(unit, (target = familyText(families, "fine", unit)));
    const prefix = name.length > 3 ? prefixLabelText(name[1] as string) : "";
    const path = name.length > 4 ? `path="${escapeLabelValue(qualifierPath(name))}",` : "";
    const family = target.family;
    family.body +=
      `${family.metric}{context="${escapeLabelValue(name[0] as string)}",prefix="${prefix}",${path}activity="${escapeLabelValue(activity)}"` +
      `${target.unitLabel},outcome="${escapeLabelValue(entry.outcome)}"} ${formatSampleValue(entry.value)}\n`;
  }
  const spillFamilies = new Map<string, FamilyText>();
  for (const [unit, byActivity] of spill) {
    const { family, unitLabel } = familyText(spillFamilies, "spill", unit);
    for (const [activity, value] of byActivity) {
      family.body += `${family.metric}{activity="${escapeLabelValue(activity)}"${unitLabel}} ${formatSampleValue(value)}\n`;
    }
  }
  let out = "";
  for (const group of [families, spillFamilies]) {
    for (const { metric, help, body } of group.values()) out += `# HELP ${metric} ${escapeHelp(help)}\n# TYPE ${metric} counter\n${body}`;
  }
  return out;
}

export function fineMetricFamilies(entries: Iterable<MetricEntry>): PrometheusFamily[] {
  const families = new Map<string, MutableFamily>();
  const spill = new Map<string, Map<string, number>>();
  const family = (kind: FamilyKind, unit: string): { family: MutableFamily; unitLabel: string | undefined } => {
    const { metric, unitLabel } = familyName(kind, unit);
    return { family: families.get(metric) ?? familyFor(families, metric, "counter", familyHelp(kind, unitLabel, unit)), unitLabel };
  };
  for (const entry of entries) {
    const name = entry.name;
    const unit = name[name.length - 1] as string;
    const activity = name[name.length - 2] as string;
    if (name.length === 2) {
      addSpill(spill, unit, activity, entry.value);
      continue;
    }
    const target = family("fine", unit);
    const labels: Record<string, string> = { context: name[0] as string, prefix: name.length > 3 ? escapeSegment(name[1] as string) : "" };
    if (name.length > 4) labels["path"] = qualifierPath(name);
    labels["activity"] = activity;
    if (target.unitLabel !== undefined) labels["unit"] = target.unitLabel;
    labels["outcome"] = entry.outcome;
    target.family.samples.push({ labels, value: entry.value });
  }
  for (const [unit, byActivity] of spill) {
    const target = family("spill", unit);
    for (const [activity, value] of byActivity) {
      target.family.samples.push({ labels: target.unitLabel === undefined ? { activity } : { activity, unit: target.unitLabel }, value });
    }
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
