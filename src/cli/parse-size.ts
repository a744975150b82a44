import { formatLimit, LIMITS } from "../sim/limits.js";
import { CliUsageError } from "./errors.js";

// Decimal units are powers of 1000 and binary units powers of 1024, as in dask's parse_bytes;
// the unit is matched without regard to case ("2gib" is 2 GiB) because users type both.
const UNIT_MULTIPLIERS: ReadonlyMap<string, number> = new Map([
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

const SIZE_PATTERN = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)$/i;

/**
 * Parses a byte size such as `2GiB`, `500MB`, `1.5GB`, `64 KiB` or plain bytes `1048576`.
 * Fractions round down to whole bytes. `option` names the flag in the error message.
 */
export function parseSize(text: string, option: string): number {
  const trimmed = text.trim();
  const match = SIZE_PATTERN.exec(trimmed);
  const multiplier = match ? UNIT_MULTIPLIERS.get(match[2]!.toLowerCase()) : undefined;
  if (!match || multiplier === undefined) {
    throw new CliUsageError(`${option}: cannot parse "${text}" as a size (examples: 2GiB, 500MB)`);
  }
  const bytes = Math.floor(Number(match[1]) * multiplier);
  if (!Number.isSafeInteger(bytes)) {
    throw new CliUsageError(`${option}: "${text}" is too large a size`);
  }
  return bytes;
}

/** `--memory-limit`: a positive size, or `none` for no limit (nothing spills). */
export function parseMemoryLimit(text: string, option = "--memory-limit"): number | null {
  if (/^(none|unlimited|off)$/i.test(text.trim())) return null;
  const bytes = parseSize(text, option);
  if (bytes <= 0) {
    throw new CliUsageError(`${option}: must be greater than zero, got "${text}" (use "none" for no limit)`);
  }
  if (bytes > LIMITS.bytes) throw new CliUsageError(`${option}: must be at most 1 PiB (${formatLimit(LIMITS.bytes)} bytes), got "${text}"`);
  return bytes;
}
