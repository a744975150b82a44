// Helpers the built-in workloads share: the size parameter and the distributions they draw from.
import { sample } from "../distributions.js";
import { formatLimit, LIMITS } from "../limits.js";
import type { Rng } from "../rng.js";
import type { Distribution } from "../spec.js";
import type { WorkloadParameters } from "./workload.js";

export const MB = 1e6;

export function lognormal(mean: number, sigma: number): Distribution {
  return { dist: "lognormal", mean, sigma };
}

export function draw(distribution: Distribution, rng: Rng): number {
  return sample(distribution, rng);
}

export function sizeOf(parameters: WorkloadParameters, fallback: number): number {
  const size = parameters.size ?? fallback;
  if (!Number.isInteger(size) || size < 1 || size > LIMITS.size) {
    throw new RangeError(`workload size must be an integer from 1 to ${formatLimit(LIMITS.size)}, got ${size}`);
  }
  return size;
}
