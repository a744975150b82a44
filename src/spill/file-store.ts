import * as crypto from "node:crypto";
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

/**
 * How a FileStore names its files.
 * - `"keys"` (default): one file per key, named after it (`spillFileName`); a write goes to a
 *   temp name and is renamed over the key's name, a delete renames the file away.
 * - `"slots"`: files are numbered slots (`slot-<n>`) and only the store's in-memory index
 *   says which slot holds which key: a write fills a free slot and then points the key at
 *   it, a delete frees the slot. No rename and no hashing; nothing on disk names a key.
 */
export type FileStoreLayout = "keys" | "slots";

export interface FileStoreOptions {
  /** Parent of the private spill directory (created if missing); default `os.tmpdir()`. */
  directory?: string;
  /** Default `"keys"`; see `FileStoreLayout`. */
  layout?: FileStoreLayout;
  /** fsync every file before it becomes the key's (durable across power loss; slower). Default false. */
  fsync?: boolean;
  /**
   * How many files of deleted keys are kept (under private names) to be overwritten by
   * later writes instead of creating and deleting files; 0 = always unlink. Default 16.
   */
  spareFiles?: number;
  /** At most this many bytes of such spare files; default 64 MiB. */
  spareBytes?: number;
  /** Replacements for some file-system calls (fault injection in tests). */
  fs?: Partial<FileStoreFs>;
}

// One-shot hashing (Node ≥ 20.12) costs a quarter of a Hash object's create/update/digest,
// and every write of a key that was read back hashes its key again.
const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "hex")
    : (text) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

const READABLE_PREFIX_LENGTH = 40;
const TEMP_PREFIX = ".tmp-";
const SLOT_PREFIX = "slot-";
const DEFAULT_SPARE_FILES = 16;
const DEFAULT_SPARE_BYTES = 64 * 1024 * 1024;

/** A file that holds no key's bytes any more, kept under a private name to be overwritten. */
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

/** Frames up to this length are read through a scratch buffer and copied (see `readFrames`). */
const SMALL_FRAME_BYTES = 64;

/**
 * The name of the file holding `key`: `s-<readable prefix>-<sha256 of the key, hex>`.
 * The prefix is the lower-cased key cut to 40 characters with everything outside
 * `[a-z0-9_.-]` replaced by `_`, so it is only a hint for humans; the hash makes the name
 * unique. No key can produce a path separator, NUL, `.`/`..`, a leading dot (temp files
 * start with one) or a name longer than 107 characters, and two keys that differ only in
 * case still get different names on a case-insensitive file system.
 */
export function spillFileName(key: Key): string {
  const hash = sha256Hex(key);
  const prefix = key.slice(0, READABLE_PREFIX_LENGTH).toLowerCase().replace(/[^a-z0-9_.-]/g, "_");
  return `s-${prefix}-${hash}`;
}

/**
 * The default slow tier: files in a private directory (mode 0700, made with mkdtemp,
 * removed by `close()`). Synchronous, like the SpillBuffer API.
 *
 * Writes are atomic: the bytes go to a file that is no key's, and only a complete write
 * makes it the key's — renamed over the key's name (layout `"keys"`), or pointed at by the
 * in-memory index (layout `"slots"`). A failed or interrupted write leaves the key's old
 * bytes (or none), never a torn file, under the key.
 *
 * Files are recycled: deleting a key makes its file a spare (renamed to a temp name in
 * layout `"keys"`, so that at once no read of the key can find it), and the next write
 * overwrites a spare instead of creating a file. Creating and deleting files is what costs
 * most on a real file system (inode allocation, block allocation, discards).
 */
export class FileStore implements SpillStore {
  /** The private directory holding the spill files. */
  readonly path: string;
  readonly layout: FileStoreLayout;
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
  /** Reads ask for one byte more than expected, landing here, to tell a longer file from an exact one. */
  private readonly probe = Buffer.alloc(1);
  /** Where a small first frame (a serializer's header) is read, to be copied into memory of its own. */
  private readonly scratch = Buffer.alloc(SMALL_FRAME_BYTES);
  /** `<directory>/.tmp-<pid>-` (layout "keys") or `<directory>/slot-` (layout "slots"). */
  private readonly newFilePrefix: string;
  private fileCounter = 0;
  private closed = false;

  constructor(options: FileStoreOptions = {}) {
    this.maxSpareFiles = checkCount(options.spareFiles ?? DEFAULT_SPARE_FILES, "spareFiles");
    this.maxSpareBytes = checkCount(options.spareBytes ?? DEFAULT_SPARE_BYTES, "spareBytes");
    this.layout = checkLayout(options.layout ?? "keys");
    this.fs = { ...defaultFs(), ...options.fs };
    this.fsync = options.fsync ?? false;
    const parent = path.resolve(options.directory ?? os.tmpdir());
    this.fs.mkdirSync(parent, { recursive: true });
    this.path = this.fs.mkdtempSync(path.join(parent, "spanwork-spill-"));
    this.newFilePrefix = this.inDirectory(this.layout === "keys" ? `${TEMP_PREFIX}${process.pid}-` : SLOT_PREFIX);
  }

