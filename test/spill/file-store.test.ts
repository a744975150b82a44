import fc from "fast-check";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FileStore, SpillBuffer, spillFileName } from "../../src/spill/index.js";
import { RecordingLogger, fileStoreFixture, keyFiles } from "./helpers.js";

const fixture = fileStoreFixture("spill-test-");
const { open } = fixture;



describe("spillFileName", () => {
  it("never escapes the directory, whatever the key (fast-check)", () => {
    const dir = path.join(fixture.dir, "spill");
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme", maxLength: 300 }), fc.constantFrom("", ".", "..", "../x", "/etc/passwd", "a/../../b", "C:\\x", "\0", "x".repeat(10_000))), (key) => {
        const name = spillFileName(key);
        expect(name).toMatch(/^s-[a-z0-9_.-]{0,40}-[0-9a-f]{64}$/);
        expect(name.length).toBeLessThanOrEqual(107);
        expect(name).not.toBe(".");
        expect(name).not.toBe("..");
        const full = path.join(dir, name);
        expect(path.dirname(full)).toBe(dir);
        expect(path.basename(full)).toBe(name);
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  it("distinct keys get distinct names, even compared case-insensitively (fast-check)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: "binary", maxLength: 60 }), { minLength: 2, maxLength: 30 }), (keys) => {
        const names = keys.map((k) => spillFileName(k).toLowerCase());
        expect(new Set(names).size).toBe(keys.length);
      }),
      { numRuns: 200, seed: 11 },
    );
    expect(spillFileName("Key")).not.toBe(spillFileName("key"));
    expect(spillFileName("Key").toLowerCase()).not.toBe(spillFileName("key").toLowerCase());
    expect(spillFileName("1")).not.toBe(spillFileName(" 1"));
  });

  it("keeps a readable prefix", () => {
    expect(spillFileName("inc-123")).toMatch(/^s-inc-123-[0-9a-f]{64}$/);
    expect(spillFileName("('x', 0)")).toMatch(/^s-__x___0_-[0-9a-f]{64}$/);
  });
});

