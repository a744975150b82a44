// The zod field types that workload specs and cluster profiles share: numbers with the
// messages spec errors use, counts bounded by the limits, and byte sizes written as numbers
// or strings ("64 KiB").
import { z } from "zod";
import { formatLimit, LIMITS } from "./limits.js";
import { parseSize } from "./units.js";

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
const MAX_BYTES = `expected at most 1 PiB (${formatLimit(LIMITS.bytes)} bytes)`;

/** Byte quantities: a number, or a string such as "64 KiB" or "1.5GB"; at most LIMITS.bytes. */
export function bytes(min: "positive" | "nonNegative") {
  const value = number(SIZE_EXPECTED);
  return z
    .union([z.number(), z.string()], { error: SIZE_EXPECTED })
    .transform((raw, ctx) => {
      if (typeof raw === "number") return raw;
      const parsed = parseSize(raw);
      if (parsed === null) {
        ctx.addIssue({ code: "custom", message: `cannot parse ${JSON.stringify(raw)} as a size (examples: 64 KiB, 1.5GB, 200MB)` });
        return z.NEVER;
      }
      return parsed;
    })
    .pipe((min === "positive" ? value.positive("expected a positive number") : value.nonnegative("expected a number ≥ 0")).max(LIMITS.bytes, MAX_BYTES));
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
