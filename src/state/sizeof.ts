// A rough in-memory size of a value, used when a task reaches memory with unknown nbytes
// (dask's `sizeof`): scattered data and gathered keys without a size hint.

export type Sizeof = (value: unknown) => number;

/** The size of a value that reaches memory without one: spanwork's one sizeof estimator (src/util). */
export { sizeof as defaultSizeof } from "../util/sizeof.js";

/** A short type name of a value, used as the `type`/`typename` of TaskFinishedMsg. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  const t = typeof value;
  if (t !== "object") return t;
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  return proto?.constructor?.name || "Object";
}
