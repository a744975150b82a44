import type { Key } from "./key.js";

/** A node of the LRU list: the value, its weight and its neighbours (older, newer). */
interface FastEntry {
  readonly key: Key;
  value: unknown;
  weight: number;
  older: FastEntry | null;
  newer: FastEntry | null;
}

/** Read-only view of the in-memory tier (dask's `SpillBuffer.fast`, a zict LRU). */
export interface FastTierView {
  has(key: Key): boolean;
  readonly size: number;
  /** sizeof weight per key, in LRU order (least recently used first). */
  readonly weights: ReadonlyMap<Key, number>;
  readonly totalWeight: number;
  /** Keys heavier than target still waiting to be evicted, oldest first. */
  readonly heavy: ReadonlySet<Key>;
  /** Keys from least to most recently used (eviction order after the heavy keys). */
  keys(): IterableIterator<Key>;
}

/**
 * zict's LRU without its callbacks: a Map from key to node of an intrusive doubly linked
 * list in LRU order (oldest first), so a hit is one Map lookup and two pointer moves
 * (a Map delete + re-insert costs three hash operations and leaves holes to compact),
 * plus an insertion-ordered Set of heavy keys (weight > target at insertion), which are
 * evicted first.
 */
export class FastTier implements FastTierView {
  private readonly entries = new Map<Key, FastEntry>();
  private readonly heavyKeys = new Set<Key>();
  private oldest: FastEntry | null = null;
  private newest: FastEntry | null = null;
  private total = 0;
  readonly weights: ReadonlyMap<Key, number> = new WeightsView(this);

  get size(): number {
    return this.entries.size;
  }

  get totalWeight(): number {
    return this.total;
  }

  get heavy(): ReadonlySet<Key> {
    return this.heavyKeys;
  }

  has(key: Key): boolean {
    return this.entries.has(key);
  }

  *keys(): IterableIterator<Key> {
    for (const e of this.nodes()) yield e.key;
  }

  *values(): IterableIterator<unknown> {
    for (const e of this.nodes()) yield e.value;
  }

  /**
   * @internal nodes from oldest to newest. Walks a snapshot, so changing the buffer while
   * iterating is safe: keys removed meanwhile are skipped, keys added are not visited.
   */
  *nodes(): IterableIterator<Readonly<FastEntry>> {
    const snapshot: FastEntry[] = [];
    for (let e = this.oldest; e !== null; e = e.newer) snapshot.push(e);
    for (const e of snapshot) if (this.entries.get(e.key) === e) yield e;
  }

  weightOf(key: Key): number | undefined {
    return this.entries.get(key)?.weight;
  }

  /** The entry of `key`, moved to the most-recently-used end; undefined when absent. */
  touch(key: Key): { readonly value: unknown; readonly weight: number } | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry !== this.newest) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry;
  }

  /**
   * zict's `set_noevict` for a key not in this tier (callers remove it first): insert at
   * the MRU end; heavy when weight > target (strictly).
   */
  insert(key: Key, value: unknown, weight: number, target: number): void {
    const entry: FastEntry = { key, value, weight, older: null, newer: null };
    this.entries.set(key, entry);
    this.append(entry);
    this.total += weight;
    if (weight > target) this.heavyKeys.add(key);
  }

  /** Removes `key` if present; true when it was there. */
  remove(key: Key): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    this.unlink(entry);
    if (this.heavyKeys.size > 0) this.heavyKeys.delete(key);
    this.total -= entry.weight;
    return true;
  }

  /** The next key to evict: the oldest heavy key, else the least recently used. */
  nextVictim(): Key | undefined {
    if (this.heavyKeys.size > 0) return this.heavyKeys.values().next().value;
    return this.oldest?.key;
  }

  /**
   * zict drops the key from the heavy set *before* trying to spill it, so a heavy key
   * that fails to evict stays in memory as an ordinary key at its LRU position.
   */
  unmarkHeavy(key: Key): void {
    this.heavyKeys.delete(key);
  }

  isHeavy(key: Key): boolean {
    return this.heavyKeys.has(key);
  }

  entry(key: Key): { readonly value: unknown; readonly weight: number } | undefined {
    return this.entries.get(key);
  }

  private append(entry: FastEntry): void {
    entry.older = this.newest;
    entry.newer = null;
    if (this.newest !== null) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: FastEntry): void {
    if (entry.older !== null) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer !== null) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = null;
    entry.newer = null;
  }
}

/** `fast.weights` as a live read-only Map view (LRU order, no copy per access). */
class WeightsView implements ReadonlyMap<Key, number> {
  constructor(private readonly tier: FastTier) {}

  get size(): number {
    return this.tier.size;
  }

  get(key: Key): number | undefined {
    return this.tier.weightOf(key);
  }

  has(key: Key): boolean {
    return this.tier.has(key);
  }

  forEach(callback: (value: number, key: Key, map: ReadonlyMap<Key, number>) => void, thisArg?: unknown): void {
    for (const node of this.tier.nodes()) callback.call(thisArg, node.weight, node.key, this);
  }

  keys(): MapIterator<Key> {
    return this.tier.keys();
  }

  *values(): MapIterator<number> {
    for (const node of this.tier.nodes()) yield node.weight;
  }

  *entries(): MapIterator<[Key, number]> {
    for (const node of this.tier.nodes()) yield [node.key, node.weight];
  }

  [Symbol.iterator](): MapIterator<[Key, number]> {
    return this.entries();
  }
}
