// A set ordered by priority (dask's HeapSet): O(log n) add/pop, O(1) has/discard.
//
// Membership (item → sequence number of its live entry) says what is in the set; the
// entries say in which order. `discard` only forgets the membership: the entry goes stale
// and is skipped when it reaches the top, and the entries are compacted when stale ones
// outnumber live ones. Unlike dask's HeapSet, a re-added item always takes its new priority
// and a new rank: its stale entry can never win (the sequence numbers differ).
//
// Why a specialised structure and not the generic `(rank, seq)` min-heap of
// src/util/min-heap.ts: priorities here are dask's variable-length tuples compared
// lexicographically (a strict prefix first), the set needs O(1) membership, discard and
// re-add, and the ready, constrained and fetch queues are the state machine's hottest
// structures. Three devices pay for themselves, measured on this machine (CPU time per add +
// pop of 20,000 items, median of 12 alternating rounds, load 10–14 on 2 cores):
// - entries stored column-wise (`EntryColumns`: parallel arrays, no object per entry);
// - the first two priority elements unboxed beside each entry: random priorities cost
//   375 ns per item (fill then drain) with them, 774 ns without (170 vs 233 ns when ~64
//   items are queued): most comparisons never load the priority arrays, which are
//   scattered over the heap;
// - the sorted run: items usually arrive in priority order (the scheduler's priorities grow
//   with submission order; a fetch queue fills in its dependents' order), and such an item
//   goes to a FIFO run instead of the heap — O(1) add and pop, no sifting. In-order items
//   cost 121 ns per item with it, 238 ns without (99 vs 154 ns steady); the state
//   benchmark's W1, which queues all 20,000 tasks in `ready`, takes 7 % more CPU without it
//   (median of 6 pairs, range −3 % to +20 %). `pop`/`peek` take the more urgent of the run's
//   head and the heap's top, so the order is exactly that of one heap over (priority, rank).
// And membership lives on the items for the task queues (SlotPrioritySet,
// SharedSlotPrioritySet): no hashing per add, pop and membership test.
import type { Priority } from "./events.js";

const EMPTY_PRIORITY: Priority = [];
/** Below this many slots an emptied run keeps its arrays (see `clearRun`). */
const RUN_REUSE_LIMIT = 1024;
/** A consumed run prefix this long (and half the run) is sliced off. */
const RUN_SHIFT_MIN = 1024;

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

/** Element `i` of a priority, unboxed for comparisons; -Infinity when absent (prefix first). */
function element(priority: Priority, i: number): number {
  return priority.length > i ? (priority[i] as number) : -Infinity;
}

/** Whether entry (first, second, priority, seq) sorts before entry (firstB, secondB, priorityB, seqB). */
function sortsBefore(
  first: number,
  second: number,
  priority: Priority,
  seq: number,
  firstB: number,
  secondB: number,
  priorityB: Priority,
  seqB: number,
): boolean {
  if (first !== firstB) return first < firstB;
  if (second !== secondB) return second < secondB;
  const c = comparePriority(priority, priorityB);
  return c < 0 || (c === 0 && seq < seqB);
}

/**
 * `sortsBefore` against entry `j` of columns, loading its fields only as far as the
 * comparison needs them (most comparisons end at the first element).
 */
function sortsBeforeEntry(
  first: number,
  second: number,
  priority: Priority,
  seq: number,
  firsts: readonly number[],
  seconds: readonly number[],
  priorities: readonly Priority[],
  seqs: readonly number[],
  j: number,
): boolean {
  const firstJ = firsts[j] as number;
  if (first !== firstJ) return first < firstJ;
  const secondJ = seconds[j] as number;
  if (second !== secondJ) return second < secondJ;
  const c = comparePriority(priority, priorities[j] as Priority);
  return c < 0 || (c === 0 && seq < (seqs[j] as number));
}

/**
 * Entries (item, the priority captured when it was added, its sequence number, and the
 * priority's first two elements unboxed) as parallel arrays: no object per entry.
 */
class EntryColumns<T> {
  items: T[] = [];
  priorities: Priority[] = [];
  seqs: number[] = [];
  firsts: number[] = [];
  seconds: number[] = [];

  get length(): number {
    return this.items.length;
  }

  push(item: T, priority: Priority, seq: number, first: number, second: number): void {
    this.items.push(item);
    this.priorities.push(priority);
    this.seqs.push(seq);
    this.firsts.push(first);
    this.seconds.push(second);
  }

