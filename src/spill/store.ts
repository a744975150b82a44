import type { Key } from "./key.js";

/**
 * The slow tier's backend: where a SpillBuffer puts the serialized (and possibly
 * compressed) bytes of the values it evicts. Any method may throw; the SpillBuffer turns
 * a failed `write` into "keep the value in memory and log" (dask's OSError handling), a
 * failed `read` into a `SpillReadError` naming the key, and a failed `delete` into a
 * logged error (the value is no longer needed, so nothing is lost).
 *
 * Modelled durations (the simulator's virtual disk): `read` may return
 * `{ bytes, seconds }` instead of the bare bytes, and `write` may return `{ seconds }`.
 * When a duration is returned, the SpillBuffer records it as the `disk-read` /
 * `disk-write` seconds instead of the wall time it measured: the duration counts from the
 * request (waiting behind earlier requests included), so the child span ends `seconds` after
 * the SpillBuffer's clock read at the request, or after the span's start when that is
 * earlier; the cumulative totals get the span's duration.
 * A store that returns nothing (or bare bytes) is timed with the clock. Accumulating
 * the modelled time elsewhere (e.g. a virtual disk's own counter) is the store's business.
 */
export interface SpillStore {
  /**
   * The bytes stored for `key`. `byteLength` is how many bytes the SpillBuffer wrote (a
   * hint: a store may use it to skip a size lookup, but must still return what it holds,
   * so that a truncated or replaced file is detected).
   */
  read(key: Key, byteLength?: number): Uint8Array | ModelledRead;
  write(key: Key, bytes: Uint8Array): void | ModelledDuration;
  /**
   * Optional: `write` of the concatenation of `frames` (a large binary value and its
   * header), used with a serializer's `dumpFrames` to skip a copy. Same contract as `write`;
   * the frames may be the value's own memory, so a store that keeps them must copy them.
   */
  writeFrames?(key: Key, frames: readonly Uint8Array[]): void | ModelledDuration;
  /**
   * Optional: the bytes of a key written with `writeFrames`, split back into frames of
   * `frameLengths` (the lengths written), used with a serializer's `loadFrames` to skip a
   * copy. Each frame must be fresh memory the store keeps no reference to (the value read
   * back may be built on it). When the stored bytes are not exactly the sum of
   * `frameLengths` long, return everything stored as a single frame, so that the
   * SpillBuffer reports the mismatch.
   */
  readFrames?(key: Key, frameLengths: readonly number[]): readonly Uint8Array[] | ModelledFramesRead;
  delete(key: Key): void;
  /** Optional: release resources (the default file store removes its directory). */
  close?(): void;
}

/** A store operation's modelled duration in seconds (finite, ≥ 0). */
export interface ModelledDuration {
  readonly seconds: number;
}

/** What a modelling store's `read` returns: the bytes and how long the read took. */
export interface ModelledRead extends ModelledDuration {
  readonly bytes: Uint8Array;
}

/** What a modelling store's `readFrames` returns: the frames and how long the read took. */
export interface ModelledFramesRead extends ModelledDuration {
  readonly frames: readonly Uint8Array[];
}

/** Splits a `readFrames` result into its frames and its modelled seconds (undefined when not modelled). */
export function unpackFramesRead(result: readonly Uint8Array[] | ModelledFramesRead): { frames: readonly Uint8Array[]; seconds: number | undefined } {
  if (Array.isArray(result)) return { frames: checkFrames(result), seconds: undefined };
  if (result !== null && typeof result === "object" && Array.isArray((result as ModelledFramesRead).frames)) {
    const modelled = result as ModelledFramesRead;
    return { frames: checkFrames(modelled.frames), seconds: checkSeconds(modelled.seconds, "readFrames") };
  }
  throw new TypeError(`store.readFrames returned ${describe(result, 'an array "frames" field')}; expected an array of Uint8Arrays or { frames, seconds }`);
}

function checkFrames(frames: readonly unknown[]): readonly Uint8Array[] {
  if (!frames.every((frame) => frame instanceof Uint8Array)) {
    throw new TypeError("store.readFrames returned frames that are not all Uint8Arrays");
  }
  return frames as readonly Uint8Array[];
}

/** Splits a `read` result into its bytes and its modelled seconds (undefined when not modelled). */
export function unpackRead(result: Uint8Array | ModelledRead): { bytes: Uint8Array; seconds: number | undefined } {
  if (result instanceof Uint8Array) return { bytes: result, seconds: undefined };
  if (result !== null && typeof result === "object" && result.bytes instanceof Uint8Array) {
    return { bytes: result.bytes, seconds: checkSeconds(result.seconds, "read") };
  }
  throw new TypeError(`store.read returned ${describe(result, 'a Uint8Array "bytes" field')}; expected a Uint8Array or { bytes: Uint8Array, seconds: number }`);
}

/** The modelled seconds of a `write` result, or undefined when the store did not model it. */
export function modelledWriteSeconds(result: void | ModelledDuration): number | undefined {
  if (result === undefined || result === null) return undefined;
  if (typeof result === "object" && "seconds" in result) return checkSeconds(result.seconds, "write");
  return undefined;
}

function checkSeconds(seconds: unknown, op: string): number {
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
    throw new TypeError(`store.${op} reported a modelled duration of ${String(seconds)} seconds; expected a finite number ≥ 0`);
  }
  return seconds;
}

function describe(value: unknown, expectedField: string): string {
  if (value === null) return "null";
  if (typeof value === "object") return `an object without ${expectedField}`;
  return typeof value;
}
