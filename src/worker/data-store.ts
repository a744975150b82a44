// The store the WorkerState writes into, wrapped so that no spill activity goes
// unattributed, plus the default spill backend that only creates its directory when
// something is actually spilled.
import type { Span } from "../spans/index.js";
import { hasCurrentSpan } from "../spans/context.js";
import { FileStore, type SpillStore, type ModelledDuration, type ModelledFramesRead, type ModelledRead } from "../spill/index.js";
import type { Key } from "../state/index.js";
import type { WorkerDataStore } from "./types.js";

/**
 * Forwards to `inner`; a value access (get/set/delete/evict) made outside any span — e.g.
 * user code calling `worker.data.get(key)` directly — runs inside a short `["unattributed"]`
 * root that `onRoot` digests, so the spill activity it causes is still counted somewhere.
 * Accesses made by the worker itself always happen inside one of its roots.
 */
export class AttributedStore implements WorkerDataStore {
  readonly #inner: WorkerDataStore;
  readonly #onRoot: (root: Span) => void;
  readonly #newRoot: () => Span;

  constructor(inner: WorkerDataStore, newRoot: () => Span, onRoot: (root: Span) => void) {
    this.#inner = inner;
    this.#newRoot = newRoot;
    this.#onRoot = onRoot;
  }

  get inner(): WorkerDataStore {
    return this.#inner;
  }

  #attributed<T>(access: () => T): T {
    if (hasCurrentSpan()) return access();
    const root = this.#newRoot().start();
    try {
      const result = root.runSync(access);
      root.setAttribute("outcome", "ok");
      return result;
    } catch (error) {
      root.setAttribute("outcome", "failed");
      throw error;
    } finally {
      this.#onRoot(root);
    }
  }

  has(key: Key): boolean {
    return this.#inner.has(key);
  }

  get(key: Key): unknown {
    return this.#attributed(() => this.#inner.get(key));
  }

  set(key: Key, value: unknown): this {
    this.#attributed(() => this.#inner.set(key, value));
    return this;
  }

  delete(key: Key): unknown {
    return this.#attributed(() => this.#inner.delete(key));
  }

  get size(): number {
    return this.#inner.size;
  }

  keys(): IterableIterator<Key> {
    return this.#inner.keys();
  }

  evict(): number {
    const evict = this.#inner.evict;
    if (evict === undefined) return -1;
    return this.#attributed(() => evict.call(this.#inner));
  }
}

/** The default file store of a Worker's SpillBuffer, created on first use. */
export class LazyFileStore implements SpillStore {
  readonly #directory: string | undefined;
  #store: FileStore | undefined;

  constructor(directory?: string) {
    this.#directory = directory;
  }

  /** The spill directory, once something was spilled. */
  get path(): string | undefined {
    return this.#store?.path;
  }

  #open(): FileStore {
    this.#store ??= new FileStore(this.#directory === undefined ? {} : { directory: this.#directory });
    return this.#store;
  }

  read(key: Key, byteLength?: number): Uint8Array | ModelledRead {
    return this.#open().read(key, byteLength);
  }

  readFrames(key: Key, frameLengths: readonly number[]): readonly Uint8Array[] | ModelledFramesRead {
    return this.#open().readFrames(key, frameLengths);
  }

  write(key: Key, bytes: Uint8Array): void | ModelledDuration {
    return this.#open().write(key, bytes);
  }

  writeFrames(key: Key, frames: readonly Uint8Array[]): void | ModelledDuration {
    return this.#open().writeFrames(key, frames);
  }

  delete(key: Key): void {
    this.#store?.delete(key);
  }

  close(): void {
    this.#store?.close();
  }
}
