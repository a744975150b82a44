// A set ordered by priority (dask's HeapSet): O(log n) add/pop, O(1) has/discard.
//
// Binary heap over parallel arrays (item, priority captured at insertion, insertion
// sequence) plus the membership item → sequence of its live entry (a Map, or fields on
// the items for SlotPrioritySet). `discard` only forgets the
// membership; the heap entry becomes stale and is skipped when it reaches the top, and the
// arrays are compacted when stale entries outnumber live ones. Unlike dask's HeapSet, a
// re-added item always takes its new priority and a new rank: its stale entry can never
// win (the sequence numbers differ).
//
// Sorted-run fast path: items usually arrive in priority order (the scheduler's priorities
// grow with submission order; a worker's fetch queue fills in dependents' order). An item
// that sorts after the last one appended to the run goes to a FIFO "run" instead of the
// heap: O(1) add and pop, no sifting. `pop`/`peek` take the more urgent of the run's head
// and the heap's top, so the order is exactly that of a single heap over (priority, rank).
import type { Priority } from "./events.js";

const EMPTY_PRIORITY: Priority = [];
/** Below this many slots an emptied run keeps its arrays (see clearRun). */
const RUN_REUSE_LIMIT = 1024;

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
  // The first two priority elements, unboxed beside the heap (-Infinity when absent: a
  // strict prefix sorts first). Most comparisons are decided here without touching the
  // priority arrays themselves, which are scattered over the heap (cache misses).
  private firsts: number[] = [];
  private seconds: number[] = [];
  // The sorted run: entries runHead.. are in increasing (priority, seq) order.
  private runItems: T[] = [];
  private runPriorities: Priority[] = [];
  private runSeqs: number[] = [];
  private runFirsts: number[] = [];
  private runSeconds: number[] = [];
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

  // ---- membership: item → sequence of its live entry. A Map here; SlotPrioritySet keeps
  // it on the items themselves (no hashing, and no Map of every queued task to walk).

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
    const f = priority.length > 0 ? (priority[0] as number) : -Infinity;
    const sec = priority.length > 1 ? (priority[1] as number) : -Infinity;
    const last = this.runItems.length - 1;
    if (last < this.runHead || !this.entryBefore(f, sec, priority, seq, this.runFirsts[last] as number, this.runSeconds[last] as number, this.runPriorities[last] as Priority, this.runSeqs[last] as number)) {
      // Sorts after the run's tail (always true for a later seq with an equal priority).
      this.runItems.push(item);
      this.runPriorities.push(priority);
      this.runSeqs.push(seq);
      this.runFirsts.push(f);
      this.runSeconds.push(sec);
      return;
    }
    this.items.push(item);
    this.priorities.push(priority);
    this.seqs.push(seq);
    this.firsts.push(f);
    this.seconds.push(sec);
    this.siftUp(this.items.length - 1);
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
      this.resetArrays();
    } else if (this.items.length + this.runItems.length - this.runHead > 2 * size + 32) {
      this.compact();
    }
    return true;
  }

  peek(): T | undefined {
    const fromRun = this.topIsRun();
    if (fromRun === null) return undefined;
    return fromRun ? this.runItems[this.runHead] : this.items[0];
  }

  /** Remove and return the most urgent item. */
  pop(): T | undefined {
    const fromRun = this.topIsRun();
    if (fromRun === null) return undefined;
    let top: T;
    if (fromRun) {
      top = this.runItems[this.runHead] as T;
      this.advanceRun();
    } else {
      top = this.items[0] as T;
      this.removeTop();
    }
    this.unmarkLive(top);
    if (this.size === 0) this.resetArrays();
    return top;
  }

  /** Drop stale tops; whether the most urgent live entry heads the run (null: empty). */
  private topIsRun(): boolean | null {
    this.dropStaleTop();
    // advanceRun may replace the run arrays: re-read them on every step.
    while (this.runHead < this.runItems.length && this.liveSeq(this.runItems[this.runHead] as T) !== this.runSeqs[this.runHead]) {
      this.advanceRun();
    }
    const h = this.runHead;
    const runSeqs = this.runSeqs;
    if (h >= this.runItems.length) return this.items.length > 0 ? false : null;
    if (this.items.length === 0) return true;
    return this.entryBefore(
      this.runFirsts[h] as number,
      this.runSeconds[h] as number,
      this.runPriorities[h] as Priority,
      runSeqs[h] as number,
      this.firsts[0] as number,
      this.seconds[0] as number,
      this.priorities[0] as Priority,
      this.seqs[0] as number,
    );
  }

  private advanceRun(): void {
    const h = this.runHead;
    const n = this.runItems.length;
    if (h + 1 >= n) {
      this.clearRun();
      return;
    }
    // Release the references of consumed entries; shift the run down now and then.
    (this.runItems as (T | undefined)[])[h] = undefined;
    this.runPriorities[h] = EMPTY_PRIORITY;
    this.runHead = h + 1;
    if (h >= 1024 && 2 * h >= n) {
      this.runItems = this.runItems.slice(h + 1);
      this.runPriorities = this.runPriorities.slice(h + 1);
      this.runSeqs = this.runSeqs.slice(h + 1);
      this.runFirsts = this.runFirsts.slice(h + 1);
      this.runSeconds = this.runSeconds.slice(h + 1);
      this.runHead = 0;
    }
  }

  private clearRun(): void {
    const n = this.runItems.length;
    if (n < RUN_REUSE_LIMIT) {
      // Keep the arrays and mark everything consumed: a queue that empties after every
      // task (a chain) would otherwise allocate five backing stores per add (~800 bytes).
      for (let i = this.runHead; i < n; i++) {
        (this.runItems as (T | undefined)[])[i] = undefined;
        this.runPriorities[i] = EMPTY_PRIORITY;
      }
      this.runHead = n;
      return;
    }
    this.runHead = 0;
    this.runItems = [];
    this.runPriorities = [];
    this.runSeqs = [];
    this.runFirsts = [];
    this.runSeconds = [];
  }

  clear(): void {
    this.clearLive();
    this.resetArrays();
  }

  sorted(): T[] {
    const entries: { item: T; priority: Priority; seq: number }[] = [];
    const { items, priorities, seqs } = this;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as T;
      if (this.liveSeq(item) === seqs[i]) entries.push({ item, priority: priorities[i] as Priority, seq: seqs[i] as number });
    }
    for (let i = this.runHead; i < this.runItems.length; i++) {
      const item = this.runItems[i] as T;
      const seq = this.runSeqs[i] as number;
      if (this.liveSeq(item) === seq) entries.push({ item, priority: this.runPriorities[i] as Priority, seq });
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

  // Sifting moves a "hole" instead of swapping, comparing the moving entry's captured
  // priority and sequence against each parent/child (fewer writes, no re-reads).

  /** Whether entry (f, sec, priority, seq) sorts before entry (fj, sj, pj, qj). */
  private entryBefore(
    f: number,
    sec: number,
    priority: Priority,
    seq: number,
    fj: number,
    sj: number,
    pj: Priority,
    qj: number,
  ): boolean {
    if (f !== fj) return f < fj;
    if (sec !== sj) return sec < sj;
    const c = comparePriority(priority, pj);
    return c < 0 || (c === 0 && seq < qj);
  }

  /** Whether entry (f, s, priority, seq) sorts before entry j. */
  private before(f: number, sec: number, priority: Priority, seq: number, j: number): boolean {
    const fj = this.firsts[j] as number;
    if (f !== fj) return f < fj;
    const sj = this.seconds[j] as number;
    if (sec !== sj) return sec < sj;
    const c = comparePriority(priority, this.priorities[j] as Priority);
    return c < 0 || (c === 0 && seq < (this.seqs[j] as number));
  }

  private move(from: number, to: number): void {
    this.items[to] = this.items[from] as T;
    this.priorities[to] = this.priorities[from] as Priority;
    this.seqs[to] = this.seqs[from] as number;
    this.firsts[to] = this.firsts[from] as number;
    this.seconds[to] = this.seconds[from] as number;
  }

  private siftUp(i: number): void {
    const item = this.items[i] as T;
    const priority = this.priorities[i] as Priority;
    const seq = this.seqs[i] as number;
    const f = this.firsts[i] as number;
    const sec = this.seconds[i] as number;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(f, sec, priority, seq, parent)) break;
      this.move(parent, i);
      i = parent;
    }
    this.items[i] = item;
    this.priorities[i] = priority;
    this.seqs[i] = seq;
    this.firsts[i] = f;
    this.seconds[i] = sec;
  }

  private siftDown(i: number): void {
    const n = this.items.length;
    const item = this.items[i] as T;
    const priority = this.priorities[i] as Priority;
    const seq = this.seqs[i] as number;
    const f = this.firsts[i] as number;
    const sec = this.seconds[i] as number;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (
        right < n &&
        this.before(
          this.firsts[right] as number,
          this.seconds[right] as number,
          this.priorities[right] as Priority,
          this.seqs[right] as number,
          child,
        )
      ) {
        child = right;
      }
      if (this.before(f, sec, priority, seq, child)) break;
      this.move(child, i);
      i = child;
    }
    this.items[i] = item;
    this.priorities[i] = priority;
    this.seqs[i] = seq;
    this.firsts[i] = f;
    this.seconds[i] = sec;
  }

  private removeTop(): void {
    const { items, priorities, seqs, firsts, seconds } = this;
    const item = items.pop() as T;
    const priority = priorities.pop() as Priority;
    const seq = seqs.pop() as number;
    const f = firsts.pop() as number;
    const sec = seconds.pop() as number;
    if (items.length > 0) {
      items[0] = item;
      priorities[0] = priority;
      seqs[0] = seq;
      firsts[0] = f;
      seconds[0] = sec;
      this.siftDown(0);
    }
  }

  private dropStaleTop(): void {
    const { items, seqs } = this;
    while (items.length > 0 && this.liveSeq(items[0] as T) !== seqs[0]) this.removeTop();
  }

  private resetArrays(): void {
    this.clearRun();
    if (this.items.length === 0) return;
    this.items = [];
    this.priorities = [];
    this.seqs = [];
    this.firsts = [];
    this.seconds = [];
  }

  private compact(): void {
    const { items, priorities, seqs, firsts, seconds } = this;
    const keptItems: T[] = [];
    const keptPriorities: Priority[] = [];
    const keptSeqs: number[] = [];
    const keptFirsts: number[] = [];
    const keptSeconds: number[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as T;
      if (this.liveSeq(item) === seqs[i]) {
        keptItems.push(item);
        keptPriorities.push(priorities[i] as Priority);
        keptSeqs.push(seqs[i] as number);
        keptFirsts.push(firsts[i] as number);
        keptSeconds.push(seconds[i] as number);
      }
    }
    this.items = keptItems;
    this.priorities = keptPriorities;
    this.seqs = keptSeqs;
    this.firsts = keptFirsts;
    this.seconds = keptSeconds;
    for (let i = (keptItems.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
    // The run stays sorted when filtered.
    const run: T[] = [];
    const runPriorities: Priority[] = [];
    const runSeqs: number[] = [];
    const runFirsts: number[] = [];
    const runSeconds: number[] = [];
    for (let i = this.runHead; i < this.runItems.length; i++) {
      const item = this.runItems[i] as T;
      if (this.liveSeq(item) === this.runSeqs[i]) {
        run.push(item);
        runPriorities.push(this.runPriorities[i] as Priority);
        runSeqs.push(this.runSeqs[i] as number);
        runFirsts.push(this.runFirsts[i] as number);
        runSeconds.push(this.runSeconds[i] as number);
      }
    }
    this.runItems = run;
    this.runPriorities = runPriorities;
    this.runSeqs = runSeqs;
    this.runFirsts = runFirsts;
    this.runSeconds = runSeconds;
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
