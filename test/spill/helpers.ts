import fc from "fast-check";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { FileStore, type FileStoreLayout, type Serializer, type SpillLogger, type SpillStore } from "../../src/spill/index.js";

/** A clock tests move by hand. */
export class FakeClock {
  t = 0;
  now(): number {
    return this.t;
  }
  advance(seconds: number): void {
    this.t += seconds;
  }
}

export interface LogEntry {
  level: "warn" | "error";
  message: string;
  error: unknown;
}

/** Collects what the SpillBuffer logs. */
export class RecordingLogger implements SpillLogger {
  readonly entries: LogEntry[] = [];
  warn(message: string, error?: unknown): void {
    this.entries.push({ level: "warn", message, error });
  }
  error(message: string, error?: unknown): void {
    this.entries.push({ level: "error", message, error });
  }
  messages(): string[] {
    return this.entries.map((e) => e.message);
  }
  clear(): void {
    this.entries.length = 0;
  }
}

/**
 * An in-memory slow tier with fault sites: `writeError`/`readError` make the next calls
 * throw; `writeSeconds`/`readSeconds` make it report modelled durations.
 */
export class MemoryStore implements SpillStore {
  readonly files = new Map<string, Uint8Array>();
  writeError: Error | null = null;
  readError: Error | null = null;
  deleteError: Error | null = null;
  writeSeconds: number | undefined;
  readSeconds: number | undefined;
  writes = 0;
  reads = 0;
  deletes = 0;

  read(key: string): Uint8Array | { bytes: Uint8Array; seconds: number } {
    this.reads++;
    if (this.readError) throw this.readError;
    const bytes = this.files.get(key);
    if (bytes === undefined) throw Object.assign(new Error(`ENOENT: no spilled data for ${key}`), { code: "ENOENT" });
    return this.readSeconds === undefined ? bytes : { bytes, seconds: this.readSeconds };
  }

  write(key: string, bytes: Uint8Array): void | { seconds: number } {
    this.writes++;
    if (this.writeError) throw this.writeError;
    this.files.set(key, bytes.slice());
    return this.writeSeconds === undefined ? undefined : { seconds: this.writeSeconds };
  }

  delete(key: string): void {
    this.deletes++;
    if (this.deleteError) throw this.deleteError;
    this.files.delete(key);
  }
}

export function osError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/**
 * Strings only, stored as UTF-8 after `overhead` padding bytes (like pickle's header), so
 * disk sizes are predictable: disk = overhead + length for ASCII. Anything else fails.
 */
export function textSerializer(overhead = 0): Serializer {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return {
    dump(value) {
      if (typeof value !== "string") throw new TypeError(`cannot serialize ${typeof value}`);
      const body = encoder.encode(value);
      const out = new Uint8Array(overhead + body.byteLength);
      out.set(body, overhead);
      return out;
    },
    load(bytes) {
      return decoder.decode(bytes.subarray(overhead));
    },
  };
}

/** Python-like sizeof for strings (49 + length), used by dask's scenarios. */
export function pySizeof(value: unknown): number {
  if (typeof value === "string") return 49 + value.length;
  if (typeof value === "object" && value !== null && "size" in value) return Number((value as { size: unknown }).size);
  return 16;
}

/** A value that refuses to serialize with any serializer used here, with a chosen sizeof. */
export class Bad {
  constructor(readonly size: number) {}
  readonly fn = (): number => this.size;
}

/** Asserts which keys are in which tier, with the values and weights. */
export function tiers(buf: { fast: { keys(): Iterable<string> }; slow: { keys(): Iterable<string> } }): { fast: string[]; slow: string[] } {
  return { fast: [...buf.fast.keys()], slow: [...buf.slow.keys()].sort() };
}

/** `length` bytes, all `fill`. */
export function bytes(length: number, fill: number): Uint8Array {
  return new Uint8Array(length).fill(fill);
}

