// In-memory weight of JS values, in the spirit of dask's `sizeof`: an estimate that is
// deterministic and cheap even for huge values. The one estimator of spanwork: the
// SpillBuffer's weights, the WorkerState's nbytes of values that arrive without a size, and
// the Worker's default all use it. Large collections are sampled
// deterministically (evenly spaced items for arrays, the first items for Maps, Sets and
// objects) and extrapolated; nesting beyond a depth limit is charged as a pointer; an
// object reached twice (shared or cyclic) is counted once.

/** Largest number of items of one collection that are measured; the rest is extrapolated. */
const SAMPLE_SIZE = 16;
/** Nesting below this depth is charged as a pointer only. */
const MAX_DEPTH = 8;

const POINTER = 8;
const OBJECT_HEADER = 24;
const COLLECTION_HEADER = 64;
const STRING_HEADER = 16;
const VIEW_HEADER = 64;
const ENTRY_OVERHEAD = 16;
/** dask's `safe_sizeof` default when sizeof raises (0.95 MiB). */
export const SIZEOF_FALLBACK = 1e6;

/**
 * A value that stands for data it does not hold — the simulator's task outputs — and declares
 * the size of that data. A plain object (structured cloning and the v8 serializer keep it).
 */
export interface SizedStandIn {
  readonly simulated: true;
  readonly nbytes: number;
}

export function isSizedStandIn(value: unknown): value is SizedStandIn {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { simulated?: unknown }).simulated === true &&
    typeof (value as { nbytes?: unknown }).nbytes === "number"
  );
}

/** Estimated in-memory size in bytes of `value` (an integer ≥ 0); a SizedStandIn weighs what it declares. */
export function sizeof(value: unknown): number {
  // Binary data and primitives are the common case: no bookkeeping needed for them.
  if (typeof value !== "object" || value === null) return Math.round(measure(value, 0, NO_SEEN));
  if (ArrayBuffer.isView(value)) return VIEW_HEADER + value.byteLength;
  if (isSizedStandIn(value)) return value.nbytes;
  return Math.round(measure(value, 0, new Set<object>()));
}

const NO_SEEN: Set<object> = new Set();

/**
 * `sizeof`, but a throwing or nonsensical (negative, NaN, infinite) `sizeofFn` gives
 * `SIZEOF_FALLBACK` and a warning, like dask's `safe_sizeof`: a bad estimate must not
 * lose the value.
 */
export function safeSizeof(
  value: unknown,
  sizeofFn: (value: unknown) => number = sizeof,
  warn: (message: string, error?: unknown) => void = (m) => console.warn(m),
  key?: string,
): number {
  let size: number;
  try {
    size = sizeofFn(value);
  } catch (error) {
    warn(`Sizeof calculation failed${forKey(key)}: ${describeError(error)}; defaulting to ${SIZEOF_FALLBACK} bytes`, error);
    return SIZEOF_FALLBACK;
  }
  if (typeof size !== "number" || !Number.isFinite(size) || size < 0) {
    warn(`Sizeof calculation returned ${String(size)}${forKey(key)}; defaulting to ${SIZEOF_FALLBACK} bytes`);
    return SIZEOF_FALLBACK;
  }
  return size;
}

// Built only for a warning: safeSizeof runs on every set and every unspilling get.
function forKey(key: string | undefined): string {
  return key === undefined ? "" : ` for key ${JSON.stringify(key)}`;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function measure(value: unknown, depth: number, seen: Set<object>): number {
  switch (typeof value) {
    case "string":
      return sizeofString(value);
    case "number":
      return 8;
    case "boolean":
      return 4;
    case "undefined":
      return 0;
    case "bigint":
      return 16 + 8 * Math.ceil(bitLength(value) / 64);
    case "symbol":
      return 16 + (value.description?.length ?? 0);
    case "function":
      return 64;
    case "object":
      if (value === null) return 0;
      return measureObject(value, depth, seen);
  }
  return POINTER;
}

function measureObject(value: object, depth: number, seen: Set<object>): number {
  if (seen.has(value)) return POINTER;
  seen.add(value);
  if (ArrayBuffer.isView(value)) return VIEW_HEADER + value.byteLength;
  if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) return VIEW_HEADER + value.byteLength;
  if (value instanceof Date) return OBJECT_HEADER + 8;
  if (value instanceof RegExp) return OBJECT_HEADER + sizeofString(value.source);
  if (depth >= MAX_DEPTH) return POINTER;
  const next = depth + 1;
  if (Array.isArray(value)) return COLLECTION_HEADER + POINTER * value.length + sampleArray(value, next, seen);
  if (value instanceof Map) return COLLECTION_HEADER + sampleMap(value, next, seen);
  if (value instanceof Set) return COLLECTION_HEADER + sampleSet(value, next, seen);
  if (value instanceof WeakMap || value instanceof WeakSet || value instanceof WeakRef || value instanceof Promise) {
    return COLLECTION_HEADER;
  }
  const extra = value instanceof Error ? sizeofString(value.message) + sizeofString(value.stack ?? "") : 0;
  return OBJECT_HEADER + extra + sampleObject(value, next, seen);
}

function sampleArray(items: readonly unknown[], depth: number, seen: Set<object>): number {
  const n = items.length;
  if (n <= SAMPLE_SIZE) {
    let total = 0;
    for (let i = 0; i < n; i++) total += measure(items[i], depth, seen);
    return total;
  }
  let sampled = 0;
  for (let s = 0; s < SAMPLE_SIZE; s++) sampled += measure(items[Math.floor((s * n) / SAMPLE_SIZE)], depth, seen);
  return (sampled * n) / SAMPLE_SIZE;
}

function sampleMap(map: ReadonlyMap<unknown, unknown>, depth: number, seen: Set<object>): number {
  let sampled = 0;
  let count = 0;
  for (const [k, v] of map) {
    if (count === SAMPLE_SIZE) break;
    sampled += ENTRY_OVERHEAD + measure(k, depth, seen) + measure(v, depth, seen);
    count++;
  }
  return count === 0 ? 0 : (sampled * map.size) / count;
}

function sampleSet(set: ReadonlySet<unknown>, depth: number, seen: Set<object>): number {
  let sampled = 0;
  let count = 0;
  for (const v of set) {
    if (count === SAMPLE_SIZE) break;
    sampled += ENTRY_OVERHEAD + measure(v, depth, seen);
    count++;
  }
  return count === 0 ? 0 : (sampled * set.size) / count;
}

function sampleObject(value: object, depth: number, seen: Set<object>): number {
  const keys = Object.keys(value);
  const n = keys.length;
  if (n === 0) return 0;
  const record = value as Record<string, unknown>;
  const samples = Math.min(n, SAMPLE_SIZE);
  let sampled = 0;
  for (let s = 0; s < samples; s++) {
    const k = keys[Math.floor((s * n) / samples)]!;
    sampled += POINTER + sizeofString(k) + measure(record[k], depth, seen);
  }
  return (sampled * n) / samples;
}

/** One byte per character when the string looks Latin-1 (checked on a sample), two otherwise, as V8 stores them. */
function sizeofString(value: string): number {
  const n = value.length;
  const step = n <= 64 ? 1 : Math.floor(n / 64);
  for (let i = 0; i < n; i += step) {
    if (value.charCodeAt(i) > 0xff) return STRING_HEADER + 2 * n;
  }
  return STRING_HEADER + n;
}

function bitLength(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  return magnitude === 0n ? 1 : magnitude.toString(16).length * 4;
}
