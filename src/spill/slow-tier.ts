import { MaxSpillExceeded, SerializeFailure, SpillReadError, StoreWriteFailure, describeCause } from "./errors.js";
import type { Key } from "./key.js";
import type { SpillMetrics } from "./metrics.js";
import type { Codec, Serializer } from "./serializer.js";
import { modelledWriteSeconds, unpackFramesRead, unpackRead, type SpillStore } from "./store.js";

function byteLengthOf(bytes: Uint8Array | readonly Uint8Array[]): number {
  if (bytes instanceof Uint8Array) return bytes.byteLength;
  let total = 0;
  for (const frame of bytes) total += frame.byteLength;
  return total;
}

function checkLength(key: Key, held: number, written: number): void {
  if (held !== written) {
    throw new SpillReadError(key, `the spill file holds ${held} bytes but ${written} were written (truncated or replaced)`);
  }
}

function checkSerialized(bytes: unknown, framed: boolean): void {
  if (framed) {
    if (!Array.isArray(bytes) || !bytes.every((frame) => frame instanceof Uint8Array)) {
      throw new TypeError("serializer.dumpFrames returned something other than an array of Uint8Arrays");
    }
  } else if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`serializer.dump returned ${typeof bytes}; expected a Uint8Array`);
  }
}

/** Size of a spilled key/value pair: sizeof in memory, and bytes on disk. */
export interface SpilledSize {
  readonly memory: number;
  readonly disk: number;
}

/** Read-only view of the disk tier (dask's `Slow`). */
export interface SlowTierView {
  has(key: Key): boolean;
  readonly size: number;
  readonly weightByKey: ReadonlyMap<Key, SpilledSize>;
  readonly totalWeight: SpilledSize;
  /** Maximum bytes on disk, false = unlimited. */
  readonly maxSpill: number | false;
  keys(): IterableIterator<Key>;
}

export interface SlowTierOptions {
  store: SpillStore;
  serializer: Serializer;
  codec: Codec | null;
  maxSpill: number | false;
  weakCache: boolean;
  metrics: SpillMetrics;
  /** Where failures that lose nothing (a leftover file) are reported. */
  onDeleteError(key: Key, error: unknown): void;
}

/**
 * dask's `Slow` (zict Func + File) plus the optional weak cache (zict Cache over a
 * WeakValueMapping): serialize → compress → maxSpill check → store write, and back.
 */
export class SlowTier implements SlowTierView {
  readonly weightByKey = new Map<Key, SpilledSize>();
  private memoryTotal = 0;
  private diskTotal = 0;
  private readonly cache: Map<Key, WeakRef<object>> | null;
  /**
   * Frame lengths of the keys written as several frames, when the store can read frames
   * back and the serializer can load them: such a value is read without any copy. Two
   * frames (a header and a binary value's bytes: the common case) are kept as the first
   * one's length alone, which saves an array per spilled key.
   */
  private readonly frameLengths: Map<Key, number | readonly number[]> | null;

  constructor(private readonly options: SlowTierOptions) {
    this.cache = options.weakCache ? new Map() : null;
    const { store, serializer, codec } = options;
    const framesRoundTrip = codec === null && store.writeFrames !== undefined && store.readFrames !== undefined && serializer.dumpFrames !== undefined && serializer.loadFrames !== undefined;
    this.frameLengths = framesRoundTrip ? new Map() : null;
  }

  get maxSpill(): number | false {
    return this.options.maxSpill;
  }

  set maxSpill(value: number | false) {
    this.options.maxSpill = value;
  }

  get size(): number {
    return this.weightByKey.size;
  }

  get totalWeight(): SpilledSize {
    return { memory: this.memoryTotal, disk: this.diskTotal };
  }

  has(key: Key): boolean {
    return this.weightByKey.has(key);
  }

  keys(): IterableIterator<Key> {
    return this.weightByKey.keys();
  }

  /**
   * Spills `value`. Throws SerializeFailure (dump or compress failed), MaxSpillExceeded
   * (checked after serializing, as dask does) or StoreWriteFailure; on any throw nothing
   * about `key` changed here.
   */
  put(key: Key, value: unknown, memoryWeight: number): void {
    const { metrics, serializer, codec, store } = this.options;
    // Frames skip a copy of large binary values, when serializer and store both support them.
    const framed = codec === null && serializer.dumpFrames !== undefined && store.writeFrames !== undefined;
    let bytes: Uint8Array | readonly Uint8Array[];
    const serializing = metrics.begin("serialize");
    try {
      bytes = framed ? serializer.dumpFrames!(value) : serializer.dump(value);
      checkSerialized(bytes, framed);
    } catch (cause) {
      throw new SerializeFailure(key, { cause });
    } finally {
      metrics.end(serializing);
    }
    if (codec !== null) {
      const compressing = metrics.begin("compress");
      try {
        bytes = codec.compress(bytes as Uint8Array);
      } catch (cause) {
        throw new SerializeFailure(key, { cause });
      } finally {
        metrics.end(compressing);
      }
    }
    this.write(key, value, memoryWeight, bytes);
  }

