// Byte sizes as people write them ("64 KiB", "1.5GB", "200MB") and back.
import { formatLimit, LIMITS } from "./limits.js";

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

// One form for every size the spec and the command line read: an optional sign (so "-1 MB" is
// told as a negative size, not as garbage), digits with an optional fraction and exponent
// ("1.5GB", "1e9"), then a unit of the table, spaces allowed around and between.
const SIZE = /^\s*([+-]?)(\d+(?:\.\d+)?|\.\d+)(?:e([+-]?\d+))?\s*([a-z]*)\s*$/i;

/** A byte quantity must be this; spec fields and options say which. */
export type SizeMinimum = "positive" | "nonNegative";

/** Bytes, or the problem with the input in the words the spec and the command line both use. */
export type SizeReading = { bytes: number; problem?: undefined } | { bytes?: undefined; problem: string };

/**
 * Reads a size (`"64 KiB"`, `"1.5GB"`, `" 10 MiB "`, `"1e9"`, plain bytes) or a number of bytes
 * and checks it: at least `min`, at most LIMITS.bytes. Fractions of a byte round to the nearest.
 */
export function readSize(value: string | number, min: SizeMinimum): SizeReading {
  const bytes = typeof value === "number" ? value : signedBytes(value);
  if (bytes === null) return { problem: `cannot parse ${JSON.stringify(value)} as a size (examples: 64 KiB, 1.5GB, 200MB)` };
  const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
  if (Number.isNaN(bytes)) return { problem: `expected a number of bytes, got ${shown}` };
  if (min === "positive" ? !(bytes > 0) : !(bytes >= 0)) return { problem: `expected ${min === "positive" ? "a positive size" : "a size ≥ 0"}, got ${shown}` };
  if (bytes > LIMITS.bytes) return { problem: `expected at most 1 PiB (${formatLimit(LIMITS.bytes)} bytes), got ${shown}` };
  return { bytes: bytes === 0 ? 0 : bytes };
}

/** Bytes in a size string such as "64 KiB" or "1.5GB" (decimal units are powers of 1000,
 * binary units powers of 1024), or null when the text is not a size (or a negative one). */
export function parseSize(text: string): number | null {
  const bytes = signedBytes(text);
  return bytes === null || !(bytes >= 0) ? null : Math.abs(bytes);
}

function signedBytes(text: string): number | null {
  const match = SIZE.exec(text);
  const unit = match === null ? undefined : SIZE_UNITS.get(match[4]!.toLowerCase());
  if (match === null || unit === undefined) return null;
  // the number as JavaScript reads "1.5e3": "0e999" is 0, not 0 × Infinity
  const magnitude = Number(`${match[2]}e${match[3] ?? "0"}`) * unit;
  return (match[1] === "-" ? -1 : 1) * Math.round(magnitude);
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