  /**
   * Absolute path of the file that holds `key` (layout "keys": or would hold it). Layout
   * "slots" has no such path for a key it does not hold: an ENOENT error naming the key.
   */
  filePath(key: Key): string {
    const known = this.files.get(key);
    if (known !== undefined) return known.path;
    if (this.layout === "slots") throw noSuchKey(key);
    return this.inDirectory(spillFileName(key));
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
    const count = frameLengths.length;
    // A small first frame (the 8-byte header of a binary value) is read into the scratch
    // buffer and copied into a small array of its own: allocating it as a Buffer of its
    // own would cost a native allocation (and more GC work) per read.
    const first = frameLengths[0]!;
    const smallHead = count > 1 && Number.isInteger(first) && first >= 0 && first <= SMALL_FRAME_BYTES;
    const targets: Uint8Array[] = new Array<Uint8Array>(count + 1);
    let expected = 0;
    for (let i = 0; i < count; i++) {
      const length = frameLengths[i]!;
      expected += length;
      // Not zero-filled: returned only when the read filled every byte of every frame.
      targets[i] = i === 0 && smallHead ? this.scratch.subarray(0, length) : Buffer.allocUnsafeSlow(length);
    }
    targets[count] = this.probe;
    const { fd, writable } = this.openForReading(this.filePath(key));
    let keep = false;
    try {
      if (this.readAll(fd, targets) !== expected) return [this.readWhole(fd)];
      keep = writable && this.files.has(key);
    } finally {
      if (keep) this.held = { key, fd };
      else this.fs.closeSync(fd);
    }
    targets.length = count;
    if (smallHead) targets[0] = new Uint8Array(targets[0]!);
    return targets;
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
  // One readv when the file is at least as long as the buffers (the probe byte is full);
  // a second one to see the end of a file exactly as long as expected.
  private readAll(fd: number, buffers: readonly Uint8Array[]): number {
    let total = 0;
    let index = 0;
    let offset = 0; // into buffers[index]
    let pending = buffers;
    for (;;) {
      let read = this.fs.readvSync(fd, pending as Uint8Array[], total);
      if (read === 0) return total;
      total += read;
      while (read > 0 || (index < buffers.length && offset === buffers[index]!.byteLength)) {
        const room = buffers[index]!.byteLength - offset;
        if (read < room) {
          offset += read;
          read = 0;
        } else {
          read -= room;
          index++;
          offset = 0;
        }
        if (index === buffers.length) return total;
      }
      pending = buffers.slice(index);
      if (offset > 0) (pending as Uint8Array[])[0] = pending[0]!.subarray(offset);
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
   * or a new one, then makes it the key's: renamed over the key's name (layout "keys"),
   * or recorded in the index, the key's previous file becoming a spare (layout "slots").
   */
  writeFrames(key: Key, frames: readonly Uint8Array[]): void {
    this.assertOpen(key);
    this.release();
    const target = this.layout === "keys" ? this.filePath(key) : null;
    const spare = this.spares.pop();
    if (spare !== undefined) this.spareTotal -= spare.size;
    const file = spare?.path ?? this.newFileName();
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
      if (target !== null) this.fs.renameSync(file, target);
    } catch (error) {
      this.removeQuietly(file);
      throw error;
    }
    const previous = this.files.get(key);
    this.files.set(key, { path: target ?? file, size: total });
    if (target === null && previous !== undefined) {
      try {
        this.retireSlot(previous, null);
      } catch {
        // The write succeeded: a slot that could not be unlinked is only a leftover file,
        // no key points at it, and it goes away with the directory.
      }
    }
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
   * `key` no longer has a file: it becomes a spare (or is unlinked when the spares are
   * full). Layout "keys" renames it to a temp name first. A missing file is not an error.
   */
  delete(key: Key): void {
    this.assertOpen(key);
    if (this.held !== null && this.held.key !== key) this.release();
    const fd = this.held?.fd ?? null;
    this.held = null;
    const entry = this.files.get(key);
    this.files.delete(key);
    if (this.layout === "slots") {
      if (entry !== undefined) this.retireSlot(entry, fd);
      else if (fd !== null) this.closeQuietly(fd);
      return;
    }
    const file = entry?.path ?? this.filePath(key);
    let kept = false;
    try {
      if (entry !== undefined && this.hasRoomForSpare(entry.size)) {
        const spare = this.newFileName();
        this.fs.renameSync(file, spare);
        this.addSpare({ path: spare, size: entry.size, fd });
        kept = true;
      } else {
        this.fs.unlinkSync(file);
      }
    } catch (error) {
      if (!isMissingFile(error)) throw error;
    } finally {
      if (!kept && fd !== null) this.closeQuietly(fd);
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

  // Layout "slots": a slot no key points at any more is a spare as it is (no rename: its
  // name was never a key's), or is unlinked when the spares are full.
  private retireSlot(entry: KeyFile, fd: number | null): void {
    if (this.hasRoomForSpare(entry.size)) {
      this.addSpare({ path: entry.path, size: entry.size, fd });
      return;
    }
    if (fd !== null) this.closeQuietly(fd);
    try {
      this.fs.unlinkSync(entry.path);
    } catch (error) {
      if (!isMissingFile(error)) throw error;
    }
  }

  private hasRoomForSpare(size: number): boolean {
    return this.spares.length < this.maxSpareFiles && this.spareTotal + size <= this.maxSpareBytes;
  }

  private addSpare(spare: SpareFile): void {
    this.spares.push(spare);
    this.spareTotal += spare.size;
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

  // A temp name (layout "keys") or a slot (layout "slots"), never used before by this store.
  private newFileName(): string {
    return `${this.newFilePrefix}${++this.fileCounter}`;
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
      // Best effort: the file may never have been created; a leftover one is invisible to
      // reads (no key's name or index entry points at it) and goes away with the directory.
    }
  }
}

function noSuchKey(key: Key): Error {
  return Object.assign(new Error(`ENOENT: the spill store holds no file for key ${JSON.stringify(key)}`), { code: "ENOENT" });
}

function checkLayout(value: unknown): FileStoreLayout {
  if (value !== "keys" && value !== "slots") {
    throw new TypeError(`FileStore layout must be "keys" or "slots"; got ${JSON.stringify(value)}`);
  }
  return value;
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
