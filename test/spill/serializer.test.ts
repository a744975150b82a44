import * as v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { v8Serializer } from "../../src/spill/index.js";

describe("v8Serializer", () => {
  it("round-trips structured values through node:v8", () => {
    const value = { a: [1, "two", 3n], m: new Map([["k", new Set([1])]]), d: new Date(5), nested: { buf: Buffer.from("hi") } };
    const bytes = v8Serializer.dump(value);
    expect(bytes[0]).toBe(0xff);
    expect(v8Serializer.load(bytes)).toEqual(value);
  });

  it("writes the header of a binary value with zeroed reserved bytes, whatever Node's shared pool held", () => {
    const slice = Buffer.allocUnsafe(8);
    new Uint8Array(slice.buffer).fill(0xee, slice.byteOffset + 8); // dirty the rest of the pool the next header comes from
    const [header, payload] = v8Serializer.dumpFrames!(new Int16Array([7])) as [Uint8Array, Uint8Array];
    expect([...header]).toEqual([0x01, 4, 0, 0, 0, 0, 0, 0]);
    expect([...v8Serializer.dump(new Int16Array([7]))]).toEqual([...header, ...payload]);
  });

  it("writes binary values raw and brings back the same type and contents, aligned", () => {
    const backing = new ArrayBuffer(64 + 3);
    const values: ArrayBufferView[] = [
      Buffer.from("buffer bytes"),
      new Uint8Array([1, 2, 3]),
      new Uint8ClampedArray([255, 0]),
      new Int8Array([-1, 1]),
      new Int16Array([-300, 300]),
      new Uint16Array([65535]),
      new Int32Array([-1e9]),
      new Uint32Array([4e9]),
      new Float32Array([1.5]),
      new Float64Array([Math.PI, -0]),
      new BigInt64Array([-5n]),
      new BigUint64Array([2n ** 63n]),
      new Uint8Array(backing, 3, 10).fill(7), // unaligned view of a larger buffer
      new Uint8Array(0),
    ];
    for (const value of values) {
      const bytes = v8Serializer.dump(value);
      expect(bytes[0]).toBe(0x01);
      expect(bytes.byteLength).toBe(8 + value.byteLength);
      const back = v8Serializer.load(bytes) as ArrayBufferView;
      expect(Object.getPrototypeOf(back)).toBe(Object.getPrototypeOf(value));
      expect(back).toEqual(value);
      expect(back.byteOffset % 8).toBe(0);
      // The value does not alias the stored bytes.
      if (back.byteLength > 0) {
        new Uint8Array(back.buffer, back.byteOffset, back.byteLength).fill(9);
        expect(bytes[8]).not.toBe(9);
      }
    }
  });

  it("subclasses and other views take the V8 path", () => {
    class Tagged extends Uint8Array {}
    const dv = new DataView(new ArrayBuffer(4));
    expect(v8Serializer.dump(new Tagged(2))[0]).toBe(0xff);
    expect(v8Serializer.dump(dv)[0]).toBe(0xff);
    expect(v8Serializer.load(v8Serializer.dump(dv))).toBeInstanceOf(DataView);
  });

  it("rejects bytes in neither format with a clear error", () => {
    expect(() => v8Serializer.load(new Uint8Array([7, 7, 7]))).toThrow(/neither V8 nor raw binary format \(first byte 7\)/);
    expect(() => v8Serializer.load(new Uint8Array(0))).toThrow(/first byte missing/);
    expect(() => v8Serializer.load(new Uint8Array([1, 99, 0, 0, 0, 0, 0, 0]))).toThrow(/unknown binary type code 99/);
    expect(() => v8Serializer.load(new Uint8Array([1, 9, 0, 0, 0, 0, 0, 0, 1, 2, 3]))).toThrow(/not a whole number of elements/);
    // and V8's own format is still what plain v8.serialize produces
    expect(v8Serializer.load(v8.serialize({ x: 1 }))).toEqual({ x: 1 });
  });
});