  set(i: number, item: T, priority: Priority, seq: number, first: number, second: number): void {
    this.items[i] = item;
    this.priorities[i] = priority;
    this.seqs[i] = seq;
    this.firsts[i] = first;
    this.seconds[i] = second;
  }

  move(from: number, to: number): void {
    this.set(
      to,
      this.items[from] as T,
      this.priorities[from] as Priority,
      this.seqs[from] as number,
      this.firsts[from] as number,
      this.seconds[from] as number,
    );
  }

  /** Drop the last entry (its fields must have been read first). */
  popLast(): void {
    this.items.pop();
    this.priorities.pop();
    this.seqs.pop();
    this.firsts.pop();
    this.seconds.pop();
  }

  /** Let go of what entry `i` references (a consumed run entry). */
  release(i: number): void {
    (this.items as (T | undefined)[])[i] = undefined;
    this.priorities[i] = EMPTY_PRIORITY;
  }

  /** Whether entry `i` sorts before entry `j` of `other`. */
  entryBefore(i: number, other: EntryColumns<T>, j: number): boolean {
    return sortsBefore(
      this.firsts[i] as number,
      this.seconds[i] as number,
      this.priorities[i] as Priority,
      this.seqs[i] as number,
      other.firsts[j] as number,
      other.seconds[j] as number,
      other.priorities[j] as Priority,
      other.seqs[j] as number,
    );
  }

  /** The entries from `start` on for which `keep(item, seq)` holds, in order. */
  filtered(start: number, keep: (item: T, seq: number) => boolean): EntryColumns<T> {
    const kept = new EntryColumns<T>();
    for (let i = start; i < this.items.length; i++) {
      const item = this.items[i] as T;
      const seq = this.seqs[i] as number;
      if (keep(item, seq)) kept.push(item, this.priorities[i] as Priority, seq, this.firsts[i] as number, this.seconds[i] as number);
    }
    return kept;
  }

  /** The entries from `start` on, as columns of their own (a shifted run). */
  sliced(start: number): EntryColumns<T> {
    const kept = new EntryColumns<T>();
    kept.items = this.items.slice(start);
    kept.priorities = this.priorities.slice(start);
    kept.seqs = this.seqs.slice(start);
    kept.firsts = this.firsts.slice(start);
    kept.seconds = this.seconds.slice(start);
    return kept;
  }
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
  /** A binary min-heap of entries, for items that arrive out of order. */
  private heap = new EntryColumns<T>();
  /** The sorted run: entries `runHead`.. are in increasing (priority, seq) order. */
  private run = new EntryColumns<T>();
  private runHead = 0;
  /** Membership for this base class only (the slot subclasses never create it). */
  private live: Map<T, number> | null = null;
  private nextSeq = 0;
  private readonly priorityOf: (item: T) => Priority | null;

  constructor(priorityOf: (item: T) => Priority | null) {
    this.priorityOf = priorityOf;
  }

  get size(): number {
    return this.live === null ? 0 : this.live.size;
  }

  has(item: T): boolean {
    return this.liveSeq(item) !== undefined;
  }

  // ---- membership: item → sequence of its live entry. A Map here; the slot subclasses
  // keep it on the items themselves (no hashing, and no Map of every queued task to walk).

  protected liveSeq(item: T): number | undefined {
    return this.live === null ? undefined : this.live.get(item);
  }

  protected markLive(item: T, seq: number): void {
    (this.live ??= new Map()).set(item, seq);
  }

  /** Forget `item`'s membership; whether it was a member. */
  protected unmarkLive(item: T): boolean {
    return this.live !== null && this.live.delete(item);
  }

  protected clearLive(): void {
    this.live = null;
  }

  add(item: T): void {
    if (this.liveSeq(item) !== undefined) return;
    const seq = this.nextSeq++;
    this.markLive(item, seq);
    const priority = this.priorityOf(item) ?? EMPTY_PRIORITY;
    const first = element(priority, 0);
    const second = element(priority, 1);
    const run = this.run;
    const last = run.length - 1;
    // Sorts after the run's tail (always true for a later seq with an equal priority).
    if (
      last < this.runHead ||
      !sortsBefore(first, second, priority, seq, run.firsts[last] as number, run.seconds[last] as number, run.priorities[last] as Priority, run.seqs[last] as number)
    ) {
      run.push(item, priority, seq, first, second);
      return;
    }
    this.heap.push(item, priority, seq, first, second);
    this.siftUp(this.heap.length - 1);
  }

