// The few statistics a comparison over seeds needs, on small samples (a value per seed).

export interface Spread {
  /** Number of values. */
  n: number;
  median: number;
  /** Quartiles, linearly interpolated between order statistics (R's type 7, numpy's default). */
  q1: number;
  q3: number;
  min: number;
  max: number;
}

/** The q-quantile (0..1) of sorted values, interpolated. */
function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/** Median, quartiles and range of a non-empty list; null for an empty one. */
export function spreadOf(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, median: quantile(sorted, 0.5), q1: quantile(sorted, 0.25), q3: quantile(sorted, 0.75), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export function medianOf(values: readonly number[]): number | null {
  return spreadOf(values)?.median ?? null;
}

/** Code-point order, independent of locale, so that the same results sort the same everywhere. */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
