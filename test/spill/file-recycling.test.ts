// The FileStore's recycling of deleted keys' files (spares), its reads of known lengths,
// and the zero-copy read path (readFrames + loadFrames).
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore, SpillBuffer, SpillReadError, spillFileName, v8Serializer, type SpillStore } from "../../src/spill/index.js";
import { bytes, checkFileStoreAgainstModel, openFdCount, FakeClock, MemoryStore, RecordingLogger, fileStoreFixture, keyFiles } from "./helpers.js";

const fixture = fileStoreFixture("spill-recycle-test-");
const { open } = fixture;



function otherFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.startsWith("."));
}

describe("FileStore recycling of deleted keys' files", () => {
  it("a recycled file is never readable as the key it held, whether it grows or shrinks", () => {
    const store = open();
    store.write("a", bytes(1000, 1));
    const inode = fs.statSync(store.filePath("a")).ino;
    store.delete("a");
    expect(() => store.read("a")).toThrow(/ENOENT/);
    expect(keyFiles(store.path)).toEqual([]);
    expect(store.spareFiles).toEqual({ files: 1, bytes: 1000 });

    store.write("b", bytes(10, 2)); // shorter: the spare is cut to length
    expect(fs.readdirSync(store.path)).toEqual([spillFileName("b")]);
    expect(fs.statSync(store.filePath("b")).ino).toBe(inode); // the same file, recycled
    expect([...store.read("b")]).toEqual(Array(10).fill(2));
    expect(() => store.read("a")).toThrow(/ENOENT/);
    expect(store.spareFiles).toEqual({ files: 0, bytes: 0 });

    store.delete("b");
    store.write("c", bytes(3000, 3)); // longer
    expect(fs.statSync(store.filePath("c")).ino).toBe(inode);
    expect(store.read("c", 3000)).toEqual(Buffer.from(bytes(3000, 3)));
    expect(() => store.read("a")).toThrow(/ENOENT/);
    expect(() => store.read("b")).toThrow(/ENOENT/);
  });

  it("a file read and then deleted (a value moved back to memory) is the one the next write reuses", () => {
    const store = open();
    store.writeFrames("a", [bytes(8, 1), bytes(100, 7)]);
    const inode = fs.statSync(store.filePath("a")).ino;
    const frames = store.readFrames("a", [8, 100]);
    expect(frames.map((f) => [...f])).toEqual([Array(8).fill(1), Array(100).fill(7)]);
    store.delete("a");
    expect(() => store.read("a")).toThrow(/ENOENT/);
    store.writeFrames("b", [bytes(8, 2), bytes(50, 9)]);
    expect(fs.statSync(store.filePath("b")).ino).toBe(inode);
    expect([...store.read("b", 58)]).toEqual([...Array(8).fill(2), ...Array(50).fill(9)]);
    // A read followed by something else than its delete lets the file be.
    store.read("b", 58);
    store.write("c", bytes(5, 5));
    expect([...store.read("b", 58)]).toEqual([...Array(8).fill(2), ...Array(50).fill(9)]);
  });

  it("reading a value back and deleting it leaves the file open for the next write: no open, no create", () => {
    const opened: string[] = [];
    const store = open({
      fs: {
        openSync: ((file: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode) => {
          opened.push(path.basename(String(file)));
          return fs.openSync(file, flags, mode);
        }) as typeof fs.openSync,
      },
    });
    store.write("a", bytes(100, 1));
    store.read("a", 100);
    expect(opened).toEqual([expect.stringMatching(/^\.tmp-/), spillFileName("a")]);
    store.delete("a");
    store.write("b", bytes(100, 2));
    expect(opened.length).toBe(2);
    expect([...store.read("b", 100)]).toEqual(Array(100).fill(2));
  });

  it("still reads when the file cannot be opened for writing (read-only file system)", () => {
    let readOnly = false;
    const store = open({
      fs: {
        openSync: ((file: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode) => {
          if (readOnly && flags !== "r") throw Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });
          return fs.openSync(file, flags, mode);
        }) as typeof fs.openSync,
      },
    });
    store.write("a", bytes(10, 1));
    readOnly = true;
    expect([...store.read("a", 10)]).toEqual(Array(10).fill(1));
    store.delete("a");
    expect(() => store.write("b", bytes(10, 2))).toThrow(/EROFS/); // the spare is not open for writing
    readOnly = false;
    store.write("b", bytes(10, 2));
    expect([...store.read("b", 10)]).toEqual(Array(10).fill(2));
  });

  it("matches a model under any sequence of writes, reads and deletes (fast-check)", () => {
    checkFileStoreAgainstModel({
      parent: fixture.dir,
      seed: 3,
      checkFiles: (store, model) => {
        expect(keyFiles(store.path)).toEqual([...model.keys()].map(spillFileName).sort());
        expect(otherFiles(store.path).length).toBe(store.spareFiles.files);
      },
    });
  });

  it("keeps at most spareFiles files and spareBytes bytes; 0 always unlinks", () => {
    const two = open({ spareFiles: 2 });
    for (const k of ["a", "b", "c", "d"]) two.write(k, bytes(100, 1));
    for (const k of ["a", "b", "c", "d"]) two.delete(k);
    expect(two.spareFiles).toEqual({ files: 2, bytes: 200 });
    expect(fs.readdirSync(two.path).length).toBe(2);

    const small = open({ spareBytes: 150 });
    for (const k of ["a", "b"]) small.write(k, bytes(100, 1));
    for (const k of ["a", "b"]) small.delete(k);
    expect(small.spareFiles).toEqual({ files: 1, bytes: 100 });

    const none = open({ spareFiles: 0 });
    none.write("a", bytes(10, 1));
    none.read("a", 10);
    none.delete("a");
    expect(fs.readdirSync(none.path)).toEqual([]);

    expect(() => open({ spareFiles: -1 })).toThrow(/FileStore spareFiles must be an integer ≥ 0; got -1/);
    expect(() => open({ spareBytes: 1.5 })).toThrow(/FileStore spareBytes must be an integer ≥ 0; got 1.5/);
  });

  it("close removes the directory with its spare and temp files and closes every descriptor", () => {
    const before = openFdCount();
    const store = open();
    store.write("a", bytes(10, 1));
    store.write("b", bytes(10, 2));
    store.read("a", 10);
    store.delete("a"); // a spare still open from the read
    store.read("b", 10); // a descriptor kept for a delete that does not come
    expect(otherFiles(store.path).length).toBe(1);
    store.close();
    expect(fs.existsSync(store.path)).toBe(false);
    if (before !== null) expect(openFdCount()).toBe(before);
    expect(() => store.write("c", bytes(1, 1))).toThrow(/is closed/);
  });
});

