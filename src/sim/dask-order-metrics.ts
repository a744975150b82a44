// The metrics dask.order ranks tasks by (dask-order.ts): graph_metrics and ndependencies of
// dask 2022.12.1's order.py, over spanwork's CSR arrays, in doubles while every one is below
// 2^53 and otherwise again as bigints, kept as their ranks (which order the same) with the
// partition keys' bigints for the two tests that multiply them.

/** A graph as dask.order reads it: each task's dependencies and dependents, and its key. */
export interface OrderGraph {
  readonly size: number;
  readonly keys: readonly string[];
  readonly depStart: Int32Array;
  readonly deps: Int32Array;
  readonly dependentStart: Int32Array;
  readonly dependents: Int32Array;
}

/** Per task: dask's total_dependencies, total_dependents, min/max_dependencies, min/max_heights and partition keys. */
export interface OrderMetrics {
  readonly totalDependencies: Float64Array;
  readonly totalDependents: Float64Array;
  readonly minDependencies: Float64Array;
  readonly maxDependencies: Float64Array;
  readonly minHeights: Int32Array;
  readonly maxHeights: Int32Array;
  readonly partitionKeys: Float64Array;
  /** The partition keys as bigints, when a metric passed 2^53 (exactMetrics). */
  pkBig: bigint[] | undefined;
}

/**
 * ndependencies (939-982) then graph_metrics (808-936): both are sums, minima and maxima over a
 * topological walk, so any topological order gives dask's figures.
 */
export function graphMetrics(g: OrderGraph): OrderMetrics {
const n = g.size;
const { depStart, deps } = g;
const dStart = g.dependentStart;
const dents = g.dependents;
const m: OrderMetrics = {
  totalDependencies: new Float64Array(n),
  totalDependents: new Float64Array(n),
  minDependencies: new Float64Array(n),
  maxDependencies: new Float64Array(n),
  minHeights: new Int32Array(n),
  maxHeights: new Int32Array(n),
  partitionKeys: new Float64Array(n),
  pkBig: undefined,
};
  const pending = new Int32Array(n);
  const stack: number[] = [];
  for (let t = 0; t < n; t++) {
    pending[t] = depStart[t + 1]! - depStart[t]!;
    if (pending[t] === 0) stack.push(t);
  }
  while (stack.length > 0) {
    const key = stack.pop()!;
    let total = 1;
    for (let e = depStart[key]!; e < depStart[key + 1]!; e++) total += m.totalDependencies[deps[e]!]!;
    m.totalDependencies[key] = total;
    for (let e = dStart[key]!; e < dStart[key + 1]!; e++) {
      const parent = dents[e]!;
      if (--pending[parent] === 0) stack.push(parent);
    }
  }
  for (let t = 0; t < n; t++) {
    pending[t] = dStart[t + 1]! - dStart[t]!;
    if (pending[t] === 0) stack.push(t);
  }
  while (stack.length > 0) {
    const key = stack.pop()!;
    const from = dStart[key]!;
    const to = dStart[key + 1]!;
    if (from === to) {
      const val = m.totalDependencies[key]!;
      m.totalDependents[key] = 1;
      m.minDependencies[key] = val;
      m.maxDependencies[key] = val;
    } else {
      let total = 1;
      let minDep = Infinity;
      let maxDep = -Infinity;
      let minH = 0x7fffffff;
      let maxH = 0;
      for (let e = from; e < to; e++) {
        const p = dents[e]!;
        total += m.totalDependents[p]!;
        if (m.minDependencies[p]! < minDep) minDep = m.minDependencies[p]!;
        if (m.maxDependencies[p]! > maxDep) maxDep = m.maxDependencies[p]!;
        if (m.minHeights[p]! < minH) minH = m.minHeights[p]!;
        if (m.maxHeights[p]! > maxH) maxH = m.maxHeights[p]!;
      }
      m.totalDependents[key] = total;
      m.minDependencies[key] = minDep;
      m.maxDependencies[key] = maxDep;
      m.minHeights[key] = 1 + minH;
      m.maxHeights[key] = 1 + maxH;
    }
    for (let e = depStart[key]!; e < depStart[key + 1]!; e++) {
      const child = deps[e]!;
      if (--pending[child] === 0) stack.push(child);
    }
  }
  for (let t = 0; t < n; t++) {
    // 246-257
    m.partitionKeys[t] =
      (m.minDependencies[t]! - m.totalDependencies[t]! + 1) * (m.totalDependents[t]! - m.minHeights[t]!);
  }
  const safe = (a: Float64Array): boolean => a.every((v) => Math.abs(v) <= Number.MAX_SAFE_INTEGER);
  if (!(safe(m.totalDependencies) && safe(m.totalDependents) && safe(m.partitionKeys))) exactMetrics(g, m);
  return m;
}

