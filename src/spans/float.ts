// Time quantisation. Exclusive times are differences of clock readings; summed as raw
// floats they would match the root's duration only to within a few ulps, and scrape
// increments would not add back up to the final totals. So every time is measured in whole
// quanta of 2^-30 s (≈ 0.93 ns) from the root's start. A multiple of 2^-30 below 2^23 s
// (≈ 97 days) is an exact float and sums of such values are exact in any order, so the
// exclusive times of a tree sum exactly to the root's duration, and scraped increments sum
// exactly to the unscraped totals.

/** Quanta per second. */
export const QUANTA_PER_SECOND = 2 ** 30;

/** Whole quanta from `base` to `t`. */
export function quantaBetween(base: number, t: number): number {
  return Math.round((t - base) * QUANTA_PER_SECOND);
}

/** Whole quanta in `seconds`. */
export function toQuanta(seconds: number): number {
  return Math.round(seconds * QUANTA_PER_SECOND);
}

/** Seconds of `quanta` (exact: division by a power of two). */
export function fromQuanta(quanta: number): number {
  return quanta / QUANTA_PER_SECOND;
}
