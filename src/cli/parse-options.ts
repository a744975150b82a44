import { NETWORK_KINDS, NETWORK_MODELS, type NetworkKind } from "../sim/network/registry.js";
import { isRegistryName } from "../util/registry.js";
import { CliUsageError } from "./errors.js";

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
