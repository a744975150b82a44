import { reprKey, type Key } from "./key.js";

/** `get` of a key that is in neither tier (Python's KeyError). */
export class SpillKeyError extends Error {
  override readonly name = "SpillKeyError";
  constructor(readonly key: Key) {
    super(`key ${reprKey(key)} is not in the SpillBuffer`);
  }
}

/**
 * A value heavier than target that could not be serialized: the SpillBuffer forgot the
 * key and throws this (dask's "Failed to pickle 'k'"); `cause` is the serializer's error.
 */
export class SpillSerializeError extends Error {
  override readonly name = "SpillSerializeError";
  constructor(readonly key: Key, options: { cause: unknown }) {
    super(`Failed to serialize ${reprKey(key)}: ${describeCause(options.cause)}`, options);
  }
}

/**
 * A spilled value could not be brought back: the store failed, the bytes are truncated,
 * or they do not decompress or deserialize. The key stays in the slow tier, so the
 * failure repeats instead of the value silently disappearing.
 */
export class SpillReadError extends Error {
  override readonly name = "SpillReadError";
  constructor(readonly key: Key, problem: string, options?: { cause: unknown }) {
    super(`Failed to read spilled key ${reprKey(key)}: ${problem}`, options);
  }
}

/**
 * Internal: the slow tier would exceed `maxSpill`. Never escapes the SpillBuffer (logged,
 * the value stays in memory); exported for custom tiers and tests.
 */
export class MaxSpillExceeded extends Error {
  override readonly name = "MaxSpillExceeded";
  constructor(readonly key: Key, readonly diskBytes: number, readonly maxSpill: number) {
    super(`spilling ${reprKey(key)} (${diskBytes} bytes) would exceed maxSpill (${maxSpill} bytes)`);
  }
}

/** Internal: the value of `key` could not be serialized or compressed while being evicted. */
export class SerializeFailure extends Error {
  override readonly name = "SerializeFailure";
  constructor(readonly key: Key, options: { cause: unknown }) {
    super(`Failed to serialize ${reprKey(key)}: ${describeCause(options.cause)}`, options);
  }
}

/** Internal: the store's `write` threw (disk full, read-only, …) while spilling `key`. */
export class StoreWriteFailure extends Error {
  override readonly name = "StoreWriteFailure";
  constructor(readonly key: Key, options: { cause: unknown }) {
    super(`Failed to write ${reprKey(key)} to the spill store: ${describeCause(options.cause)}`, options);
  }
}

export function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return String(cause);
}
