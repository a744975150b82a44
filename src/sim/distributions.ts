// Draws from the spec's duration and size distributions, all through the run's Rng.
import type { Rng } from "./rng.js";
import type { Distribution } from "./spec.js";

/** One draw, never negative (a normal draw below zero is clamped to zero). */
export function sample(distribution: Distribution, rng: Rng): number {
  switch (distribution.dist) {
    case "constant":
      return distribution.value;
    case "uniform":
      return rng.uniform(distribution.low, distribution.high);
    case "normal":
      return Math.max(0, distribution.mean + distribution.std * rng.standardNormal());
    case "lognormal": {
      // Parametrised by the arithmetic mean: mu = ln(mean) - sigma²/2.
      const sigma = distribution.sigma;
      const mu = Math.log(distribution.mean) - (sigma * sigma) / 2;
      return Math.exp(mu + sigma * rng.standardNormal());
    }
    case "exponential":
      return rng.exponential(distribution.mean);
  }
}

/** The mean of a distribution (for docs and sanity checks). */
export function meanOf(distribution: Distribution): number {
  switch (distribution.dist) {
    case "constant":
      return distribution.value;
    case "uniform":
      return (distribution.low + distribution.high) / 2;
    case "normal":
    case "lognormal":
    case "exponential":
      return distribution.mean;
  }
}
