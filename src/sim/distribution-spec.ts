// The spec's distributions as zod schemas, shared by a workload's task groups (durations,
// output sizes) and a cluster's overheads (costs drawn per event). Own module so that
// spec.ts and cluster-spec.ts both read them without importing each other.
import { z } from "zod";
import { bytes, nonNegative, parseInto, positive } from "./spec-fields.js";

const DISTS = "constant, uniform, normal, lognormal, exponential";

function variants(value: () => z.ZodType<number>, positiveValue: () => z.ZodType<number>, bareExpected: string) {
  return z.discriminatedUnion(
    "dist",
    [
      z.object({ dist: z.literal("constant"), value: value() }).strict(),
      z
        .object({ dist: z.literal("uniform"), low: value(), high: value() })
        .strict()
        .refine((d) => d.high >= d.low, { path: ["high"], message: "expected high ≥ low" }),
      z.object({ dist: z.literal("normal"), mean: positiveValue(), std: value() }).strict(),
      z.object({ dist: z.literal("lognormal"), mean: positiveValue(), sigma: nonNegative }).strict(),
      z.object({ dist: z.literal("exponential"), mean: positiveValue() }).strict(),
    ],
    {
      error: (issue) =>
        typeof issue.input === "object" && issue.input !== null
          ? `expected dist to be one of ${DISTS}`
          : `expected ${bareExpected} or a distribution { dist: ${DISTS.replaceAll(", ", " | ")}, … }`,
    },
  );
}

const secondsVariants = variants(() => nonNegative, () => positive, "a number of seconds");
const sizeVariants = variants(() => bytes("nonNegative"), () => bytes("positive"), "a size");

export type Distribution = z.infer<typeof secondsVariants>;

// A bare value (a constant) or an object discriminated by `dist`. A bare value that does not
// parse is reported as what it is (a bad number or size), at its own path.
function distribution(bare: z.ZodType<number>, isSize: boolean, dists: z.ZodType<Distribution>) {
  return z.unknown().transform((raw, ctx) => {
    if (typeof raw === "number" || (isSize && typeof raw === "string")) {
      const constant = parseInto(bare, raw, ctx);
      return constant === z.NEVER ? z.NEVER : { dist: "constant" as const, value: constant };
    }
    return parseInto(dists, raw, ctx);
  });
}

export const durationDistribution = distribution(nonNegative, false, secondsVariants);
export const sizeDistribution = distribution(bytes("nonNegative"), true, sizeVariants);

/**
 * A cost in seconds drawn per event: a number stays a number (a constant, as before
 * distributions were allowed, and as the report then shows it), an object is a distribution.
 */
export const secondsCost = z.unknown().transform((raw, ctx): number | Distribution => {
  if (typeof raw === "number") return parseInto(nonNegative, raw, ctx);
  return parseInto(secondsVariants, raw, ctx);
});
