// Span tree → DigestMetric instructions.
import { DigestMetric } from "./digest-metric.js";
import { collectSeries, seriesValue, type Breakdown, type Series } from "./flatten.js";
import { fromQuanta, toQuanta } from "./float.js";
import { OTHER, type SpanTreeNode } from "./types.js";

export interface DigestOptions {
  readonly stimulusId: string;
}

/** The root's `outcome` attribute when it is a string. */
export function outcomeOf(root: SpanTreeNode): string | undefined {
  const outcome = root.attributes["outcome"];
  return typeof outcome === "string" ? outcome : undefined;
}

function amountOf(entry: Series, value: number): number {
  return entry.isTime ? toQuanta(value) : value;
}

/**
 * Keeps a CPU-split pair monotone against what was already exported. Wall time of the
 * pair only grows, but CPU read from a process-wide clock can run faster than wall time
 * (other threads), so the split is clamped into the range that keeps both series from
 * going down. With a per-thread (or fake) CPU clock the clamp never engages.
 */
function reconcileSplits(breakdown: Breakdown, exported: Readonly<Record<string, number>>): void {
  for (const { cpu, noncpu } of breakdown.splits) {
    const exportedCpu = exported[cpu.key];
    const exportedNoncpu = exported[noncpu.key];
    if (exportedCpu === undefined && exportedNoncpu === undefined) continue;
    const wall = cpu.amount + noncpu.amount;
    const floor = exportedCpu === undefined ? 0 : toQuanta(exportedCpu);
    const ceiling = wall - (exportedNoncpu === undefined ? 0 : toQuanta(exportedNoncpu));
    const settled = Math.min(Math.max(cpu.amount, floor), Math.max(ceiling, floor));
    cpu.amount = settled;
    noncpu.amount = wall - settled;
  }
}

/**
 * Cumulative values of every series of a tree (open nodes up to `now` when given),
 * reconciled with what was already exported.
 */
export function cumulativeSeries(
  root: SpanTreeNode,
  now: number | undefined,
  exported: Readonly<Record<string, number>> | undefined,
): Series[] {
  const breakdown = collectSeries(root, { now, rootActivity: OTHER });
  if (exported !== undefined && breakdown.splits.length > 0) reconcileSplits(breakdown, exported);
  return breakdown.series;
}

/**
 * DigestMetric instructions of a finished tree (a live `Span` or a `SpanRecord`):
 * `name = [...path, unit]`, the root's own exclusive time under activity `other`, the
 * root's `outcome` attribute copied into each instruction. When the root was scraped while
 * open, only the remainder after the scrapes is returned.
 */
export function toDigestMetrics(spanOrRecord: SpanTreeNode, options: DigestOptions): DigestMetric[] {
  const { stimulusId } = options;
  const exported = spanOrRecord.exported;
  const series = cumulativeSeries(spanOrRecord, undefined, exported);
  const outcome = outcomeOf(spanOrRecord);
  const result = new Array<DigestMetric>(series.length);
  for (let i = 0; i < series.length; i += 1) {
    const entry = series[i]!;
    let value = seriesValue(entry);
    if (exported !== undefined) {
      const already = exported[entry.key];
      if (already !== undefined) {
        value = entry.isTime ? fromQuanta(entry.amount - amountOf(entry, already)) : value - already;
      }
    }
    const name = entry.node.nameWith(entry.unit);
    result[i] =
      outcome === undefined
        ? DigestMetric({ name, value, stimulusId })
        : DigestMetric({ name, value, stimulusId, outcome });
  }
  return result;
}
