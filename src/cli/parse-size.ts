import { formatLimit, LIMITS } from "../sim/limits.js";
import { SIZE_UNITS } from "../sim/units.js";
import { CliUsageError } from "./errors.js";

// The simulator's unit table; the command line takes no exponent ("1e9" is a typo there).
const SIZE_PATTERN = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)$/i;

/**
 * Parses a byte size such as `2GiB`, `500MB`, `1.5GB`, `64 KiB` or plain bytes `1048576`.
 * Fractions round down to whole bytes. `option` names the flag in the error message.
 */
export function parseSize(text: string, option: string): number {
  const trimmed = text.trim();
  const match = SIZE_PATTERN.exec(trimmed);
  const multiplier = match ? SIZE_UNITS.get(match[2]!.toLowerCase()) : undefined;
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
