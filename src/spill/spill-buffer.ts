import {
  MaxSpillExceeded,
  SerializeFailure,
  SpillKeyError,
  SpillSerializeError,
  StoreWriteFailure,
  describeCause,
} from "./errors.js";
import { FastTier, type FastTierView } from "./fast-tier.js";
import { FileStore } from "./file-store.js";
import { reprKey, type Key } from "./key.js";
import { consoleLogger, RateLimiter, type SpillLogger } from "./logging.js";
import { SpillMetrics } from "./metrics.js";
import { compressionCodec, v8Serializer, type Serializer, type SpillCompression } from "./serializer.js";
import { safeSizeof, sizeof as defaultSizeof } from "./sizeof.js";
import { SlowTier, type SlowTierView, type SpilledSize } from "./slow-tier.js";
import type { SpillStore } from "./store.js";

export interface SpillBufferOptions {
  /** Bytes of sizeof weight kept in memory before the least recently used values spill. */
  target: number;
  /** Maximum bytes on disk (serialized size); false = unlimited (default). */
  maxSpill?: number | false;
  /** Parent of the private directory of the default file store (default os.tmpdir()). */
  directory?: string;
  /** Replaces the default file store (e.g. the simulator's virtual disk). */
  store?: SpillStore;
  /** In-memory weight of a value (default `sizeof`); a throwing one counts 1e6 with a warning. */
  sizeof?: (value: unknown) => number;
  /** Default: node:v8 structured clone. */
  serializer?: Serializer;
  logger?: SpillLogger;
  /** Compress spilled bytes (default false). */
  compression?: SpillCompression;
  /** Keep weak references to values spilled or read back, so a value still alive elsewhere is not read from disk again (default false). */
  weakCache?: boolean;
  /** Seconds; times activities when there is no current span, and rate-limits logs. Default monotonic real time. */
  clock?: { now(): number };
}

const realClock = { now: () => performance.now() / 1000 };
const LOG_INTERVAL_SECONDS = 10;

/**
 * dask's SpillBuffer (zict Buffer of an LRU over a serializing file store): a Map-like
 * store that keeps the most recently used values in memory up to `target` bytes of
 * sizeof weight and spills the rest. See docs/spill.md for the exact rules.
 */
export class SpillBuffer<V = unknown> implements Iterable<[Key, V]> {
  private readonly fastTier = new FastTier();
  private readonly slowTier: SlowTier;
  private readonly metrics: SpillMetrics;
  private readonly logger: SpillLogger;
  private readonly limiter: RateLimiter;
  private readonly sizeofFn: (value: unknown) => number;
  private readonly warn = (message: string, error?: unknown): void => this.logger.warn(message, error);
  private readonly pickleErrors = new Set<Key>();
  private targetBytes: number;
  private offsetBytes = 0;
  private closed = false;

  constructor(options: SpillBufferOptions) {
    if (options === null || typeof options !== "object") throw new TypeError("SpillBuffer needs an options object with a target");
    this.targetBytes = checkBytes(options.target, "target");
    const maxSpill = options.maxSpill ?? false;
    if (maxSpill !== false) checkBytes(maxSpill, "maxSpill");
    if (options.store !== undefined && options.directory !== undefined) {
      throw new TypeError("SpillBuffer options: pass either store or directory, not both (directory is for the default file store)");
    }
    const clock = options.clock ?? realClock;
    this.logger = options.logger ?? consoleLogger;
    this.limiter = new RateLimiter(clock, LOG_INTERVAL_SECONDS);
    this.sizeofFn = options.sizeof ?? defaultSizeof;
    this.metrics = new SpillMetrics(clock);
    const compression = options.compression ?? false;
    this.slowTier = new SlowTier({
      store: options.store ?? new FileStore(options.directory === undefined ? {} : { directory: options.directory }),
      serializer: options.serializer ?? v8Serializer,
      codec: compression === false ? null : compressionCodec(compression),
      maxSpill,
      weakCache: options.weakCache ?? false,
      metrics: this.metrics,
      onDeleteError: (key, error) => {
        if (this.limiter.allow("delete")) {
          this.logger.error(`Failed to delete the spilled data of ${reprKey(key)}; it is left in the store: ${describeCause(error)}`, error);
        }
      },
    });
  }

  /** Weight threshold; changing it triggers no eviction by itself (call `evictUntilBelowTarget`). */
  get target(): number {
    return this.targetBytes;
  }

  set target(value: number) {
    this.targetBytes = checkBytes(value, "target");
  }

