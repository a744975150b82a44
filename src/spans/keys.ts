// Series keys of `SpanRecord.exported`.

/** Separator of series keys: a control character no sane label contains. */
export const SERIES_SEPARATOR = "\u001f";

/** The key of a series in `SpanRecord.exported`: name segments and unit joined by U+001F. */
export function seriesKey(path: readonly string[], unit: string): string {
  return path.length === 0 ? unit : path.join(SERIES_SEPARATOR) + SERIES_SEPARATOR + unit;
}