/** Open descriptors of this process (Linux), to catch leaks; null where /proc is missing. */
export function openFdCount(): number | null {
  return fs.existsSync("/proc/self/fd") ? fs.readdirSync("/proc/self/fd").length : null;
}

/**
 * fast-check: any sequence of writes (plain or two frames), reads (with or without the
 * length) and deletes on a FileStore agrees with a Map model; after every step
 * `checkFiles` checks the directory against the model (what each layout puts on disk),
 * and the spare limits hold. Every store is closed and removes its directory, and no
 * descriptor leaks.
 */
export function checkFileStoreAgainstModel(options: {
  parent: string;
  layout?: FileStoreLayout;
  seed: number;
  checkFiles(store: FileStore, model: ReadonlyMap<string, Uint8Array>): void;
}): void {
  const keys = ["a", "b", "c", "d"];
  const op = fc.oneof(
    fc.record({ op: fc.constant("write" as const), key: fc.constantFrom(...keys), length: fc.nat(300), fill: fc.nat(255), frames: fc.boolean() }),
    fc.record({ op: fc.constant("read" as const), key: fc.constantFrom(...keys), hinted: fc.boolean() }),
    fc.record({ op: fc.constant("delete" as const), key: fc.constantFrom(...keys) }),
  );
  const before = openFdCount();
  fc.assert(
    fc.property(op.chain((first) => fc.array(op, { maxLength: 40 }).map((rest) => [first, ...rest])), fc.nat(3), (ops, spareFiles) => {
      const store = new FileStore({ directory: options.parent, layout: options.layout, spareFiles, spareBytes: 500 });
      const model = new Map<string, Uint8Array>();
      try {
        for (const step of ops) {
          if (step.op === "write") {
            const value = bytes(step.length, step.fill);
            if (step.frames && step.length >= 8) store.writeFrames(step.key, [value.subarray(0, 8), value.subarray(8)]);
            else store.write(step.key, value);
            model.set(step.key, value);
          } else if (step.op === "read") {
            const expected = model.get(step.key);
            if (expected === undefined) {
              expect(() => store.read(step.key, step.hinted ? 10 : undefined)).toThrow(/ENOENT/);
            } else {
              expect([...store.read(step.key, step.hinted ? expected.byteLength : undefined)]).toEqual([...expected]);
            }
          } else {
            store.delete(step.key);
            model.delete(step.key);
          }
          options.checkFiles(store, model);
          expect(store.spareFiles.files).toBeLessThanOrEqual(spareFiles);
          expect(store.spareFiles.bytes).toBeLessThanOrEqual(500);
        }
        for (const [key, value] of model) expect([...store.read(key)]).toEqual([...value]);
      } finally {
        store.close();
      }
      expect(fs.existsSync(store.path)).toBe(false);
    }),
    { numRuns: 60, seed: options.seed },
  );
  if (before !== null) expect(openFdCount()).toBe(before); // no descriptor leaks
}

/** A fresh temporary parent directory per test, and a FileStore opener for it. */
export interface FileStoreFixture {
  /** This test's directory (a new one for every test). */
  readonly dir: string;
  /** The stores `open` made during this test, oldest first. */
  readonly stores: readonly FileStore[];
  open(options?: ConstructorParameters<typeof FileStore>[0]): FileStore;
}

/**
 * Registers the hooks at the call site (a test file's top level): every test gets its own
 * directory under the OS temp dir; after it, the stores it opened are closed and the
 * directory is removed.
 */
export function fileStoreFixture(prefix: string): FileStoreFixture {
  const stores: FileStore[] = [];
  let dir = "";
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    stores,
    open(options = {}) {
      const store = new FileStore({ directory: dir, ...options });
      stores.push(store);
      return store;
    },
  };
}

/** Files named after keys in a "keys" layout directory (spare and temp files start with a dot). */
export function keyFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => !f.startsWith(".")).sort();
}
