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

export const NETWORK_MODELS = ["instant", "latency-bandwidth", "max-min"] as const;
export type NetworkModel = (typeof NETWORK_MODELS)[number];

export function parseNetworkModel(text: string, option = "--network"): NetworkModel {
  const found = NETWORK_MODELS.find((model) => model === text);
  if (!found) {
    throw new CliUsageError(`${option}: unknown network model "${text}" (choose one of: ${NETWORK_MODELS.join(", ")})`);
  }
  return found;
}
