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
  ftruncateSync: typeof nodeFs.ftruncateSync;
  readFileSync: typeof nodeFs.readFileSync;
  readvSync: typeof nodeFs.readvSync;
  readSync: typeof nodeFs.readSync;
  fstatSync: typeof nodeFs.fstatSync;
  unlinkSync: typeof nodeFs.unlinkSync;
  rmSync: typeof nodeFs.rmSync;
}

export interface FileStoreOptions {
  /** Parent of the private spill directory (created if missing); default `os.tmpdir()`. */
  directory?: string;
  /** fsync every file before renaming it into place (durable across power loss; slower). Default false. */
  fsync?: boolean;
  /**
   * How many files of deleted keys are kept (renamed to private names) to be overwritten
   * by later writes instead of creating and deleting files; 0 = always unlink. Default 16.
   */
  spareFiles?: number;
  /** At most this many bytes of such spare files; default 64 MiB. */
  spareBytes?: number;
  /** Replacements for some file-system calls (fault injection in tests). */
  fs?: Partial<FileStoreFs>;
}

const READABLE_PREFIX_LENGTH = 40;
const TEMP_PREFIX = ".tmp-";
const DEFAULT_SPARE_FILES = 16;
const DEFAULT_SPARE_BYTES = 64 * 1024 * 1024;

/** A file that holds no key's bytes any more, kept under a temp name to be overwritten. */
interface SpareFile {
  readonly path: string;
  /** Its length when it was freed (as written by this store). */
  readonly size: number;
  /** Still open for writing when it was freed right after being read, else null. */
  readonly fd: number | null;
}

