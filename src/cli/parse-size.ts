import { readSize, type SizeMinimum } from "../sim/units.js";
import { CliUsageError } from "./errors.js";

// The command line reads sizes with the spec's own reader (src/sim/units.ts: one unit table,
// one form, one wording), and names the option in front of the problem.

/**
 * Parses a byte size such as `2GiB`, `500MB`, `1.5GB`, `64 KiB` or plain bytes `1048576`, from 0
 * to 1 PiB; fractions of a byte round to the nearest. `option` names the flag in the error message.
 */
export function parseSize(text: string, option: string, min: SizeMinimum = "nonNegative"): number {
  const read = readSize(text, min);
  if (read.problem !== undefined) throw new CliUsageError(`${option}: ${read.problem}`);
  return read.bytes;
}

/** `--memory-limit`: a positive size, or `none` for no limit (nothing spills). */
export function parseMemoryLimit(text: string, option = "--memory-limit"): number | null {
  if (/^(none|unlimited|off)$/i.test(text.trim())) return null;
  const read = readSize(text, "positive");
  if (read.problem === undefined) return read.bytes;
  const hint = read.problem.startsWith("expected a positive size") ? ' (use "none" for no limit)' : "";
  throw new CliUsageError(`${option}: ${read.problem}${hint}`);
}
