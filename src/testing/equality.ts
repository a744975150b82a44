// Structural equality for test helpers that must work without vitest at runtime.
// Understands nested asymmetric matchers (vitest/jest `expect.*` helpers and our own
// InstructionMatcher), so helpers compose with whatever the user's runner offers.

/** Anything with jest/vitest's asymmetric-matcher protocol. */
export interface AsymmetricMatcherLike {
  asymmetricMatch(other: unknown): boolean;
}

export function isAsymmetricMatcher(value: unknown): value is AsymmetricMatcherLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === "function"
  );
}

/**
 * Deep equality: primitives by SameValueZero, arrays element-wise, Sets and Maps by
 * content, plain objects by own enumerable keys (a key whose value is `undefined` counts
 * as absent, like vitest's `toEqual`). `expected` may contain asymmetric matchers.
 * A Set compared with an array (either side) is compared as an unordered collection:
 * log entries and `toGather` lists are sets in dask and may be arrays or Sets here.
 */
export function deepEqual(actual: unknown, expected: unknown): boolean {
  if (isAsymmetricMatcher(expected)) return expected.asymmetricMatch(actual);
  if (Object.is(actual, expected)) return true;
  if (typeof actual !== "object" || typeof expected !== "object" || actual === null || expected === null) {
    return false;
  }
  if (actual instanceof Set || expected instanceof Set) {
    return unorderedEqual(actual, expected);
  }
  if (Array.isArray(actual) || Array.isArray(expected)) {
    if (!Array.isArray(actual) || !Array.isArray(expected)) return false;
    if (actual.length !== expected.length) return false;
    return actual.every((item, i) => deepEqual(item, expected[i]));
  }
  if (actual instanceof Map || expected instanceof Map) {
    if (!(actual instanceof Map) || !(expected instanceof Map)) return false;
    if (actual.size !== expected.size) return false;
    for (const [k, v] of expected) {
      if (!actual.has(k) || !deepEqual(actual.get(k), v)) return false;
    }
    return true;
  }
  const actualRecord = actual as Record<string, unknown>;
  const expectedRecord = expected as Record<string, unknown>;
  const keys = new Set([...Object.keys(actualRecord), ...Object.keys(expectedRecord)]);
  for (const key of keys) {
    if (!deepEqual(actualRecord[key], expectedRecord[key])) return false;
  }
  return true;
}

function unorderedEqual(actual: object, expected: object): boolean {
  const actualItems = toItems(actual);
  const expectedItems = toItems(expected);
  if (actualItems === null || expectedItems === null) return false;
  if (actualItems.length !== expectedItems.length) return false;
  const unused = [...actualItems];
  for (const want of expectedItems) {
    const at = unused.findIndex((have) => deepEqual(have, want));
    if (at < 0) return false;
    unused.splice(at, 1);
  }
  return true;
}

function toItems(value: object): unknown[] | null {
  if (value instanceof Set) return [...value];
  if (Array.isArray(value)) return value;
  return null;
}

/** Compact one-line rendering for error messages (Sets and Maps readable, no cycles). */
export function formatValue(value: unknown, depth = 0): string {
  if (isAsymmetricMatcher(value)) {
    const described = (value as { toAsymmetricMatcher?: () => string }).toAsymmetricMatcher;
    return typeof described === "function" ? described.call(value) : String(value);
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return `<function ${value.name || "anonymous"}>`;
  if (typeof value !== "object" || value === null) return String(value);
  if (depth > 4) return "…";
  if (value instanceof Set) return `Set{${[...value].map((v) => formatValue(v, depth + 1)).join(", ")}}`;
  if (value instanceof Map) {
    const items = [...value].map(([k, v]) => `${formatValue(k, depth + 1)} => ${formatValue(v, depth + 1)}`);
    return `Map{${items.join(", ")}}`;
  }
  if (Array.isArray(value)) return `[${value.map((v) => formatValue(v, depth + 1)).join(", ")}]`;
  const custom = (value as { toString?: () => string }).toString;
  if (typeof custom === "function" && custom !== Object.prototype.toString) return custom.call(value);
  const entries = Object.entries(value).map(([k, v]) => `${k}: ${formatValue(v, depth + 1)}`);
  return `{${entries.join(", ")}}`;
}