/** A key's file as this store wrote it. */
interface KeyFile {
  readonly path: string;
  readonly size: number;
}

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
 * mkdtemp, removed by `close()`). Writes are atomic: the bytes go to a file under a temp
 * name in the same directory, which is then renamed over the key's file, so a crash leaves
 * either the old file or the new one, never a torn one. Synchronous, like the SpillBuffer API.
 *
 * Files are recycled: deleting a key renames its file to a temp name (so it is no longer
 * any key's file, at once) and keeps it as a spare, and the next write overwrites a spare
 * instead of creating a file. Creating and deleting files is what costs most on a real
 * file system (block allocation, discards, inode churn); a rename only edits the directory.
 */
export class FileStore implements SpillStore {
  /** The private directory holding the spill files. */
  readonly path: string;
  private readonly fs: FileStoreFs;
  private readonly fsync: boolean;
  private readonly maxSpareFiles: number;
  private readonly maxSpareBytes: number;
  /** Spare files, the most recently freed (likeliest cached) last. */
  private readonly spares: SpareFile[] = [];
  private spareTotal = 0;
  /** Every key written and not deleted: its file's path (the hash is computed once) and length. */
  private readonly files = new Map<Key, KeyFile>();
  /**
   * The descriptor of the file read last, left open (read-write) because reading a value
   * back into memory deletes it from the store next: the file then becomes a spare that
   * is already open for the write that follows. Closed by any other operation.
   */
  private held: { key: Key; fd: number } | null = null;
  /** Reads ask for one byte more than expected, landing here, to tell a longer file from an exact one in one call. */
  private readonly probe = Buffer.alloc(1);
  private tempCounter = 0;
  private closed = false;

  constructor(options: FileStoreOptions = {}) {
    this.maxSpareFiles = checkCount(options.spareFiles ?? DEFAULT_SPARE_FILES, "spareFiles");
    this.maxSpareBytes = checkCount(options.spareBytes ?? DEFAULT_SPARE_BYTES, "spareBytes");
    this.fs = { ...defaultFs(), ...options.fs };
    this.fsync = options.fsync ?? false;
    const parent = path.resolve(options.directory ?? os.tmpdir());
    this.fs.mkdirSync(parent, { recursive: true });
    this.path = this.fs.mkdtempSync(path.join(parent, "spanwork-spill-"));
  }

  /** Absolute path of the file that holds (or would hold) `key`. */
  filePath(key: Key): string {
    return this.files.get(key)?.path ?? this.inDirectory(spillFileName(key));
  }

  /** Number and total bytes of the spare files kept for reuse. */
  get spareFiles(): { files: number; bytes: number } {
    return { files: this.spares.length, bytes: this.spareTotal };
  }

  /**
   * The bytes of `key`'s file. With `byteLength` (what was written) it skips the size
   * lookup; a file of another length is still returned whole, so the caller sees the mismatch.
   */
  read(key: Key, byteLength?: number): Uint8Array {
    this.assertOpen(key);
    if (byteLength === undefined || !Number.isSafeInteger(byteLength) || byteLength < 0) {
      this.release();
      return this.fs.readFileSync(this.filePath(key));
    }
    return this.readFrames(key, [byteLength])[0]!;
  }

  /**
   * The file split into frames of `frameLengths`, each in its own fresh ArrayBuffer; the
   * whole file as one frame when its length is not their sum.
   */
  readFrames(key: Key, frameLengths: readonly number[]): Uint8Array[] {
    this.assertOpen(key);
    this.release();
    let expected = 0;
    const frames = frameLengths.map((length) => {
      expected += length;
      // Not zero-filled: returned only when the read filled every byte of every frame.
      return Buffer.allocUnsafeSlow(length);
    });
    const { fd, writable } = this.openForReading(this.filePath(key));
    let keep = false;
    try {
      if (this.readAll(fd, [...frames, this.probe]) !== expected) return [this.readWhole(fd)];
      keep = writable && this.files.has(key);
      return frames;
    } finally {
      if (keep) this.held = { key, fd };
      else this.fs.closeSync(fd);
    }
  }

  // Read-write, so that the file can become a spare already open for writing; read-only
  // when that is refused (a file system remounted read-only still serves what it holds).
  private openForReading(file: string): { fd: number; writable: boolean } {
    try {
      return { fd: this.fs.openSync(file, "r+"), writable: true };
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== "EROFS" && code !== "EACCES" && code !== "EPERM") throw error;
      return { fd: this.fs.openSync(file, "r"), writable: false };
    }
  }

  // Reads from offset 0 until the buffers are full or the file ends; returns the bytes read.
  private readAll(fd: number, buffers: readonly Uint8Array[]): number {
    let total = 0;
    let index = 0;
    let offset = 0; // into buffers[index]
    for (;;) {
      while (index < buffers.length && offset === buffers[index]!.byteLength) {
        index++;
        offset = 0;
      }
      if (index === buffers.length) return total;
      const pending = buffers.slice(index);
      if (offset > 0) pending[0] = pending[0]!.subarray(offset);
      let read = this.fs.readvSync(fd, pending as Uint8Array[], total);
      if (read === 0) return total;
      total += read;
      while (read > 0) {
        const room = buffers[index]!.byteLength - offset;
        if (read < room) {
          offset += read;
          read = 0;
        } else {
          read -= room;
          index++;
          offset = 0;
        }
      }
    }
  }

  // The whole file, whatever its length (only when it is not the length written).
  private readWhole(fd: number): Uint8Array {
    const size = this.fs.fstatSync(fd).size;
    const bytes = Buffer.alloc(size);
    const read = this.readAll(fd, [bytes]);
    return read === size ? bytes : bytes.subarray(0, read);
  }

  write(key: Key, bytes: Uint8Array): void {
    this.writeFrames(key, [bytes]);
  }

  /**
   * Writes the frames back to back (one vectored write when possible) into a spare file
   * or a new temp file, then renames it over the key's file.
   */
  writeFrames(key: Key, frames: readonly Uint8Array[]): void {
    this.assertOpen(key);
    this.release();
    const target = this.filePath(key);
    const spare = this.spares.pop();
    if (spare !== undefined) this.spareTotal -= spare.size;
    const file = spare?.path ?? this.tempName();
    let total = 0;
    for (const frame of frames) total += frame.byteLength;
    try {
      const fd = spare?.fd ?? (spare === undefined ? this.fs.openSync(file, "wx", 0o600) : this.fs.openSync(file, nodeFs.constants.O_WRONLY));
      try {
        this.writeAll(fd, frames, total);
        if (spare !== undefined && spare.size > total) this.fs.ftruncateSync(fd, total);
        if (this.fsync) this.fs.fsyncSync(fd);
      } finally {
        this.fs.closeSync(fd);
      }
      this.fs.renameSync(file, target);
    } catch (error) {
      this.removeQuietly(file);
      throw error;
    }
    this.files.set(key, { path: target, size: total });
  }

  // Positional writes from offset 0: a spare's descriptor may have been read to its end.
  private writeAll(fd: number, frames: readonly Uint8Array[], total: number): void {
    let written = frames.length > 1 ? this.fs.writevSync(fd, frames as Uint8Array[], 0) : 0;
    if (written === total) return;
    // A short write (or a single frame): finish frame by frame from where it stopped.
    let position = written;
    for (const frame of frames) {
      if (written >= frame.byteLength) {
        written -= frame.byteLength;
        continue;
      }
      let offset = written;
      written = 0;
      while (offset < frame.byteLength) {
        const n = this.fs.writeSync(fd, frame, offset, frame.byteLength - offset, position);
        offset += n;
        position += n;
      }
    }
  }

  /**
   * `key` no longer has a file: it is renamed to a temp name and kept as a spare (or
   * unlinked when the spares are full). A missing file is not an error.
   */
  delete(key: Key): void {
    this.assertOpen(key);
    if (this.held !== null && this.held.key !== key) this.release();
    let fd = this.held?.fd ?? null;
    this.held = null;
    const entry = this.files.get(key);
    const file = entry?.path ?? this.filePath(key);
    this.files.delete(key);
    try {
      if (entry !== undefined && this.spares.length < this.maxSpareFiles && this.spareTotal + entry.size <= this.maxSpareBytes) {
        const spare = this.tempName();
        this.fs.renameSync(file, spare);
        this.spares.push({ path: spare, size: entry.size, fd });
        this.spareTotal += entry.size;
        fd = null;
      } else {
        this.fs.unlinkSync(file);
      }
    } catch (error) {
      if (!isMissingFile(error)) throw error;
    } finally {
      if (fd !== null) this.closeQuietly(fd);
    }
  }

  /** Removes the directory and everything in it (spare and temp files included). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
    for (const spare of this.spares) if (spare.fd !== null) this.closeQuietly(spare.fd);
    this.spares.length = 0;
    this.spareTotal = 0;
    this.files.clear();
    this.fs.rmSync(this.path, { recursive: true, force: true });
  }

  // Closes the descriptor kept from the last read (the next operation is not its delete).
  private release(): void {
    if (this.held === null) return;
    const { fd } = this.held;
    this.held = null;
    this.closeQuietly(fd);
  }

  // The directory is absolute and `name` a single component: no need for path.join's normalising.
  private inDirectory(name: string): string {
    return `${this.path}${path.sep}${name}`;
  }

  private tempName(): string {
    return this.inDirectory(`${TEMP_PREFIX}${process.pid}-${++this.tempCounter}`);
  }

  private assertOpen(key: Key): void {
    if (this.closed) throw new Error(`spill store ${this.path} is closed (key ${JSON.stringify(key)})`);
  }

  private closeQuietly(fd: number): void {
    try {
      this.fs.closeSync(fd);
    } catch {
      // Nothing was written through it since it was last synced or read.
    }
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

function checkCount(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new TypeError(`FileStore ${name} must be an integer ≥ 0; got ${String(value)}`);
  }
  return value;
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
    ftruncateSync: nodeFs.ftruncateSync,
    readFileSync: nodeFs.readFileSync,
    readvSync: nodeFs.readvSync,
    readSync: nodeFs.readSync,
    fstatSync: nodeFs.fstatSync,
    unlinkSync: nodeFs.unlinkSync,
    rmSync: nodeFs.rmSync,
  };
}
