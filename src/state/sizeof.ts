// A rough in-memory size of a value, used when a task reaches memory with unknown nbytes
// (dask's `sizeof`): scattered data and gathered keys without a size hint.

const OBJECT_OVERHEAD = 64;

export type Sizeof = (value: unknown) => number;

export function defaultSizeof(value: unknown): number {
  return sizeOf(value, 0);
}

function sizeOf(value: unknown, depth: number): number {
  if (value === null || value === undefined) return 16;
  switch (typeof value) {
    case "number":
    case "boolean":
      return 24;
    case "bigint":
      return 32;
    case "string":
      return 49 + value.length;
    case "object":
      break;
    default:
      return OBJECT_OVERHEAD;
  }
  if (ArrayBuffer.isView(value)) return OBJECT_OVERHEAD + value.byteLength;
  if (value instanceof ArrayBuffer) return OBJECT_OVERHEAD + value.byteLength;
  if (depth >= 3) return OBJECT_OVERHEAD;
  // Like dask's sizeof for lists/dicts: sample at most 10 items and extrapolate.
  if (Array.isArray(value)) return OBJECT_OVERHEAD + sampled(value, value.length, depth);
  if (value instanceof Map) return OBJECT_OVERHEAD + sampled([...value.values()].slice(0, 10), value.size, depth);
  if (value instanceof Set) return OBJECT_OVERHEAD + sampled([...value].slice(0, 10), value.size, depth);
  const keys = Object.keys(value);
  const values: unknown[] = [];
  for (let i = 0; i < keys.length && i < 10; i++) values.push((value as Record<string, unknown>)[keys[i] as string]);
  return OBJECT_OVERHEAD + sampled(values, keys.length, depth);
}

function sampled(items: readonly unknown[], count: number, depth: number): number {
  const n = Math.min(items.length, 10);
  if (n === 0) return 0;
  let total = 0;
  for (let i = 0; i < n; i++) total += sizeOf(items[i], depth + 1);
  return Math.round((total / n) * count);
}

/** A short type name of a value, used as the `type`/`typename` of TaskFinishedMsg. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  const t = typeof value;
  if (t !== "object") return t;
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  return proto?.constructor?.name || "Object";
}
