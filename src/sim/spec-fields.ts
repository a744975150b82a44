// The zod field types that workload specs and cluster profiles share: numbers with the
// messages spec errors use, counts bounded by the limits, and byte sizes written as numbers
// or strings ("64 KiB").
import { z } from "zod";
import { formatLimit, LIMITS } from "./limits.js";
import { readSize, type SizeMinimum } from "./units.js";

export const number = (message: string) => z.number({ error: message });
export const positive = number("expected a number").positive("expected a positive number");
export const nonNegative = number("expected a number").nonnegative("expected a number ≥ 0");
export const probability = number("expected a number").min(0, "expected a probability in [0, 1]").max(1, "expected a probability in [0, 1]");
export const count = number("expected an integer")
  .int("expected an integer")
  .positive("expected a positive integer")
  .max(LIMITS.tasks, `expected at most ${formatLimit(LIMITS.tasks)} (the limit on tasks)`);
export const index = number("expected an integer").int("expected an integer").nonnegative("expected an integer ≥ 0");

const SIZE_EXPECTED = 'expected a number of bytes or a size such as "64 KiB"';

/** Byte quantities: a number, or a string such as "64 KiB" or "1.5GB"; at most LIMITS.bytes.
 * Read and checked by units.ts's readSize, as the command line's sizes are. */
export function bytes(min: SizeMinimum) {
  return z.union([z.number(), z.string()], { error: SIZE_EXPECTED }).transform((raw, ctx) => {
    const read = readSize(raw, min);
    if (read.problem === undefined) return read.bytes;
    ctx.addIssue({ code: "custom", message: read.problem });
    return z.NEVER;
  });
}

/** Parses `raw` with `schema` inside a transform, passing its issues on under their own paths. */
export function parseInto<T>(schema: z.ZodType<T>, raw: unknown, ctx: z.RefinementCtx): T | typeof z.NEVER {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
  return z.NEVER;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