  // The maxSpill check (after serializing, as dask does), the timed store write, the bookkeeping.
  private write(key: Key, value: unknown, memoryWeight: number, bytes: Uint8Array | readonly Uint8Array[]): void {
    const diskBytes = byteLengthOf(bytes);
    const maxSpill = this.options.maxSpill;
    if (maxSpill !== false && this.diskTotal + diskBytes > maxSpill) {
      throw new MaxSpillExceeded(key, diskBytes, maxSpill);
    }
    const metrics = this.options.metrics;
    const writing = metrics.begin("disk-write");
    let modelled: number | undefined;
    let written = false;
    try {
      const store = this.options.store;
      modelled = modelledWriteSeconds(bytes instanceof Uint8Array ? store.write(key, bytes) : store.writeFrames!(key, bytes));
      written = true;
    } catch (cause) {
      throw new StoreWriteFailure(key, { cause });
    } finally {
      metrics.end(writing, modelled, written ? diskBytes : undefined);
    }
    this.weightByKey.set(key, Object.freeze({ memory: memoryWeight, disk: diskBytes }));
    if (this.frameLengths !== null) {
      if (bytes instanceof Uint8Array || bytes.length < 2) this.frameLengths.delete(key);
      else this.frameLengths.set(key, bytes.length === 2 ? bytes[0]!.byteLength : bytes.map((frame) => frame.byteLength));
    }
    this.memoryTotal += memoryWeight;
    this.diskTotal += diskBytes;
    this.remember(key, value);
  }

  /**
   * The value of a spilled key (the weak cache first: a hit costs no disk read). Throws
   * SpillReadError naming the key when the store, the length check, decompression or
   * deserialization fails; the key stays spilled.
   */
  read(key: Key): unknown {
    const cached = this.cache?.get(key)?.deref();
    if (cached !== undefined) return cached;
    const weight = this.weightByKey.get(key);
    if (weight === undefined) throw new SpillReadError(key, "the key is not in the slow tier");
    const { metrics, serializer, codec, store } = this.options;

    const frameLengths = this.frameLengths?.get(key);
    if (frameLengths !== undefined) {
      return this.readFrames(key, weight.disk, typeof frameLengths === "number" ? [frameLengths, weight.disk - frameLengths] : frameLengths);
    }

    const reading = metrics.begin("disk-read");
    let bytes: Uint8Array | undefined;
    let modelled: number | undefined;
    try {
      ({ bytes, seconds: modelled } = unpackRead(store.read(key, weight.disk)));
    } catch (cause) {
      throw new SpillReadError(key, `the spill store failed: ${describeCause(cause)}`, { cause });
    } finally {
      metrics.end(reading, modelled, bytes?.byteLength);
    }
    checkLength(key, bytes.byteLength, weight.disk);
    if (codec !== null) {
      const decompressing = metrics.begin("decompress");
      try {
        bytes = codec.decompress(bytes);
      } catch (cause) {
        throw new SpillReadError(key, `the spilled bytes do not decompress: ${describeCause(cause)}`, { cause });
      } finally {
        metrics.end(decompressing);
      }
    }
    return this.deserialize(key, () => serializer.load(bytes));
  }

  // The frames of a framed write read back into fresh memory, loaded without a copy.
  private readFrames(key: Key, diskBytes: number, frameLengths: readonly number[]): unknown {
    const { metrics, serializer, store } = this.options;
    const reading = metrics.begin("disk-read");
    let frames: readonly Uint8Array[] | undefined;
    let modelled: number | undefined;
    try {
      ({ frames, seconds: modelled } = unpackFramesRead(store.readFrames!(key, frameLengths)));
    } catch (cause) {
      throw new SpillReadError(key, `the spill store failed: ${describeCause(cause)}`, { cause });
    } finally {
      metrics.end(reading, modelled, frames === undefined ? undefined : byteLengthOf(frames));
    }
    checkLength(key, byteLengthOf(frames), diskBytes);
    return this.deserialize(key, () => serializer.loadFrames!(frames));
  }

  // Loads a value read back from the store, metered as `deserialize`, and remembers it.
  private deserialize(key: Key, load: () => unknown): unknown {
    const deserializing = this.options.metrics.begin("deserialize");
    let value: unknown;
    try {
      value = load();
    } catch (cause) {
      throw new SpillReadError(key, `the spilled bytes do not deserialize: ${describeCause(cause)}`, { cause });
    } finally {
      this.options.metrics.end(deserializing);
    }
    this.remember(key, value);
    return value;
  }

  /** Forgets `key` (a failing store delete is reported, not thrown: the value is not needed any more). */
  delete(key: Key): boolean {
    const weight = this.weightByKey.get(key);
    if (weight === undefined) return false;
    this.weightByKey.delete(key);
    this.frameLengths?.delete(key);
    this.memoryTotal -= weight.memory;
    this.diskTotal -= weight.disk;
    this.cache?.delete(key);
    try {
      this.options.store.delete(key);
    } catch (error) {
      this.options.onDeleteError(key, error);
    }
    return true;
  }

  close(): void {
    this.cache?.clear();
    this.options.store.close?.();
  }

  // Only objects can be weakly referenced, like dask's WeakValueMapping skipping str/bytes/int.
  private remember(key: Key, value: unknown): void {
    if (this.cache === null) return;
    if ((typeof value === "object" && value !== null) || typeof value === "function") {
      this.cache.set(key, new WeakRef(value));
    } else {
      this.cache.delete(key);
    }
  }
}