describe("FileStore crash in the middle of a write into a recycled file", () => {
  function crashingStore(stage: "write" | "rename") {
    const crash = new Error(`simulated crash during ${stage}`);
    const state = { crashing: false };
    const store = open({
      fs: {
        writevSync: ((fd: number, buffers: Uint8Array[], position?: number) => {
          // Half of the first frame reaches the file, then the process "dies".
          if (state.crashing && stage === "write") {
            fs.writeSync(fd, buffers[0]!, 0, Math.ceil(buffers[0]!.byteLength / 2), position ?? null);
            throw crash;
          }
          return fs.writevSync(fd, buffers, position);
        }) as typeof fs.writevSync,
        renameSync: (from, to) => {
          // Renames into a key's name crash; a delete's rename to a spare name does not.
          if (state.crashing && stage === "rename" && !path.basename(String(to)).startsWith(".")) throw crash;
          fs.renameSync(from, to);
        },
        // A crash runs no cleanup: keep whatever was written to look at it.
        unlinkSync: (file) => {
          if (!state.crashing) fs.unlinkSync(file);
        },
      },
    });
    return { store, crash, state };
  }

  for (const stage of ["write", "rename"] as const) {
    it(`during the ${stage}: the key keeps its old bytes or has none; the torn file is only a spare's temp name`, () => {
      const { store, crash, state } = crashingStore(stage);
      store.writeFrames("k", [bytes(8, 1), bytes(8, 1)]);
      store.writeFrames("gone", [bytes(8, 4), bytes(200, 4)]);
      store.readFrames("gone", [8, 200]);
      store.delete("gone"); // its file becomes the spare the next write recycles
      state.crashing = true;
      expect(() => store.writeFrames("k", [bytes(8, 2), bytes(300, 2)])).toThrow(crash);
      expect(() => store.writeFrames("new", [bytes(8, 3), bytes(8, 3)])).toThrow(crash);
      state.crashing = false;
      expect([...store.read("k")]).toEqual(Array(16).fill(1));
      expect(() => store.read("new")).toThrow(/ENOENT/);
      expect(() => store.read("gone")).toThrow(/ENOENT/);
      expect(keyFiles(store.path)).toEqual([spillFileName("k")]);
      // The recycled spare (torn or complete) and a new temp file: never under a key's name.
      expect(otherFiles(store.path).length).toBe(2);
      // Neither is handed out again: it is not known to be whole.
      expect(store.spareFiles.files).toBe(0);
    });
  }

  it("a failed write into a recycled file removes it (disk full)", () => {
    let full = false;
    const enospc = (): never => {
      throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    };
    const store = open({
      fs: {
        writevSync: ((...args: Parameters<typeof fs.writevSync>) => (full ? enospc() : fs.writevSync(...args))) as typeof fs.writevSync,
        writeSync: ((fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null) =>
          full ? enospc() : fs.writeSync(fd, buffer, offset, length, position)) as typeof fs.writeSync,
      },
    });
    store.write("a", bytes(100, 1));
    store.read("a", 100);
    store.delete("a");
    full = true;
    expect(() => store.write("b", bytes(50, 2))).toThrow(/ENOSPC/);
    expect(fs.readdirSync(store.path)).toEqual([]);
    expect(store.spareFiles.files).toBe(0);
    full = false;
    store.write("b", bytes(50, 2));
    expect([...store.read("b", 50)]).toEqual(Array(50).fill(2));
  });
});