  /** Remove `item`; throws when absent (dask's `HeapSet.remove`). */
  remove(item: T): void {
    if (!this.discard(item)) throw new Error(`PrioritySet.remove: ${String(item)} is not in the set`);
  }

  /** Remove `item` if present; returns whether it was. */
  discard(item: T): boolean {
    if (!this.unmarkLive(item)) return false;
    const size = this.size;
    if (size === 0) {
      this.resetEntries();
    } else if (this.heap.length + this.run.length - this.runHead > 2 * size + 32) {
      this.compact();
    }
    return true;
  }

  peek(): T | undefined {
    const fromRun = this.topIsRun();
    if (fromRun === null) return undefined;
    return fromRun ? this.run.items[this.runHead] : this.heap.items[0];
  }

  /** Remove and return the most urgent item. */
  pop(): T | undefined {
    const fromRun = this.topIsRun();
    if (fromRun === null) return undefined;
    let top: T;
    if (fromRun) {
      top = this.run.items[this.runHead] as T;
      this.advanceRun();
    } else {
      top = this.heap.items[0] as T;
      this.removeHeapTop();
    }
    this.unmarkLive(top);
    if (this.size === 0) this.resetEntries();
    return top;
  }

  clear(): void {
    this.clearLive();
    this.resetEntries();
  }

  sorted(): T[] {
    const entries: { item: T; priority: Priority; seq: number }[] = [];
    for (const [columns, start] of [
      [this.heap, 0],
      [this.run, this.runHead],
    ] as const) {
      for (let i = start; i < columns.length; i++) {
        const item = columns.items[i] as T;
        const seq = columns.seqs[i] as number;
        if (this.liveSeq(item) === seq) entries.push({ item, priority: columns.priorities[i] as Priority, seq });
      }
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

  // ---- the run ----------------------------------------------------------------------

  /** Drop stale tops; whether the most urgent live entry heads the run (null: empty). */
  private topIsRun(): boolean | null {
    this.dropStaleHeapTop();
    // advanceRun may replace the run's columns: re-read them on every step.
    while (this.runHead < this.run.length && this.liveSeq(this.run.items[this.runHead] as T) !== this.run.seqs[this.runHead]) {
      this.advanceRun();
    }
    if (this.runHead >= this.run.length) return this.heap.length > 0 ? false : null;
    if (this.heap.length === 0) return true;
    return this.run.entryBefore(this.runHead, this.heap, 0);
  }

  private advanceRun(): void {
    const h = this.runHead;
    const n = this.run.length;
    if (h + 1 >= n) {
      this.clearRun();
      return;
    }
    // Release the references of consumed entries; shift the run down now and then.
    this.run.release(h);
    this.runHead = h + 1;
    if (h >= RUN_SHIFT_MIN && 2 * h >= n) {
      this.run = this.run.sliced(h + 1);
      this.runHead = 0;
    }
  }

  private clearRun(): void {
    const run = this.run;
    const n = run.length;
    if (n < RUN_REUSE_LIMIT) {
      // Keep the columns and mark everything consumed: a queue that empties after every
      // task (a chain) would otherwise allocate five backing stores per add (~800 bytes).
      for (let i = this.runHead; i < n; i++) run.release(i);
      this.runHead = n;
      return;
    }
    this.runHead = 0;
    this.run = new EntryColumns();
  }

  // ---- the heap ---------------------------------------------------------------------

  // Sifting moves a "hole" instead of swapping, comparing the moving entry's captured
  // priority and sequence against each parent/child (fewer writes, no re-reads). The
  // column arrays are read into locals: these loops are the heap's whole cost.

  private siftUp(i: number): void {
    const { items, priorities, seqs, firsts, seconds } = this.heap;
    const item = items[i] as T;
    const priority = priorities[i] as Priority;
    const seq = seqs[i] as number;
    const first = firsts[i] as number;
    const second = seconds[i] as number;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!sortsBeforeEntry(first, second, priority, seq, firsts, seconds, priorities, seqs, parent)) break;
      items[i] = items[parent] as T;
      priorities[i] = priorities[parent] as Priority;
      seqs[i] = seqs[parent] as number;
      firsts[i] = firsts[parent] as number;
      seconds[i] = seconds[parent] as number;
      i = parent;
    }
    items[i] = item;
    priorities[i] = priority;
    seqs[i] = seq;
    firsts[i] = first;
    seconds[i] = second;
  }