/** The metrics again in bigints (graph_metrics' sums over many paths), stored as ranks. */
function exactMetrics(g: OrderGraph, m: OrderMetrics): void {
const n = g.size;
const { depStart, deps } = g;
const dStart = g.dependentStart;
const dents = g.dependents;
  const totalDeps: bigint[] = new Array<bigint>(n);
  const totalDents: bigint[] = new Array<bigint>(n);
  const minDeps: bigint[] = new Array<bigint>(n);
  const maxDeps: bigint[] = new Array<bigint>(n);
  const pending = new Int32Array(n);
  const stack: number[] = [];
  for (let t = 0; t < n; t++) if ((pending[t] = depStart[t + 1]! - depStart[t]!) === 0) stack.push(t);
  while (stack.length > 0) {
    const key = stack.pop()!;
    let total = 1n;
    for (let e = depStart[key]!; e < depStart[key + 1]!; e++) total += totalDeps[deps[e]!]!;
    totalDeps[key] = total;
    for (let e = dStart[key]!; e < dStart[key + 1]!; e++) if (--pending[dents[e]!] === 0) stack.push(dents[e]!);
  }
  for (let t = 0; t < n; t++) if ((pending[t] = dStart[t + 1]! - dStart[t]!) === 0) stack.push(t);
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (dStart[key] === dStart[key + 1]) {
      totalDents[key] = 1n;
      minDeps[key] = maxDeps[key] = totalDeps[key]!;
    } else {
      let total = 1n;
      let lo = -1n;
      let hi = -1n;
      for (let e = dStart[key]!; e < dStart[key + 1]!; e++) {
        const p = dents[e]!;
        total += totalDents[p]!;
        if (lo < 0n || minDeps[p]! < lo) lo = minDeps[p]!;
        if (maxDeps[p]! > hi) hi = maxDeps[p]!;
      }
      totalDents[key] = total;
      minDeps[key] = lo;
      maxDeps[key] = hi;
    }
    for (let e = depStart[key]!; e < depStart[key + 1]!; e++) if (--pending[deps[e]!] === 0) stack.push(deps[e]!);
  }
  const pk: bigint[] = new Array<bigint>(n);
  for (let t = 0; t < n; t++) {
    pk[t] = (minDeps[t]! - totalDeps[t]! + 1n) * (totalDents[t]! - BigInt(m.minHeights[t]!));
  }
  const ranked = (values: bigint[], into: Float64Array): void => {
    const distinct = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const rank = new Map(distinct.map((v, r) => [v, r]));
    for (let t = 0; t < n; t++) into[t] = rank.get(values[t]!)!;
  };
  ranked(totalDeps, m.totalDependencies);
  ranked(totalDents, m.totalDependents);
  ranked(minDeps, m.minDependencies);
  ranked(maxDeps, m.maxDependencies);
  ranked(pk, m.partitionKeys);
  m.pkBig = pk;
}

/** c1 × partition_keys[t1] > c2 × partition_keys[t2], exactly (order.py 668, 716). */
export function scaledGreater(m: OrderMetrics, c1: number, t1: number, c2: number, t2: number): boolean {
  if (m.pkBig !== undefined) return BigInt(c1) * m.pkBig[t1]! > BigInt(c2) * m.pkBig[t2]!;
  const left = c1 * m.partitionKeys[t1]!;
  const right = c2 * m.partitionKeys[t2]!;
  if (Math.abs(left) <= Number.MAX_SAFE_INTEGER && Math.abs(right) <= Number.MAX_SAFE_INTEGER) return left > right;
  return BigInt(c1) * BigInt(m.partitionKeys[t1]!) > BigInt(c2) * BigInt(m.partitionKeys[t2]!);
}
