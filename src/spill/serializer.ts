import * as v8 from "node:v8";
import * as zlib from "node:zlib";

/** Turns values into bytes and back for the slow tier (dask's serialize_bytelist / deserialize_bytes). May throw. */
export interface Serializer {
  dump(value: unknown): Uint8Array;
  load(bytes: Uint8Array): unknown;
  /**
   * Optional: the same bytes as `dump`, as frames to be written back to back, so that a
   * store with `writeFrames` can write a large binary value without copying it first.
   */
  dumpFrames?(value: unknown): readonly Uint8Array[];
  /**
   * Optional: the value of frames that `dumpFrames` produced, read back into fresh memory
   * that belongs to the caller (a store's `readFrames`), so the value may be built on
   * them without a copy. Must accept the same bytes as a single frame too (what a store
   * returns for a file of the wrong length, or for bytes written with `dump`).
   */
  loadFrames?(frames: readonly Uint8Array[]): unknown;
}

// Binary values (Buffers and typed arrays, the bulk of what gets spilled) skip V8's
// serializer, whose growing output buffer costs several copies per value: they are written
// as an 8-byte header (so the payload stays aligned for any element size) plus their raw
// bytes. Every V8 payload starts with its version tag 0xFF, so the first byte tells the two
// formats apart.
const RAW_FORMAT = 0x01;
const V8_VERSION_TAG = 0xff;
const RAW_HEADER_BYTES = 8;

type TypedArrayConstructor =
  | Uint8ArrayConstructor
  | Uint8ClampedArrayConstructor
  | Int8ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor;

/** Index = type code in the raw header; 0 is Buffer. */
const RAW_TYPES: readonly (TypedArrayConstructor | null)[] = [
  null,
  Uint8Array,
  Uint8ClampedArray,
  Int8Array,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];

function rawTypeCode(value: ArrayBufferView): number {
  if (Buffer.isBuffer(value)) return 0;
  const proto: unknown = Object.getPrototypeOf(value);
  for (let code = 1; code < RAW_TYPES.length; code++) {
    if (RAW_TYPES[code]!.prototype === proto) return code;
  }
  return -1;
}

// A slice of Node's shared Buffer pool: a small typed array of its own would be moved off
// the V8 heap (a native allocation) when a store hands it to a write system call.
function rawHeader(code: number): Uint8Array {
  const header = Buffer.allocUnsafe(RAW_HEADER_BYTES).fill(0);
  header[0] = RAW_FORMAT;
  header[1] = code;
  return header;
}

function rawBytes(value: ArrayBufferView): Uint8Array {
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

function dumpRaw(value: ArrayBufferView, code: number): Uint8Array {
  const out = Buffer.allocUnsafe(RAW_HEADER_BYTES + value.byteLength);
  out.set(rawHeader(code), 0);
  out.set(rawBytes(value), RAW_HEADER_BYTES);
  return out;
}

function loadRaw(bytes: Uint8Array): unknown {
  // A copy, never a view: the store may keep these bytes (an in-memory store does), and a
  // caller mutating the value it got back must not change what is "on disk".
  return adoptRaw(bytes[1]!, Uint8Array.prototype.slice.call(bytes, RAW_HEADER_BYTES));
}

/** True when `bytes` is the whole of its own ArrayBuffer, so a value built on it is a fresh, aligned array. */
function ownsItsBuffer(bytes: Uint8Array): bytes is Uint8Array<ArrayBuffer> {
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength && bytes.buffer instanceof ArrayBuffer;
}

/** The typed array (or Buffer) of type `code` over `payload`'s memory, which the caller hands over. */
function adoptRaw(code: number, payload: Uint8Array<ArrayBuffer>): unknown {
  if (code === 0) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const type = RAW_TYPES[code];
  if (type === undefined || type === null) throw new Error(`unknown binary type code ${code} in spilled data`);
  if (payload.byteLength % type.BYTES_PER_ELEMENT !== 0) {
    throw new Error(`spilled ${type.name} payload of ${payload.byteLength} bytes is not a whole number of elements`);
  }
  return new type(payload.buffer, payload.byteOffset, payload.byteLength / type.BYTES_PER_ELEMENT);
}

/**
 * The default serializer: V8's structured clone format (`node:v8`), which keeps Maps,
 * Sets, Dates, bigints, typed arrays and cycles, loses class prototypes (instances come
 * back as plain objects) and throws for functions and symbols. Buffers and typed arrays
 * take a raw fast path (same result; no copy at all through `dumpFrames` + a store's
 * `writeFrames`, one copy through `dump`).
 */
export const v8Serializer: Serializer = {
  dump(value) {
    if (ArrayBuffer.isView(value)) {
      const code = rawTypeCode(value);
      if (code >= 0) return dumpRaw(value, code);
    }
    return v8.serialize(value);
  },
  // Binary values as [header, the value's own bytes]: no copy before the write.
  dumpFrames(value) {
    if (ArrayBuffer.isView(value)) {
      const code = rawTypeCode(value);
      if (code >= 0) return [rawHeader(code), rawBytes(value)];
    }
    return [v8.serialize(value)];
  },
  load(bytes) {
    if (bytes.byteLength >= RAW_HEADER_BYTES && bytes[0] === RAW_FORMAT) return loadRaw(bytes);
    if (bytes.byteLength === 0 || bytes[0] !== V8_VERSION_TAG) {
      throw new Error(`spilled data is neither V8 nor raw binary format (first byte ${bytes[0] ?? "missing"})`);
    }
    return v8.deserialize(bytes);
  },
  // A raw value's payload frame, freshly read into its own ArrayBuffer, becomes the value.
  loadFrames(frames) {
    if (frames.length === 2) {
      const [header, payload] = frames as readonly [Uint8Array, Uint8Array];
      if (header.byteLength === RAW_HEADER_BYTES && header[0] === RAW_FORMAT && ownsItsBuffer(payload)) {
        return adoptRaw(header[1]!, payload);
      }
    }
    return v8Serializer.load(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  },
};

/** Optional compression of the serialized bytes (dask's `spill-compression`); false = none. */
export type SpillCompression = "gzip" | "deflate" | "brotli" | false;

export interface Codec {
  compress(bytes: Uint8Array): Uint8Array;
  decompress(bytes: Uint8Array): Uint8Array;
}

// Spilling sits on the task's critical path, so favour speed over ratio (dask defaults to lz4).
const ZLIB_LEVEL = 1;
const BROTLI_QUALITY = 4;

export function compressionCodec(kind: Exclude<SpillCompression, false>): Codec {
  switch (kind) {
    case "gzip":
      return {
        compress: (b) => zlib.gzipSync(b, { level: ZLIB_LEVEL }),
        decompress: (b) => zlib.gunzipSync(b),
      };
    case "deflate":
      return {
        compress: (b) => zlib.deflateSync(b, { level: ZLIB_LEVEL }),
        decompress: (b) => zlib.inflateSync(b),
      };
    case "brotli":
      return {
        compress: (b) =>
          zlib.brotliCompressSync(b, {
            params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.byteLength },
          }),
        decompress: (b) => zlib.brotliDecompressSync(b),
      };
  }
  throw new TypeError(`unknown spill compression ${JSON.stringify(kind)}; choose "gzip", "deflate", "brotli" or false`);
}