  private siftDown(i: number): void {
    const { items, priorities, seqs, firsts, seconds } = this.heap;
    const n = items.length;
    const item = items[i] as T;
    const priority = priorities[i] as Priority;
    const seq = seqs[i] as number;
    const first = firsts[i] as number;
    const second = seconds[i] as number;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (
        right < n &&
        sortsBeforeEntry(firsts[right] as number, seconds[right] as number, priorities[right] as Priority, seqs[right] as number, firsts, seconds, priorities, seqs, child)
      ) {
        child = right;
      }
      if (sortsBeforeEntry(first, second, priority, seq, firsts, seconds, priorities, seqs, child)) break;
      items[i] = items[child] as T;
      priorities[i] = priorities[child] as Priority;
      seqs[i] = seqs[child] as number;
      firsts[i] = firsts[child] as number;
      seconds[i] = seconds[child] as number;
      i = child;
    }
    items[i] = item;
    priorities[i] = priority;
    seqs[i] = seq;
    firsts[i] = first;
    seconds[i] = second;
  }

  private removeHeapTop(): void {
    const heap = this.heap;
    const last = heap.length - 1;
    if (last > 0) heap.move(last, 0);
    heap.popLast();
    if (last > 0) this.siftDown(0);
  }

  private dropStaleHeapTop(): void {
    const heap = this.heap;
    while (heap.length > 0 && this.liveSeq(heap.items[0] as T) !== heap.seqs[0]) this.removeHeapTop();
  }

  private resetEntries(): void {
    this.clearRun();
    if (this.heap.length > 0) this.heap = new EntryColumns();
  }

  /** Keep the live entries only: re-heapify them, and filter the run (it stays sorted). */
  private compact(): void {
    const isLive = (item: T, seq: number): boolean => this.liveSeq(item) === seq;
    this.heap = this.heap.filtered(0, isLive);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
    this.run = this.run.filtered(this.runHead, isLive);
    this.runHead = 0;
  }
}

/** An item that can carry its membership of one SlotPrioritySet at a time. */
export interface QueueSlot {
  /** @internal the SlotPrioritySet holding this item, or null */
  _queue: object | null;
  /** @internal sequence of the item's live entry in `_queue` */
  _queueSeq: number;
}

/**
 * A PrioritySet for queues an item may be in several of at once (a fetch task is queued
 * for every worker that holds it): the first such queue to take an item records the
 * membership on the item's slot, the others in a Map. Most fetch tasks have one holder,
 * so most membership tests read a field instead of hashing the task into a large Map.
 * An item whose slot another queue holds is never refused.
 */
export class SharedSlotPrioritySet<T extends QueueSlot> extends PrioritySet<T> {
  private slotted = 0;
  private overflow: Map<T, number> | null = null;

  override get size(): number {
    return this.slotted + (this.overflow === null ? 0 : this.overflow.size);
  }

  protected override liveSeq(item: T): number | undefined {
    if (item._queue === this) return item._queueSeq;
    return this.overflow === null ? undefined : this.overflow.get(item);
  }

  protected override markLive(item: T, seq: number): void {
    if (item._queue === null) {
      item._queue = this;
      item._queueSeq = seq;
      this.slotted++;
    } else {
      (this.overflow ??= new Map()).set(item, seq);
    }
  }

  protected override unmarkLive(item: T): boolean {
    if (item._queue === this) {
      item._queue = null;
      this.slotted--;
      return true;
    }
    return this.overflow !== null && this.overflow.delete(item);
  }

  protected override clearLive(): void {
    for (const item of this.sorted()) if (item._queue === this) item._queue = null;
    this.slotted = 0;
    this.overflow = null;
  }
}

/**
 * A PrioritySet that records membership on the items (`_queue`, `_queueSeq`) instead of
 * in a Map: for queues whose items are in at most one such queue at a time (a task is
 * either ready or constrained). `add` of an item held by another slot queue throws.
 */
export class SlotPrioritySet<T extends QueueSlot> extends SharedSlotPrioritySet<T> {
  protected override markLive(item: T, seq: number): void {
    if (item._queue !== null) throw new Error(`SlotPrioritySet.add: ${String(item)} is already in another queue`);
    super.markLive(item, seq);
  }
}