describe("FileStore reads of a known length", () => {
  it("returns frames in fresh ArrayBuffers of their own, finishing short reads", () => {
    const store = open({
      // At most 3 bytes per call, like an interrupted read.
      fs: { readvSync: ((fd: number, buffers: Uint8Array[], position?: number) => fs.readSync(fd, buffers[0]!, 0, Math.min(3, buffers[0]!.byteLength), position ?? null)) as typeof fs.readvSync },
    });
    store.writeFrames("k", [new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), new Uint8Array([9, 10, 11, 12, 13])]);
    const frames = store.readFrames("k", [8, 5]);
    expect(frames.map((f) => [...f])).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8],
      [9, 10, 11, 12, 13],
    ]);
    for (const frame of frames) {
      expect(frame.byteOffset).toBe(0);
      expect(frame.buffer.byteLength).toBe(frame.byteLength);
    }
    expect(store.readFrames("k", [13]).map((f) => f.byteLength)).toEqual([13]);
    store.write("empty", new Uint8Array(0));
    expect(store.read("empty", 0).byteLength).toBe(0);
  });

  it("returns the whole file as one frame when its length is not the one written", () => {
    const store = open();
    store.writeFrames("k", [bytes(8, 1), bytes(8, 2)]);
    fs.writeFileSync(store.filePath("k"), bytes(20, 9)); // longer
    expect(store.readFrames("k", [8, 8]).map((f) => [...f])).toEqual([Array(20).fill(9)]);
    expect([...store.read("k", 16)]).toEqual(Array(20).fill(9));
    fs.writeFileSync(store.filePath("k"), bytes(3, 7)); // shorter
    expect(store.readFrames("k", [8, 8]).map((f) => [...f])).toEqual([[7, 7, 7]]);
    expect([...store.read("k")]).toEqual([7, 7, 7]);
  });
});

