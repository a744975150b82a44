// Byte sizes as people write them ("64 KiB", "1.5GB", "200MB") and back.

// Decimal units are powers of 1000 and binary units powers of 1024, as in dask's parse_bytes,
// matched without regard to case. The one table of size units: spec files and the CLI's
// options read it. A Map, not an object literal: the unit is user text, and "constructor" is
// letters too.
export const SIZE_UNITS: ReadonlyMap<string, number> = new Map([
  ["", 1],
  ["b", 1],
  ["k", 1e3],
  ["kb", 1e3],
  ["m", 1e6],
  ["mb", 1e6],
  ["g", 1e9],
  ["gb", 1e9],
  ["t", 1e12],
  ["tb", 1e12],
  ["p", 1e15],
  ["pb", 1e15],
  ["ki", 2 ** 10],
  ["kib", 2 ** 10],
  ["mi", 2 ** 20],
  ["mib", 2 ** 20],
  ["gi", 2 ** 30],
  ["gib", 2 ** 30],
  ["ti", 2 ** 40],
  ["tib", 2 ** 40],
  ["pi", 2 ** 50],
  ["pib", 2 ** 50],
]);

const SIZE = /^\s*(\d+(?:\.\d+)?|\.\d+)(?:e(\d+))?\s*([a-z]*)\s*$/i;

/** Bytes in a size string such as "64 KiB" or "1.5GB" (decimal units are powers of 1000,
 * binary units powers of 1024), or null when the text is not a size. */
export function parseSize(text: string): number | null {
  const match = SIZE.exec(text);
  if (match === null) return null;
  const unit = SIZE_UNITS.get((match[3] ?? "").toLowerCase());
  if (unit === undefined) return null;
  const mantissa = Number(match[1]);
  const exponent = match[2] === undefined ? 0 : Number(match[2]);
  return Math.round(mantissa * 10 ** exponent * unit);
}

/** "1.5 MiB"-style rendering for messages and docs. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}
