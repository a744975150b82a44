// Splitting a transfer's metrics over the task prefixes of the keys it moved. dask
// reports gather-dep and get-data with no prefix at all (#7217); spanwork files every
// increment of those contexts under `[context, prefix, activity, unit]`.
//
// Declared policy: the weights are fixed when the work starts — each requested key
// weighs its expected size (`TaskState.getNbytes()` on the gathering side, the stored
// size on the serving side) — so in-progress increments and the final remainder split
// identically, whatever the outcome (busy, missing and failed transfers included).
// Integer increments of non-time units (bytes, counts) are apportioned by largest
// remainder so every part is an integer and the parts add up exactly; seconds and other
// float increments are split proportionally with the last part taking the remainder. A key of zero size counts as 1
// byte, so a transfer of empty values still splits by key count.
// The unsplit view is the sum over prefixes of `[context, *, activity, unit]`.
import type { MetricIncrement } from "./metrics-store.js";

export interface PrefixWeights {
  /** Context whose `[context, activity, unit]` increments are split (e.g. "gather-dep"). */
  readonly context: string;
  readonly prefixes: readonly string[];
  readonly weights: readonly number[];
  readonly total: number;
}

/** Weights per prefix from (prefix, bytes) pairs, in first-seen order. */
export function prefixWeights(context: string, items: Iterable<readonly [string, number]>): PrefixWeights {
  const byPrefix = new Map<string, number>();
  for (const [prefix, bytes] of items) {
    const weight = bytes > 0 && Number.isFinite(bytes) ? bytes : 1;
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + weight);
  }
  let total = 0;
  for (const w of byPrefix.values()) total += w;
  return { context, prefixes: [...byPrefix.keys()], weights: [...byPrefix.values()], total };
}

/** Whether `name` is an unsplit `[context, activity, unit]` of the split's context. */
export function isSplittable(split: PrefixWeights, name: readonly string[]): boolean {
  return name.length === 3 && name[0] === split.context;
}

/** The parts of `value` per prefix (see the policy above). */
export function apportion(split: PrefixWeights, value: number, integral: boolean): number[] {
  const n = split.prefixes.length;
  if (n === 1) return [value];
  const parts = new Array<number>(n);
  if (n === 0) return parts;
  if (integral) {
    let assigned = 0;
    const remainders: Array<[number, number]> = [];
    for (let i = 0; i < n; i++) {
      const exact = (value * (split.weights[i] as number)) / split.total;
      const floor = Math.floor(exact);
      parts[i] = floor;
      assigned += floor;
      remainders.push([exact - floor, i]);
    }
    remainders.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (let r = 0; r < value - assigned; r++) parts[(remainders[r] as [number, number])[1]] += 1;
    return parts;
  }
  let assigned = 0;
  for (let i = 0; i < n - 1; i++) {
    const part = (value * (split.weights[i] as number)) / split.total;
    parts[i] = part;
    assigned += part;
  }
  parts[n - 1] = Math.max(0, value - assigned);
  return parts;
}

/** The increments of `increment` per prefix, or the increment itself when it is not splittable. */
export function splitIncrement(split: PrefixWeights | null, increment: MetricIncrement, out: MetricIncrement[]): void {
  const name = increment.name;
  if (split === null || !isSplittable(split, name)) {
    out.push(increment);
    return;
  }
  const value = increment.value;
  const parts = apportion(split, value, name[2] !== "seconds" && Number.isInteger(value));
  for (let i = 0; i < parts.length; i++) {
    const splitName = [name[0] as string, split.prefixes[i] as string, name[1] as string, name[2] as string];
    out.push(
      increment.outcome === undefined
        ? { name: splitName, value: parts[i] as number }
        : { name: splitName, value: parts[i] as number, outcome: increment.outcome },
    );
  }
}
