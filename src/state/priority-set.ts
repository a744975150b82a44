// A set ordered by priority (dask's HeapSet): O(log n) add/pop, O(1) has/discard.
//
// Binary heap over parallel arrays (item, priority captured at insertion, insertion
// sequence) plus a Map item → sequence of its live entry. `discard` only forgets the
// membership; the heap entry becomes stale and is skipped when it reaches the top, and the
// arrays are compacted when stale entries outnumber live ones. Unlike dask's HeapSet, a
// re-added item always takes its new priority and a new rank: its stale entry can never
// win (the sequence numbers differ).
import type { Priority } from "./events.js";

const EMPTY_PRIORITY: Priority = [];

/** Python tuple order: lexicographic, a strict prefix sorts first. */
export function comparePriority(a: Priority, b: Priority): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export interface ReadonlyPrioritySet<T> extends Iterable<T> {
  readonly size: number;
  has(item: T): boolean;
  /** The most urgent item (lowest priority, oldest on ties). */
  peek(): T | undefined;
  /** All items, most urgent first (a fresh array). */
  sorted(): T[];
  values(): IterableIterator<T>;
}

export class PrioritySet<T> implements ReadonlyPrioritySet<T> {
  private items: T[] = [];
  private priorities: Priority[] = [];
  private seqs: number[] = [];
  private readonly live = new Map<T, number>();
  private nextSeq = 0;
  private readonly priorityOf: (item: T) => Priority | null;

  constructor(priorityOf: (item: T) => Priority | null) {
    this.priorityOf = priorityOf;
  }

  get size(): number {
    return this.live.size;
  }

  has(item: T): boolean {
    return this.live.has(item);
  }

  add(item: T): void {
    if (this.live.has(item)) return;
    const seq = this.nextSeq++;
    this.live.set(item, seq);
    this.items.push(item);
    this.priorities.push(this.priorityOf(item) ?? EMPTY_PRIORITY);
    this.seqs.push(seq);
    this.siftUp(this.items.length - 1);
  }

  /** Remove `item`; throws when absent (dask's `HeapSet.remove`). */
  remove(item: T): void {
    if (!this.discard(item)) throw new Error(`PrioritySet.remove: ${String(item)} is not in the set`);
  }

  /** Remove `item` if present; returns whether it was. */
  discard(item: T): boolean {
    if (!this.live.delete(item)) return false;
    if (this.live.size === 0) {
      this.resetArrays();
    } else if (this.items.length > 2 * this.live.size + 32) {
      this.compact();
    }
    return true;
  }

  peek(): T | undefined {
    this.dropStaleTop();
    return this.items.length > 0 ? this.items[0] : undefined;
  }

  /** Remove and return the most urgent item. */
  pop(): T | undefined {
    this.dropStaleTop();
    if (this.items.length === 0) return undefined;
    const top = this.items[0] as T;
    this.live.delete(top);
    this.removeTop();
    if (this.live.size === 0) this.resetArrays();
    return top;
  }

  clear(): void {
    this.live.clear();
    this.resetArrays();
  }

  sorted(): T[] {
    const entries: { item: T; priority: Priority; seq: number }[] = [];
    const { items, priorities, seqs, live } = this;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as T;
      if (live.get(item) === seqs[i]) entries.push({ item, priority: priorities[i] as Priority, seq: seqs[i] as number });
    }
    entries.sort((a, b) => comparePriority(a.priority, b.priority) || a.seq - b.seq);
    return entries.map((e) => e.item);
  }

  values(): IterableIterator<T> {
    return this.sorted()[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }

  // ---- heap internals ---------------------------------------------------------------

  private less(i: number, j: number): boolean {
    const c = comparePriority(this.priorities[i] as Priority, this.priorities[j] as Priority);
    return c < 0 || (c === 0 && (this.seqs[i] as number) < (this.seqs[j] as number));
  }

  private swap(i: number, j: number): void {
    const { items, priorities, seqs } = this;
    const item = items[i] as T;
    items[i] = items[j] as T;
    items[j] = item;
    const priority = priorities[i] as Priority;
    priorities[i] = priorities[j] as Priority;
    priorities[j] = priority;
    const seq = seqs[i] as number;
    seqs[i] = seqs[j] as number;
    seqs[j] = seq;
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.items.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.less(right, left) ? right : left;
      if (!this.less(child, i)) return;
      this.swap(i, child);
      i = child;
    }
  }

  private removeTop(): void {
    const last = this.items.length - 1;
    if (last > 0) this.swap(0, last);
    this.items.pop();
    this.priorities.pop();
    this.seqs.pop();
    if (last > 0) this.siftDown(0);
  }

  private dropStaleTop(): void {
    const { items, seqs, live } = this;
    while (items.length > 0 && live.get(items[0] as T) !== seqs[0]) this.removeTop();
  }

  private resetArrays(): void {
    if (this.items.length === 0) return;
    this.items = [];
    this.priorities = [];
    this.seqs = [];
  }

  private compact(): void {
    const { items, priorities, seqs, live } = this;
    const keptItems: T[] = [];
    const keptPriorities: Priority[] = [];
    const keptSeqs: number[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as T;
      if (live.get(item) === seqs[i]) {
        keptItems.push(item);
        keptPriorities.push(priorities[i] as Priority);
        keptSeqs.push(seqs[i] as number);
      }
    }
    this.items = keptItems;
    this.priorities = keptPriorities;
    this.seqs = keptSeqs;
    for (let i = (keptItems.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }
}
