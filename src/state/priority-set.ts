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
// - entries stored column-wise (`EntryColumns`, priority-entries.ts: parallel arrays, no
//   object per entry);
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
// SharedSlotPrioritySet in slot-priority-set.ts): no hashing per add, pop and membership test.
import type { Priority } from "./events.js";
import { EMPTY_PRIORITY, EntryColumns, comparePriority, element, sortsBefore, sortsBeforeEntry } from "./priority-entries.js";

/** Below this many slots an emptied run keeps its arrays (see `clearRun`). */
const RUN_REUSE_LIMIT = 1024;
/** A consumed run prefix this long (and half the run) is sliced off. */
const RUN_SHIFT_MIN = 1024;

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
