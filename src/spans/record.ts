// Live span tree → frozen SpanRecord. Built bottom-up, each object frozen as it is made, so
// the record is deeply frozen without a second walk (the result is what immer's
// `freeze(record, true)` gives, at a fraction of the cost: see docs/spans.md). A span's
// attributes and metrics are frozen in place and shared with the record; the span copies
// them before any later change (copy-on-write). Empty collections share one instance.
import type { Span } from "./span.js";
import type { SpanAttributes, SpanMetrics, SpanRecord } from "./types.js";

const NO_CHILDREN: readonly SpanRecord[] = Object.freeze([]);

interface MutableRecord {
  name: readonly string[];
  startTime: number;
  endTime: number;
  attributes: SpanAttributes;
  metrics: SpanMetrics;
  cpuSeconds?: number;
  cpuSplit?: boolean;
  children: readonly SpanRecord[];
  exported?: Readonly<Record<string, number>>;
}

/** Names a node for error messages from the stack of its ancestors. */
function label(ancestors: readonly Span[], node: Span): string {
  const names: string[] = [];
  for (const ancestor of ancestors) names.push(...ancestor.name);
  names.push(...node.name);
  return names.length === 0 ? "(unnamed span)" : names.join("/");
}

function build(node: Span, ancestors: Span[]): SpanRecord {
  const { startTime, endTime } = node;
  if (startTime === undefined) throw new Error(`toRecord(): span ${label(ancestors, node)} was never started`);
  if (endTime === undefined) throw new Error(`toRecord(): span ${label(ancestors, node)} is still recording; end it first`);
  const liveChildren = node.children;
  let children = NO_CHILDREN;
  if (liveChildren.length > 0) {
    const built = new Array<SpanRecord>(liveChildren.length);
    ancestors.push(node);
    for (let i = 0; i < liveChildren.length; i += 1) built[i] = build(liveChildren[i]!, ancestors);
    ancestors.pop();
    children = Object.freeze(built);
  }
  node.sealForRecord();
  const record: MutableRecord = {
    name: node.name,
    startTime,
    endTime,
    attributes: node.attributes,
    metrics: node.metrics,
    children,
  };
  if (node.cpuSeconds !== undefined) record.cpuSeconds = node.cpuSeconds;
  if (node.cpuSplit === true) record.cpuSplit = true;
  if (ancestors.length === 0 && node.exported !== undefined) record.exported = Object.freeze({ ...node.exported });
  return Object.freeze(record);
}

/** The frozen record of a finished tree (every node must have started and ended). */
export function buildRecord(root: Span): SpanRecord {
  return build(root, []);
}
