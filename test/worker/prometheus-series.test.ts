// Distinct fine metrics are distinct Prometheus series (issue 12, item 5): a key prefix
// holding "/" and a nested user span, an empty qualifier and none, two units that sanitize
// alike — none may print as one series. Checked with the repo's strict parser (which
// rejects a duplicate series) and with parse-prometheus-text-format (a port of the
// official Python client's parser), and by decoding every series back to its name.
import fc from "fast-check";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { fineMetricFamilies, formatFamilies, formatFineMetrics, type MetricEntry } from "../../src/worker/index.js";
import { parsePrometheus, type ParsedFamily } from "./parse-prometheus.js";

/** Inverse of the documented segment escape: "%" alone is the empty segment, "%25" is "%", "%2F" is "/". */
function unescapeSegment(text: string): string {
  if (text === "%") return "";
  return text.replace(/%2F|%25/g, (escape) => (escape === "%2F" ? "/" : "%"));
}

/** The metric name a parsed fine or spill series stands for (docs/worker.md, "Prometheus"). */
function decode(family: ParsedFamily, labels: Readonly<Record<string, string>>): string[] {
  const fine = /^spanwork_fine_(?:(.+)_)?total$/.exec(family.name);
  const spill = /^spanwork_spill_(?:(.+)_)?total$/.exec(family.name);
  const match = fine ?? spill;
  if (match === null) throw new Error(`not a fine-metric family: ${family.name}`);
  const unit = match[1] ?? labels["unit"];
  if (unit === undefined) throw new Error(`${family.name}: no unit`);
  if (match[1] !== undefined && "unit" in labels) throw new Error(`${family.name}: a unit twice`);
  const activity = labels["activity"]!;
  if (spill !== null) return [activity, unit];
  const qualifiers: string[] = [];
  if (labels["prefix"] !== undefined && labels["prefix"] !== "") qualifiers.push(unescapeSegment(labels["prefix"]));
  if (labels["path"] !== undefined && labels["path"] !== "") qualifiers.push(...labels["path"].split("/").map(unescapeSegment));
  return [labels["context"]!, ...qualifiers, activity, unit];
}

/** Parses `text` with both parsers; returns every series as [name, outcome] with its value. */
function series(text: string): Array<{ name: string[]; outcome: string | undefined; value: number }> {
  const strict = parsePrometheus(text); // throws on a duplicate series
  const out: Array<{ name: string[]; outcome: string | undefined; value: number }> = [];
  for (const family of strict.values()) {
    for (const sample of family.samples) out.push({ name: decode(family, sample.labels), outcome: sample.labels["outcome"], value: sample.value });
  }
  // the other parser merges a repeated label set into one sample: the counts must agree
  const other = parsePrometheusTextFormat(text);
  expect(other.map((f) => [f.name, f.metrics.length])).toEqual([...strict.values()].map((f) => [f.name, f.samples.length]));
  for (const family of other) for (const sample of family.metrics) expect(Number(sample.value)).not.toBeNaN();
  return out;
}

const entry = (name: string[], value: number, outcome = "ok"): MetricEntry => ({ name, value, outcome });

describe("Prometheus series are injective in the metric name", () => {
  it("a prefix holding '/' and a nested user span are two series", () => {
    const entries = [entry(["execute", "a/b", "io", "seconds"], 1), entry(["execute", "a", "b", "io", "seconds"], 2)];
    const text = formatFineMetrics(entries);
    expect(series(text)).toEqual([
      { name: ["execute", "a/b", "io", "seconds"], outcome: "ok", value: 1 },
      { name: ["execute", "a", "b", "io", "seconds"], outcome: "ok", value: 2 },
    ]);
    const labels = parsePrometheus(text).get("spanwork_fine_seconds_total")!.samples.map((s) => ({ ...s.labels }));
    expect(labels).toEqual([
      { context: "execute", prefix: "a%2Fb", activity: "io", outcome: "ok" },
      { context: "execute", prefix: "a", path: "b", activity: "io", outcome: "ok" },
    ]);
  });

  it("no qualifier, one empty qualifier, and units that sanitize alike are distinct series", () => {
    const entries = [
      entry(["memory-monitor", "disk-write", "seconds"], 1),
      entry(["memory-monitor", "", "disk-write", "seconds"], 2),
      entry(["execute", "x", "", "io", "seconds"], 3),
      entry(["execute", "x", "io", "seconds"], 4),
      entry(["execute", "x", "io", "weird unit"], 5),
      entry(["execute", "x", "io", "weird_unit"], 6),
      entry(["execute", "x", "io", "weird-unit"], 7),
      entry(["disk-write", "weird unit"], 8),
      entry(["disk-write", "weird-unit"], 9),
    ];
    const text = formatFineMetrics(entries);
    expect(text).toBe(formatFamilies(fineMetricFamilies(entries)));
    const got = series(text);
    expect(got).toHaveLength(entries.length);
    for (const e of entries) expect(got).toContainEqual({ name: e.name, outcome: e.name.length === 2 ? undefined : "ok", value: e.value });
  });

  it("property: distinct metric names (and outcomes) give distinct series that decode back", () => {
    const segment = fc.oneof(
      fc.constantFrom("", "/", "%", "%2F", "%25", "a", "b", "a/b", "io", "inc", "x_y", "x-y", 'q"', "back\\slash", "new\nline", "ünï", "__proto__"),
      fc.string({ maxLength: 4 }),
    );
    const unit = fc.constantFrom("seconds", "bytes", "count", "weird unit", "weird_unit", "weird-unit", "1/s", "", "µs", "a:b");
    const name = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), unit).map(([segments, u]) => [...segments, u]);
    fc.assert(
      fc.property(fc.array(fc.tuple(name, fc.constantFrom("ok", "failed", "running", "")), { maxLength: 40 }), (pairs) => {
        // one entry per (name, outcome), as the MetricsStore has them
        const unique = new Map<string, MetricEntry>();
        pairs.forEach(([n, outcome], i) => unique.set(JSON.stringify([n, outcome]), entry(n, i + 1, outcome)));
        const entries = [...unique.values()];
        const text = formatFineMetrics(entries);
        expect(text).toBe(formatFamilies(fineMetricFamilies(entries)));
        const got = series(text);
        // fine series: one per entry; spill series ([activity, unit]): one per name, summed over outcomes
        const expected = new Map<string, number>();
        for (const e of entries) {
          const key = JSON.stringify([e.name, e.name.length === 2 ? undefined : e.outcome]);
          expected.set(key, (expected.get(key) ?? 0) + e.value);
        }
        expect(got).toHaveLength(expected.size);
        for (const s of got) expect(expected.get(JSON.stringify([s.name, s.outcome]))).toBe(s.value);
      }),
      { numRuns: 300, seed: 20261201 },
    );
  });
});
