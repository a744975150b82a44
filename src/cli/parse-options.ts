import { NETWORK_KINDS, NETWORK_MODELS, type NetworkKind } from "../sim/network/registry.js";
import { formatLimit, LIMITS } from "../sim/limits.js";
import { isRegistryName } from "../util/registry.js";
import { CliUsageError } from "./errors.js";
import { parseSize } from "./parse-size.js";

const WHOLE_NUMBER = /^\d+$/;

/** A whole number from `min` to `max`, e.g. `--workers 4`. Rejects `4.5`, `1e3`, `0x10`, `-1`. */
export function parseWholeNumber(text: string, option: string, min: number, max: number): number {
  const trimmed = text.trim();
  const value = WHOLE_NUMBER.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new CliUsageError(`${option}: expected a whole number, got "${text}"`);
  }
  if (value < min || value > max) {
    throw new CliUsageError(`${option}: must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

/** `--network`: a model of the simulator's registry (src/sim/network/registry.ts). */
export function parseNetworkModel(text: string, option = "--network"): NetworkKind {
  if (!isRegistryName(NETWORK_MODELS, text)) {
    throw new CliUsageError(`${option}: unknown network model "${text}" (choose one of: ${NETWORK_KINDS.join(", ")})`);
  }
  return text;
}

const SECONDS_UNITS: ReadonlyMap<string, number> = new Map([
  ["", 1],
  ["s", 1],
  ["ms", 1e-3],
  ["us", 1e-6],
  ["µs", 1e-6],
]);
// an optional sign, so that "-1" is told as a negative duration, not as garbage
const SECONDS_PATTERN = /^([+-]?)\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zµ]*)$/i;

/** `--latency`: seconds ≥ 0, bare (`0.00114`) or with a unit (`1.14ms`, `300us`). */
export function parseSeconds(text: string, option: string): number {
  const match = SECONDS_PATTERN.exec(text.trim());
  const unit = match ? SECONDS_UNITS.get(match[3]!.toLowerCase()) : undefined;
  if (!match || unit === undefined) throw new CliUsageError(`${option}: cannot parse "${text}" as seconds (examples: 0.001, 1.14ms, 300us)`);
  if (match[1] === "-") throw new CliUsageError(`${option}: must be ≥ 0 seconds, got "${text}"`);
  return Number(match[2]) * unit;
}

/** `--bandwidth`: bytes per second, a positive size (`744MB`, `1GiB`, with or without a trailing `/s`). */
export function parseBandwidth(text: string, option = "--bandwidth"): number {
  return parseSize(text.trim().replace(/\/s$/i, ""), option, "positive");
}
