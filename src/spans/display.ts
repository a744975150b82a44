// How a node is named in trace exports: its own segments joined with "/". A transparent
// node (no segments) is shown as "thread" when it carries the CPU split, else "(inline)".
import type { SpanRecord } from "./types.js";

export const NAME_SEPARATOR = "/";

export function displayName(record: SpanRecord, separator: string = NAME_SEPARATOR): string {
  if (record.name.length > 0) return record.name.join(separator);
  return record.cpuSplit === true ? "thread" : "(inline)";
}

/** Metrics and CPU of a node as flat key/values (`spanwork.<unit>`, `spanwork.cpu_seconds`). */
export function measurementAttributes(record: SpanRecord): Record<string, number> {
  const out: Record<string, number> = {};
  for (const unit in record.metrics) out[`spanwork.${unit}`] = record.metrics[unit]!;
  if (record.cpuSeconds !== undefined) out["spanwork.cpu_seconds"] = record.cpuSeconds;
  return out;
}
