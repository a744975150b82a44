// Small helpers shared by the benchmark suites.

/** Median of a non-empty list (the upper middle for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A writer of one JSON line per measurement on stdout, tagged with the suite's name. */
export function jsonLines(suite: string): (record: Record<string, unknown>) => void {
  return (record) => {
    process.stdout.write(`${JSON.stringify({ suite, ...record })}\n`);
  };
}

/** A full collection when node runs with --expose-gc (npm run bench does); else nothing. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