describe("zero-copy reads through readFrames and loadFrames", () => {
  it("v8Serializer.loadFrames adopts a payload that owns its buffer and copies one that does not", () => {
    const value = new Float64Array([1.5, -2, 3]);
    const [header, payload] = v8Serializer.dumpFrames!(value) as [Uint8Array, Uint8Array];
    const owned = new Uint8Array(payload.byteLength);
    owned.set(payload);
    const adopted = v8Serializer.loadFrames!([header, owned]) as Float64Array;
    expect(adopted).toEqual(value);
    expect(adopted.buffer).toBe(owned.buffer);

    const shared = new Uint8Array(payload.byteLength + 16);
    shared.set(payload, 8);
    const view = shared.subarray(8, 8 + payload.byteLength);
    const copied = v8Serializer.loadFrames!([header, view]) as Float64Array;
    expect(copied).toEqual(value);
    expect(copied.buffer).not.toBe(shared.buffer);

    const buffer = Buffer.from("bytes");
    const [bh, bp] = v8Serializer.dumpFrames!(buffer) as [Uint8Array, Uint8Array];
    expect(v8Serializer.loadFrames!([bh, new Uint8Array(bp)])).toEqual(buffer);
    expect(Buffer.isBuffer(v8Serializer.loadFrames!([bh, new Uint8Array(bp)]))).toBe(true);
    // One frame (a file of the wrong length, or bytes written with dump) and V8 values.
    expect(v8Serializer.loadFrames!([v8Serializer.dump(value)])).toEqual(value);
    expect(v8Serializer.loadFrames!(v8Serializer.dumpFrames!({ a: [1, 2] }))).toEqual({ a: [1, 2] });
    const badType = Uint8Array.from(header);
    badType[1] = 99;
    expect(() => v8Serializer.loadFrames!([badType, new Uint8Array(8)])).toThrow(/unknown binary type code 99/);
  });

  it("a value read back from the file store owns its memory; the store keeps none of it", () => {
    const buf = new SpillBuffer({ target: 100, directory: fixture.dir, logger: new RecordingLogger() });
    const heavy = new Float64Array(64).fill(2.5); // heavier than target: stays on disk when read
    const light = Buffer.alloc(20, 7);
    buf.set("heavy", heavy);
    buf.set("light", light);
    buf.evict();
    const first = buf.get("heavy") as Float64Array;
    expect(first).toEqual(heavy);
    expect(first.buffer.byteLength).toBe(first.byteLength);
    first.fill(0); // must not change what is on disk
    expect(buf.get("heavy")).toEqual(heavy);
    const back = buf.get("light") as Buffer;
    expect(Buffer.isBuffer(back)).toBe(true);
    expect(back).toEqual(light);
    expect(back.buffer.byteLength).toBe(20);
    expect(buf.cumulativeMetrics.get("disk-read/bytes")).toBe(2 * (8 + 512) + 28);
    buf.close();
  });

  it("a store's readFrames failure, bad result or wrong length is a SpillReadError naming the key", () => {
    class FramesStore extends MemoryStore {
      result: unknown = null;
      readFrames(_key: string, _lengths: readonly number[]): readonly Uint8Array[] {
        if (this.result instanceof Error) throw this.result;
        return this.result as readonly Uint8Array[];
      }
      writeFrames(key: string, frames: readonly Uint8Array[]): void {
        this.write(key, Buffer.concat(frames));
      }
    }
    const store = new FramesStore();
    const buf = new SpillBuffer({ target: 10, store: store as SpillStore, logger: new RecordingLogger(), clock: new FakeClock() });
    buf.set("k", new Uint8Array(40).fill(1));
    expect(buf.slow.has("k")).toBe(true);
    store.result = new Error("EIO: i/o error");
    expect(() => buf.get("k")).toThrow(/Failed to read spilled key 'k': the spill store failed: EIO: i\/o error/);
    store.result = "nonsense";
    expect(() => buf.get("k")).toThrow(/store.readFrames returned string/);
    store.result = [new Uint8Array(3)];
    expect(() => buf.get("k")).toThrow(SpillReadError);
    expect(() => buf.get("k")).toThrow(/the spill file holds 3 bytes but 48 were written/);
    const [header, payload] = v8Serializer.dumpFrames!(new Uint8Array(40).fill(1)) as [Uint8Array, Uint8Array];
    store.result = { frames: [Uint8Array.from(header), Uint8Array.from(payload)], seconds: 0.5 };
    expect(buf.get("k")).toEqual(new Uint8Array(40).fill(1));
    expect(buf.cumulativeMetrics.get("disk-read/seconds")).toBe(0.5);
    expect(buf.slow.has("k")).toBe(true); // heavier than target: stays spilled
    buf.close();
  });
});
