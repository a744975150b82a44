import { createHash } from "node:crypto";
import * as nodeFs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Key } from "./key.js";
import type { SpillStore } from "./store.js";

/** The file-system calls the store makes; tests replace some of them to place faults. */
export interface FileStoreFs {
  mkdirSync: typeof nodeFs.mkdirSync;
  mkdtempSync: typeof nodeFs.mkdtempSync;
  openSync: typeof nodeFs.openSync;
  writeSync: typeof nodeFs.writeSync;
  writevSync: typeof nodeFs.writevSync;
  fsyncSync: typeof nodeFs.fsyncSync;
  closeSync: typeof nodeFs.closeSync;
  renameSync: typeof nodeFs.renameSync;
  readFileSync: typeof nodeFs.readFileSync;
  unlinkSync: typeof nodeFs.unlinkSync;
  rmSync: typeof nodeFs.rmSync;
}

export interface FileStoreOptions {
  /** Parent of the private spill directory (created if missing); default `os.tmpdir()`. */
  directory?: string;
  /** fsync every file before renaming it into place (durable across power loss; slower). Default false. */
  fsync?: boolean;
  /** Replacements for some file-system calls (fault injection in tests). */
  fs?: Partial<FileStoreFs>;
}

const READABLE_PREFIX_LENGTH = 40;
const TEMP_PREFIX = ".tmp-";

/**
 * The name of the file holding `key`: `s-<readable prefix>-<sha256 of the key, hex>`.
 * The prefix is the lower-cased key cut to 40 characters with everything outside
 * `[a-z0-9_.-]` replaced by `_`, so it is only a hint for humans; the hash makes the name
 * unique. No key can produce a path separator, NUL, `.`/`..`, a leading dot (temp files
 * start with one) or a name longer than 107 characters, and two keys that differ only in
 * case still get different names on a case-insensitive file system.
 */
export function spillFileName(key: Key): string {
  const hash = createHash("sha256").update(key, "utf8").digest("hex");
  const prefix = key.slice(0, READABLE_PREFIX_LENGTH).toLowerCase().replace(/[^a-z0-9_.-]/g, "_");
  return `s-${prefix}-${hash}`;
}

/**
 * The default slow tier: one file per key in a private directory (mode 0700, made with
 * mkdtemp, removed by `close()`). Writes are atomic: the bytes go to a temp file in the
 * same directory, which is then renamed over the key's file, so a crash leaves either the
 * old file or the new one, never a torn one. Synchronous, like the SpillBuffer API.
 */
export class FileStore implements SpillStore {
  /** The private directory holding the spill files. */
  readonly path: string;
  private readonly fs: FileStoreFs;
  private readonly fsync: boolean;
  private tempCounter = 0;
  private closed = false;

  constructor(options: FileStoreOptions = {}) {
    this.fs = { ...defaultFs(), ...options.fs };
    this.fsync = options.fsync ?? false;
    const parent = path.resolve(options.directory ?? os.tmpdir());
    this.fs.mkdirSync(parent, { recursive: true });
    this.path = this.fs.mkdtempSync(path.join(parent, "spanwork-spill-"));
  }

  /** Absolute path of the file that holds (or would hold) `key`. */
  filePath(key: Key): string {
    return path.join(this.path, spillFileName(key));
  }

  read(key: Key): Uint8Array {
    this.assertOpen(key);
    return this.fs.readFileSync(this.filePath(key));
  }

  write(key: Key, bytes: Uint8Array): void {
    this.writeFrames(key, [bytes]);
  }

  /** Writes the frames back to back (one vectored write when possible), atomically. */
  writeFrames(key: Key, frames: readonly Uint8Array[]): void {
    this.assertOpen(key);
    const target = this.filePath(key);
    const temp = path.join(this.path, `${TEMP_PREFIX}${process.pid}-${++this.tempCounter}`);
    try {
      const fd = this.fs.openSync(temp, "wx", 0o600);
      try {
        this.writeAll(fd, frames);
        if (this.fsync) this.fs.fsyncSync(fd);
      } finally {
        this.fs.closeSync(fd);
      }
      this.fs.renameSync(temp, target);
    } catch (error) {
      this.removeQuietly(temp);
      throw error;
    }
  }

  private writeAll(fd: number, frames: readonly Uint8Array[]): void {
    let total = 0;
    for (const frame of frames) total += frame.byteLength;
    let written = frames.length > 1 ? this.fs.writevSync(fd, frames as Uint8Array[]) : 0;
    if (written === total) return;
    // A short write (or a single frame): finish frame by frame from where it stopped.
    for (const frame of frames) {
      if (written >= frame.byteLength) {
        written -= frame.byteLength;
        continue;
      }
      let offset = written;
      written = 0;
      while (offset < frame.byteLength) offset += this.fs.writeSync(fd, frame, offset, frame.byteLength - offset);
    }
  }

  delete(key: Key): void {
    this.assertOpen(key);
    try {
      this.fs.unlinkSync(this.filePath(key));
    } catch (error) {
      if (!isMissingFile(error)) throw error;
    }
  }

  /** Removes the directory and everything in it. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fs.rmSync(this.path, { recursive: true, force: true });
  }

  private assertOpen(key: Key): void {
    if (this.closed) throw new Error(`spill store ${this.path} is closed (key ${JSON.stringify(key)})`);
  }

  private removeQuietly(file: string): void {
    try {
      this.fs.unlinkSync(file);
    } catch {
      // Best effort: the temp file may never have been created; a leftover one is
      // invisible to reads (its name is not a key's) and goes away with the directory.
    }
  }
}

function isMissingFile(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT";
}

function defaultFs(): FileStoreFs {
  return {
    mkdirSync: nodeFs.mkdirSync,
    mkdtempSync: nodeFs.mkdtempSync,
    openSync: nodeFs.openSync,
    writeSync: nodeFs.writeSync,
    writevSync: nodeFs.writevSync,
    fsyncSync: nodeFs.fsyncSync,
    closeSync: nodeFs.closeSync,
    renameSync: nodeFs.renameSync,
    readFileSync: nodeFs.readFileSync,
    unlinkSync: nodeFs.unlinkSync,
    rmSync: nodeFs.rmSync,
  };
}