  /** Added to the fast weight when comparing with target (zict's offset; e.g. unmanaged memory). */
  get offset(): number {
    return this.offsetBytes;
  }

  set offset(value: number) {
    if (typeof value !== "number" || Number.isNaN(value)) throw new TypeError(`SpillBuffer offset must be a number; got ${String(value)}`);
    this.offsetBytes = value;
  }

  get maxSpill(): number | false {
    return this.slowTier.maxSpill;
  }

  set maxSpill(value: number | false) {
    this.slowTier.maxSpill = value === false ? false : checkBytes(value, "maxSpill");
  }

  /** The in-memory tier (read-only view). */
  get fast(): FastTierView {
    return this.fastTier;
  }

  /** The disk tier (read-only view). */
  get slow(): SlowTierView {
    return this.slowTier;
  }

  /** Alias of `fast` (dask's `memory`). */
  get memory(): FastTierView {
    return this.fastTier;
  }

  /** Alias of `slow` (dask's `disk`). */
  get disk(): SlowTierView {
    return this.slowTier;
  }

  /** What is on disk: sizeof weight and serialized bytes. */
  get spilledTotal(): SpilledSize {
    return this.slowTier.totalWeight;
  }

  /** Every spill activity ever recorded, keyed `"activity/unit"` (a snapshot). */
  get cumulativeMetrics(): Map<string, number> {
    return this.metrics.cumulative();
  }

  /** Keys whose serialization failure during an eviction was logged (cleared when the key is set again or deleted). */
  get loggedSerializeErrors(): ReadonlySet<Key> {
    return this.pickleErrors;
  }

  get size(): number {
    return this.fastTier.size + this.slowTier.size;
  }

  has(key: Key): boolean {
    return this.fastTier.has(key) || this.slowTier.has(key);
  }

  /**
   * Stores `value` at the most-recently-used end, dropping any older value of `key`
   * (a spilled copy included), then evicts until below target. A value heavier than
   * target goes straight to disk. Does not throw for spill failures (they are logged and
   * the value stays in memory), except when a value heavier than target cannot be
   * serialized: then the key is forgotten and `SpillSerializeError` is thrown.
   */
  set(key: Key, value: V): this {
    if (typeof key !== "string") throw new TypeError(`SpillBuffer keys are strings; got ${typeof key} ${String(key)}`);
    const weight = safeSizeof(value, this.sizeofFn, this.warn, key);
    if (this.pickleErrors.size > 0) this.pickleErrors.delete(key);
    if (!this.fastTier.remove(key) && this.slowTier.size > 0) this.slowTier.delete(key);
    this.fastTier.insert(key, value, weight, this.targetBytes);
    try {
      this.evictUntilBelowTargetOrThrow();
    } catch (error) {
      if (weight > this.targetBytes && this.fastTier.has(key) && !this.fastTier.isHeavy(key)) {
        // zict: the heavy key just inserted could not be evicted, so make room by
        // evicting everything else instead; the first failure ends that attempt.
        this.evictAllOthersQuietly();
      }
      this.handleSpillError(error, key);
    }
    return this;
  }

  /**
   * The value of `key`. A hit in memory moves it to the most-recently-used end and
   * records memory-read; a spilled value is read back and, unless heavier than target,
   * moved back into memory (which may evict others). Throws `SpillKeyError` when absent
   * and `SpillReadError` when the spilled copy cannot be read (the key stays spilled).
   */
  get(key: Key): V {
    const entry = this.fastTier.touch(key);
    if (entry !== undefined) {
      this.metrics.memoryRead(entry.weight);
      return entry.value as V;
    }
    if (!this.slowTier.has(key)) throw new SpillKeyError(key);
    const value = this.slowTier.read(key);
    const weight = safeSizeof(value, this.sizeofFn, this.warn, key);
    if (weight <= this.targetBytes) {
      this.fastTier.insert(key, value, weight, this.targetBytes);
      this.slowTier.delete(key);
    }
    try {
      this.evictUntilBelowTargetOrThrow();
    } catch (error) {
      this.handleSpillError(error, null);
    }
    return value as V;
  }

  /** Removes `key` from whichever tier holds it, never reading it back. True when it was there. */
  delete(key: Key): boolean {
    if (this.fastTier.remove(key) || this.slowTier.delete(key)) {
      if (this.pickleErrors.size > 0) this.pickleErrors.delete(key);
      return true;
    }
    return false;
  }