describe("FileStore", () => {
  it("writes into a private 0700 directory under the given one and removes it on close", () => {
    const store = open();
    expect(path.dirname(store.path)).toBe(fixture.dir);
    expect(fs.statSync(store.path).mode & 0o777).toBe(0o700);
    store.write("../../evil", new Uint8Array([1, 2, 3]));
    expect(fs.readdirSync(store.path)).toEqual([spillFileName("../../evil")]);
    expect(fs.readdirSync(fixture.dir)).toEqual([path.basename(store.path)]);
    expect([...store.read("../../evil")]).toEqual([1, 2, 3]);
    store.delete("../../evil");
    store.delete("../../evil"); // a missing file is not an error
    expect(keyFiles(store.path)).toEqual([]);
    expect(fs.readdirSync(store.path)).toEqual([expect.stringMatching(/^\.tmp-/)]); // kept as a spare
    store.close();
    store.close();
    expect(fs.existsSync(store.path)).toBe(false);
    expect(() => store.read("x")).toThrow(/is closed/);
  });

  it("creates a missing parent directory", () => {
    const store = open({ directory: path.join(fixture.dir, "a", "b") });
    store.write("k", new Uint8Array([9]));
    expect([...store.read("k")]).toEqual([9]);
  });

  it("writes atomically: a crash between write and rename leaves the old value readable and no file named after the key", () => {
    const crash = new Error("simulated crash before rename");
    let crashing = false;
    const store = open({
      fsync: true,
      fs: {
        renameSync: (from, to) => {
          if (crashing) throw crash;
          fs.renameSync(from, to);
        },
        // A real crash runs no cleanup: keep the temp file to look at it.
        unlinkSync: (file) => {
          if (!crashing) fs.unlinkSync(file);
        },
      },
    });
    store.write("k", new Uint8Array([1, 1, 1]));
    crashing = true;
    expect(() => store.write("k", new Uint8Array([2, 2, 2, 2]))).toThrow(crash);
    expect(() => store.write("new", new Uint8Array([3]))).toThrow(crash);
    crashing = false;
    // The old value is intact; the torn write is only a temp file that is no key's file.
    expect([...store.read("k")]).toEqual([1, 1, 1]);
    expect(() => store.read("new")).toThrow(/ENOENT/);
    const files = fs.readdirSync(store.path).sort();
    expect(files.filter((f) => !f.startsWith(".tmp-"))).toEqual([spillFileName("k")]);
    expect(files.filter((f) => f.startsWith(".tmp-")).length).toBe(2);
  });

  it("writes frames back to back, finishing short vectored writes", () => {
    const store = open({
      fs: {
        // Write at most 5 bytes per call, like a signal-interrupted or pipe-limited write.
        writevSync: (fd, buffers) => fs.writeSync(fd, (buffers as Uint8Array[])[0]!, 0, Math.min(5, (buffers as Uint8Array[])[0]!.byteLength)),
        writeSync: ((fd: number, buffer: Uint8Array, offset: number, length: number) =>
          fs.writeSync(fd, buffer, offset, Math.min(length, 3))) as typeof fs.writeSync,
      },
    });
    store.writeFrames("k", [new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), new Uint8Array([9, 10, 11, 12])]);
    expect([...store.read("k")]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    store.writeFrames("one", [new Uint8Array([1, 2, 3, 4, 5, 6, 7])]);
    expect([...store.read("one")]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    store.writeFrames("empty", []);
    expect(store.read("empty").byteLength).toBe(0);
  });

  it("spills binary values without a copy and reads them back as the same type", () => {
    const buf = new SpillBuffer({ target: 0, directory: fixture.dir, logger: new RecordingLogger() });
    const values = { f: new Float64Array([1.5, -2]), b: Buffer.from("bytes"), i: new Int32Array([7]) };
    for (const [k, v] of Object.entries(values)) buf.set(k, v);
    expect(buf.slow.size).toBe(3);
    expect(buf.slow.weightByKey.get("f")!.disk).toBe(8 + 16);
    for (const [k, v] of Object.entries(values)) {
      const back = buf.get(k) as ArrayBufferView;
      expect(Object.getPrototypeOf(back)).toBe(Object.getPrototypeOf(v));
      expect(back).toEqual(v);
    }
    buf.close();
  });

  it("removes the temp file when a write fails (disk full)", () => {
    const store = open({
      fs: {
        writeSync: () => {
          throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
        },
        writevSync: () => {
          throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
        },
      },
    });
    expect(() => store.write("k", new Uint8Array(10))).toThrow(/ENOSPC/);
    expect(fs.readdirSync(store.path)).toEqual([]);
  });

  it("is the SpillBuffer's default store: files appear and go, the directory goes on close", () => {
    const buf = new SpillBuffer({ target: 100, directory: fixture.dir, logger: new RecordingLogger() });
    const dirs = fs.readdirSync(fixture.dir);
    expect(dirs.length).toBe(1);
    const dir = path.join(fixture.dir, dirs[0]!);
    const big = new Uint8Array(1000).fill(5);
    buf.set("../big", big);
    expect(fs.readdirSync(dir)).toEqual([spillFileName("../big")]);
    expect(buf.get("../big")).toEqual(big);
    buf.set("small", "s");
    buf.delete("../big");
    expect(keyFiles(dir)).toEqual([]);
    buf.set("big2", big);
    fs.writeFileSync(path.join(dir, spillFileName("big2")), "garbage!");
    expect(() => buf.get("big2")).toThrow(/Failed to read spilled key 'big2': the spill file holds 8 bytes/);
    fs.rmSync(path.join(dir, spillFileName("big2")));
    expect(() => buf.get("big2")).toThrow(/Failed to read spilled key 'big2': the spill store failed: ENOENT/);
    expect(buf.slow.has("big2")).toBe(true);
    buf.close();
    expect(fs.existsSync(dir)).toBe(false);
  });
});
