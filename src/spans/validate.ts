// The invariants of a span tree, stated once. Exclusive time is never floored: a child that
// outlives its parent, or children that together last longer than it, make a negative
// residual, and that is a bug in whoever timed the spans. Strict spans throw at `end()`;
// `assertValidSpanTree` checks a whole finished tree or record (use it in tests).
import { quantaBetween } from "./float.js";
import type { SpanTreeNode } from "./types.js";
import { appendSegments } from "./segments.js";

export class SpanTreeError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid span tree: ${problems.join("; ")}`);
    this.name = "SpanTreeError";
  }
}

function label(path: readonly string[]): string {
  return path.length === 0 ? "(unnamed span)" : path.join("/");
}

/**
 * Problems of one node against its direct children (times in quanta from `base`).
 * `path` names the node in messages.
 */
export function nodeProblems(node: SpanTreeNode, path: readonly string[], base: number, into: string[]): void {
  const name = label(path);
  const start = node.startTime;
  const end = node.endTime;
  if (start === undefined) {
    into.push(`span ${name} was never started`);
    return;
  }
  if (end === undefined) {
    into.push(`span ${name} is still open`);
    return;
  }
  if (!Number.isFinite(start) || !Number.isFinite(end)) {
    into.push(`span ${name} has a non-finite time (start ${start}, end ${end})`);
    return;
  }
  if (end < start) into.push(`span ${name} ends (${end}) before it starts (${start})`);
  for (const unit in node.metrics) {
    const value = node.metrics[unit]!;
    if (!Number.isFinite(value) || value < 0) into.push(`span ${name} has metric ${unit} = ${value}`);
  }
  if (node.cpuSeconds !== undefined && !(node.cpuSeconds >= 0)) {
    into.push(`span ${name} has CPU time ${node.cpuSeconds}`);
  }
  let childQuanta = 0;
  for (const child of node.children) {
    const childName = label(appendSegments(path, child.name));
    const childStart = child.startTime;
    const childEnd = child.endTime;
    if (childStart === undefined || childEnd === undefined) {
      into.push(`span ${childName} is still open when its parent ${name} ends`);
      continue;
    }
    if (childStart < start) into.push(`span ${childName} starts (${childStart}) before its parent ${name} (${start})`);
    if (childEnd > end) into.push(`span ${childName} ends (${childEnd}) after its parent ${name} (${end})`);
    childQuanta += quantaBetween(base, childEnd) - quantaBetween(base, childStart);
  }
  const residual = quantaBetween(base, end) - quantaBetween(base, start) - childQuanta;
  if (residual < 0) {
    into.push(`span ${name} has a negative exclusive time: its children last longer than it (overlapping children?)`);
  }
}

/** Every problem of a tree (empty when valid). */
export function spanTreeProblems(root: SpanTreeNode): string[] {
  const problems: string[] = [];
  const base = root.startTime ?? 0;
  const visit = (node: SpanTreeNode, path: readonly string[]): void => {
    nodeProblems(node, path, base, problems);
    for (const child of node.children) visit(child, appendSegments(path, child.name));
  };
  visit(root, root.name);
  return problems;
}

/** Throws a `SpanTreeError` listing every problem of the tree. */
export function assertValidSpanTree(root: SpanTreeNode): void {
  const problems = spanTreeProblems(root);
  if (problems.length > 0) throw new SpanTreeError(problems);
}