  /** Not supported, as in dask: `pop(key)` used as a discard would read a spilled value back from disk. */
  pop(key: Key): never {
    throw new Error(
      `SpillBuffer.pop(${reprKey(key)}) is not supported: used as a way to discard a key it would read a spilled value back from disk first; use delete(key) instead`,
    );
  }

  /**
   * Spills one value (the oldest heavy key, else the least recently used), even below
   * target — for a memory monitor. Returns its sizeof weight, or -1 when nothing could be
   * evicted (empty, or the spill failed: logged, the value stays in memory). Never throws.
   */
  evict(): number {
    if (this.fastTier.size === 0) return -1;
    try {
      return this.evictOne();
    } catch (error) {
      try {
        this.handleSpillError(error, null);
      } catch (unexpected) {
        this.logger.error(`Unexpected error while evicting: ${describeCause(unexpected)}`, unexpected);
      }
      return -1;
    }
  }

  /** Evicts until the fast weight plus offset is at most target; spill failures are handled as in `set`. */
  evictUntilBelowTarget(): void {
    try {
      this.evictUntilBelowTargetOrThrow();
    } catch (error) {
      this.handleSpillError(error, null);
    }
  }

  /** Keys in memory (least recently used first), then spilled keys; touches nothing. */
  *keys(): IterableIterator<Key> {
    yield* this.fastTier.keys();
    yield* this.slowTier.keys();
  }

  /** Values in memory, then spilled values read from the store (recorded as disk-read), without unspilling or touching the LRU. */
  *values(): IterableIterator<V> {
    for (const value of this.fastTier.values()) yield value as V;
    for (const key of [...this.slowTier.keys()]) {
      if (this.slowTier.has(key)) yield this.slowTier.read(key) as V;
    }
  }

  /** `[key, value]` pairs like `values()`. */
  *entries(): IterableIterator<[Key, V]> {
    for (const key of [...this.fastTier.keys()]) {
      const entry = this.fastTier.entry(key);
      if (entry !== undefined) yield [key, entry.value as V];
    }
    for (const key of [...this.slowTier.keys()]) {
      if (this.slowTier.has(key)) yield [key, this.slowTier.read(key) as V];
    }
  }

  [Symbol.iterator](): IterableIterator<[Key, V]> {
    return this.entries();
  }

  /** Stops evicting and closes the store (the default one removes its directory). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.slowTier.close();
  }

  private evictUntilBelowTargetOrThrow(): void {
    while (!this.closed && this.fastTier.totalWeight + this.offsetBytes > this.targetBytes && this.fastTier.size > 0) {
      this.evictOne();
    }
  }

  // Write first, then forget: if the spill throws, the key is still in memory.
  private evictOne(): number {
    const key = this.fastTier.nextVictim()!;
    const entry = this.fastTier.entry(key)!;
    this.fastTier.unmarkHeavy(key);
    this.slowTier.put(key, entry.value, entry.weight);
    this.fastTier.remove(key);
    return entry.weight;
  }

  private evictAllOthersQuietly(): void {
    try {
      while (this.fastTier.size > 1) this.evictOne();
    } catch {
      // zict swallows this one and re-raises the original failure, which is handled next.
    }
  }

  /** dask's `_handle_errors`: `key` is the key being set (null for get/evict). */
  private handleSpillError(error: unknown, key: Key | null): void {
    if (error instanceof MaxSpillExceeded) {
      if (this.limiter.allow("max-spill")) {
        this.logger.warn(`Spill file on disk reached capacity; keeping data in memory (${error.message})`, error);
      }
      return;
    }
    if (error instanceof StoreWriteFailure) {
      if (this.limiter.allow("write")) {
        this.logger.error(`Spill to disk failed; keeping data in memory (${reprKey(error.key)}: ${describeCause(error.cause)})`, error.cause);
      }
      return;
    }
    if (error instanceof SerializeFailure) {
      if (error.key === key) {
        this.delete(key);
        throw new SpillSerializeError(key, { cause: error.cause });
      }
      if (!this.pickleErrors.has(error.key)) {
        this.logger.error(`Failed to serialize ${reprKey(error.key)}; keeping it in memory: ${describeCause(error.cause)}`, error.cause);
        this.pickleErrors.add(error.key);
      }
      return;
    }
    throw error;
  }
}

function checkBytes(value: unknown, name: string): number {
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new TypeError(`SpillBuffer ${name} must be a number of bytes ≥ 0; got ${String(value)}`);
  }
  return value;
}
