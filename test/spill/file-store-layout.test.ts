// The FileStore's system calls per operation (counted through an injected fs), its opt-in
// "slots" layout (no renames: an in-memory index says which file holds which key), and the
// small-frame read path.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore, SpillBuffer, spillFileName, type FileStoreFs, type FileStoreLayout, type Serializer } from "../../src/spill/index.js";
import { bytes, checkFileStoreAgainstModel, RecordingLogger, fileStoreFixture } from "./helpers.js";

const fixture = fileStoreFixture("spill-layout-test-");
const { open } = fixture;


type CallName = keyof FileStoreFs;

/** Real fs calls, each counted by name. */
function countingFs(): { fs: Partial<FileStoreFs>; calls: Map<CallName, number>; reset(): void } {
  const calls = new Map<CallName, number>();
  const names: CallName[] = ["openSync", "writeSync", "writevSync", "fsyncSync", "closeSync", "renameSync", "ftruncateSync", "readFileSync", "readvSync", "readSync", "fstatSync", "unlinkSync"];
  const counted: Partial<FileStoreFs> = {};
  for (const name of names) {
    const real = fs[name] as (...args: unknown[]) => unknown;
    (counted as Record<string, unknown>)[name] = (...args: unknown[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return real(...args);
    };
  }
  return { fs: counted, calls, reset: () => calls.clear() };
}

describe("FileStore system calls per operation", () => {
  // What the spill-heavy workload does 19,312 times: a value is read back into memory (its
  // file read, then deleted) and another one is evicted to disk.
  function readBackAndEvict(layout: FileStoreLayout): Map<CallName, number> {
    const counter = countingFs();
    const buf = new SpillBuffer({ target: 600, store: open({ layout, fs: counter.fs }), logger: new RecordingLogger() });
    buf.set("a", Buffer.alloc(500, 1));
    buf.set("b", Buffer.alloc(500, 2)); // a is evicted: its file is created
    counter.reset();
    expect(buf.get("a")).toEqual(Buffer.alloc(500, 1)); // a back in memory, b evicted
    expect(buf.slow.has("b")).toBe(true);
    expect(buf.fast.has("a")).toBe(true);
    return new Map(counter.calls);
  }

  it('layout "keys": open, readv + probe readv, rename away, writev, close, rename into place', () => {
    expect(Object.fromEntries(readBackAndEvict("keys"))).toEqual({ openSync: 1, readvSync: 2, renameSync: 2, writevSync: 1, closeSync: 1 });
  });

  it('layout "slots": the same without the two renames', () => {
    expect(Object.fromEntries(readBackAndEvict("slots"))).toEqual({ openSync: 1, readvSync: 2, writevSync: 1, closeSync: 1 });
  });

  it("a first spill creates the file with O_EXCL; the key-named layout renames it into place", () => {
    for (const layout of ["keys", "slots"] as const) {
      const counter = countingFs();
      const store = open({ layout, fs: counter.fs });
      store.writeFrames("k", [bytes(8, 1), bytes(100, 2)]);
      expect(Object.fromEntries(counter.calls)).toEqual({ openSync: 1, writevSync: 1, closeSync: 1, ...(layout === "keys" ? { renameSync: 1 } : {}) });
    }
  });
});

describe("spillFileName hashing", () => {
  it("is sha256 of the key's UTF-8 bytes, as with a Hash object (lone surrogates included)", () => {
    for (const key of ["", "k1", "x".repeat(1000), "é", "\ud800", "a\udfffb", "('x', 0)"]) {
      const hex = createHash("sha256").update(key, "utf8").digest("hex");
      expect(spillFileName(key).endsWith(`-${hex}`)).toBe(true);
    }
  });
});

describe("FileStore reads of a small first frame", () => {
  it("gives each read its own header frame: a later read does not change an earlier one", () => {
    const store = open();
    store.writeFrames("a", [bytes(8, 1), bytes(100, 7)]);
    store.writeFrames("b", [bytes(8, 2), bytes(100, 9)]);
    const first = store.readFrames("a", [8, 100]);
    const second = store.readFrames("b", [8, 100]);
    expect([...first[0]!]).toEqual(Array(8).fill(1));
    expect([...second[0]!]).toEqual(Array(8).fill(2));
    expect(first[0]!.buffer).not.toBe(second[0]!.buffer);
    expect(first[0]!.buffer.byteLength).toBe(8);
    // A file of another length comes back whole, header included.
    fs.writeFileSync(store.filePath("a"), bytes(20, 3));
    expect(store.readFrames("a", [8, 100]).map((f) => [...f])).toEqual([Array(20).fill(3)]);
  });

  it("reads frames of a serializer with more than two frames", () => {
    const threeFrames: Serializer = {
      dump: (value) => Buffer.from(String(value)),
      load: (b) => Buffer.from(b).toString(),
      dumpFrames: (value) => {
        const text = Buffer.from(String(value));
        return [Uint8Array.of(text.byteLength), text.subarray(0, 1), text.subarray(1)];
      },
      loadFrames: (frames) => {
        if (frames.length === 3) return Buffer.concat([frames[1]!, frames[2]!]).toString();
        return Buffer.from(frames[0]!).subarray(1).toString();
      },
    };
    for (const layout of ["keys", "slots"] as const) {
      const buf = new SpillBuffer({ target: 0, store: open({ layout }), serializer: threeFrames, logger: new RecordingLogger() });
      buf.set("k", "hello");
      expect(buf.slow.weightByKey.get("k")!.disk).toBe(6);
      expect(buf.get("k")).toBe("hello");
      buf.close();
    }
  });
});

describe('FileStore layout "slots"', () => {
  /** Every file in the store's directory. */
  const files = (store: FileStore): string[] => fs.readdirSync(store.path).sort();

  it("names no file after a key and renames nothing; the index says which slot holds which key", () => {
    const counter = countingFs();
    const store = open({ layout: "slots", fs: counter.fs });
    expect(store.layout).toBe("slots");
    store.write("../../evil", bytes(10, 1));
    store.write("k", bytes(20, 2));
    expect(files(store)).toEqual(["slot-1", "slot-2"]);
    expect(path.dirname(store.filePath("../../evil"))).toBe(store.path);
    expect([...store.read("../../evil")]).toEqual(Array(10).fill(1));
    expect([...store.read("k", 20)]).toEqual(Array(20).fill(2));
    // Overwriting a key fills another slot first; the old one becomes a spare.
    store.write("k", bytes(5, 3));
    expect([...store.read("k", 5)]).toEqual(Array(5).fill(3));
    expect(store.spareFiles).toEqual({ files: 1, bytes: 20 });
    store.delete("k");
    expect(() => store.read("k")).toThrow(/ENOENT: the spill store holds no file for key "k"/);
    expect(() => store.read("k", 5)).toThrow(/ENOENT/);
    expect(() => store.filePath("k")).toThrow(/ENOENT/);
    store.delete("k"); // a missing key is not an error
    expect(counter.calls.get("renameSync")).toBeUndefined();
    expect(() => open({ layout: "names" as FileStoreLayout })).toThrow(/FileStore layout must be "keys" or "slots"; got "names"/);
  });

  it("matches a model under any sequence of writes, reads and deletes (fast-check)", () => {
    checkFileStoreAgainstModel({
      parent: fixture.dir,
      layout: "slots",
      seed: 5,
      checkFiles: (store, model) => {
        // One file per key held plus the spares, all slots; distinct keys, distinct files.
        const held = [...model.keys()].map((key) => path.basename(store.filePath(key)));
        expect(new Set(held).size).toBe(model.size);
        expect(files(store).length).toBe(model.size + store.spareFiles.files);
        expect(files(store).every((f) => /^slot-\d+$/.test(f))).toBe(true);
      },
    });
  });

  it("a write that fails half-way leaves the key's old bytes; the torn slot is removed, never reused", () => {
    const crash = Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    let failing = false;
    const store = open({
      layout: "slots",
      fs: {
        writevSync: ((fd: number, buffers: Uint8Array[], position?: number) => {
          if (failing) {
            fs.writeSync(fd, buffers[0]!, 0, Math.ceil(buffers[0]!.byteLength / 2), position ?? null);
            throw crash;
          }
          return fs.writevSync(fd, buffers, position);
        }) as typeof fs.writevSync,
      },
    });
    store.writeFrames("k", [bytes(8, 1), bytes(8, 1)]);
    store.writeFrames("gone", [bytes(8, 4), bytes(200, 4)]);
    store.readFrames("gone", [8, 200]);
    store.delete("gone"); // its slot becomes the spare the next write recycles, still open
    failing = true;
    expect(() => store.writeFrames("k", [bytes(8, 2), bytes(300, 2)])).toThrow(crash);
    expect(() => store.writeFrames("new", [bytes(8, 3), bytes(8, 3)])).toThrow(crash);
    failing = false;
    expect([...store.read("k")]).toEqual(Array(16).fill(1));
    expect(() => store.read("new")).toThrow(/ENOENT/);
    expect(files(store)).toEqual([path.basename(store.filePath("k"))]);
    expect(store.spareFiles.files).toBe(0);
    store.writeFrames("new", [bytes(8, 3), bytes(8, 3)]);
    expect([...store.read("new", 16)]).toEqual(Array(16).fill(3));
  });

  it("an overwrite succeeds even when the key's previous slot cannot be unlinked (it is left for close)", () => {
    let refuse = false;
    const store = open({
      layout: "slots",
      spareFiles: 0,
      fs: {
        unlinkSync: (file) => {
          if (refuse) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
          fs.unlinkSync(file);
        },
      },
    });
    store.write("k", bytes(10, 1));
    refuse = true;
    store.write("k", bytes(10, 2));
    expect([...store.read("k", 10)]).toEqual(Array(10).fill(2));
    expect(files(store).length).toBe(2); // the old slot, pointed at by nothing
    expect(() => store.delete("k")).toThrow(/EACCES/); // a failing delete is reported (the SpillBuffer logs it)
    refuse = false;
    store.close();
    expect(fs.existsSync(store.path)).toBe(false);
  });

  it("a read of the wrong length (a slot changed behind the store's back) is a SpillReadError", () => {
    const buf = new SpillBuffer({ target: 100, store: open({ layout: "slots" }), logger: new RecordingLogger() });
    const store = fixture.stores[fixture.stores.length - 1]!;
    const big = new Uint8Array(1000).fill(5);
    buf.set("big", big);
    expect(buf.get("big")).toEqual(big);
    fs.writeFileSync(store.filePath("big"), "garbage!");
    expect(() => buf.get("big")).toThrow(/Failed to read spilled key 'big': the spill file holds 8 bytes but 1008 were written/);
    fs.rmSync(store.filePath("big"));
    expect(() => buf.get("big")).toThrow(/Failed to read spilled key 'big': the spill store failed: ENOENT/);
    expect(buf.slow.has("big")).toBe(true);
    buf.close();
    expect(fs.existsSync(store.path)).toBe(false);
  });

  it("serves a SpillBuffer exactly like the key-named layout (same values, tiers and metrics)", () => {
    const run = (layout: FileStoreLayout) => {
      const buf = new SpillBuffer({ target: 3000, store: open({ layout }), logger: new RecordingLogger() });
      const seen: unknown[] = [];
      for (let i = 0; i < 20; i++) buf.set(`k${i}`, i % 3 === 0 ? { i, text: "x".repeat(i * 40) } : Buffer.alloc(200 + i, i));
      for (const i of [5, 0, 19, 7, 7, 12, 3]) seen.push(buf.get(`k${i}`));
      buf.delete("k1");
      buf.set("k2", new Float64Array([1, 2, 3]));
      const state = { seen, fast: [...buf.fast.keys()], slow: [...buf.slow.keys()].sort(), spilled: buf.spilledTotal };
      const counts = [...buf.cumulativeMetrics].filter(([name]) => !name.endsWith("/seconds"));
      buf.close();
      return { state, counts };
    };
    expect(run("slots")).toEqual(run("keys"));
  });
});
