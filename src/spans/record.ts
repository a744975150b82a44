// Live span tree → frozen SpanRecord. Built bottom-up, each object frozen with immer's
// `freeze` as it is made, so the record is deeply frozen without a second walk. Empty
// collections share one frozen instance.
import { freeze } from "immer";
import type { AttributeValue, SpanAttributes, SpanMetrics, SpanRecord, SpanTreeNode } from "./types.js";

const EMPTY_ATTRIBUTES: SpanAttributes = freeze({});
const EMPTY_METRICS: SpanMetrics = freeze({});
const NO_CHILDREN: readonly SpanRecord[] = freeze([] as SpanRecord[]);

function copyAttributes(attributes: SpanAttributes): SpanAttributes {
  let copy: Record<string, AttributeValue> | undefined;
  for (const key in attributes) {
    copy ??= {};
    const value = attributes[key]!;
    copy[key] = Array.isArray(value) ? freeze(value.slice()) : value;
  }
  return copy === undefined ? EMPTY_ATTRIBUTES : freeze(copy);
}

function copyMetrics(metrics: SpanMetrics): SpanMetrics {
  let copy: Record<string, number> | undefined;
  for (const unit in metrics) {
    copy ??= {};
    copy[unit] = metrics[unit]!;
  }
  return copy === undefined ? EMPTY_METRICS : freeze(copy);
}

function label(path: readonly string[]): string {
  return path.length === 0 ? "(unnamed span)" : path.join("/");
}

function build(node: SpanTreeNode, path: readonly string[], isRoot: boolean): SpanRecord {
  const { startTime, endTime } = node;
  if (startTime === undefined) throw new Error(`toRecord(): span ${label(path)} was never started`);
  if (endTime === undefined) throw new Error(`toRecord(): span ${label(path)} is still recording; end it first`);
  const liveChildren = node.children;
  let children = NO_CHILDREN;
  if (liveChildren.length > 0) {
    const built = new Array<SpanRecord>(liveChildren.length);
    for (let i = 0; i < liveChildren.length; i += 1) {
      const child = liveChildren[i]!;
      built[i] = build(child, child.name.length === 0 ? path : path.concat(child.name), false);
    }
    children = freeze(built);
  }
  const record: {
    name: readonly string[];
    startTime: number;
    endTime: number;
    attributes: SpanAttributes;
    metrics: SpanMetrics;
    cpuSeconds?: number;
    cpuSplit?: boolean;
    children: readonly SpanRecord[];
    exported?: Readonly<Record<string, number>>;
  } = {
    name: node.name,
    startTime,
    endTime,
    attributes: copyAttributes(node.attributes),
    metrics: copyMetrics(node.metrics),
    children,
  };
  if (node.cpuSeconds !== undefined) record.cpuSeconds = node.cpuSeconds;
  if (node.cpuSplit === true) record.cpuSplit = true;
  if (isRoot && node.exported !== undefined) record.exported = freeze({ ...node.exported });
  return freeze(record);
}

/** The frozen record of a finished tree (every node must have started and ended). */
export function buildRecord(root: SpanTreeNode): SpanRecord {
  return build(root, root.name, true);
}
