// The entries of a PrioritySet (priority-set.ts) and their order: each entry is an item, the
// priority captured when it was added, its sequence number, and the priority's first two
// elements unboxed, stored column-wise (parallel arrays, no object per entry). Most
// comparisons end at the first element and never load the priority arrays, which are
// scattered over the heap; the figures are in priority-set.ts's header.
import type { Priority } from "./events.js";

export const EMPTY_PRIORITY: Priority = [];

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
export function element(priority: Priority, i: number): number {
  return priority.length > i ? (priority[i] as number) : -Infinity;
}

/** Whether entry (first, second, priority, seq) sorts before entry (firstB, secondB, priorityB, seqB). */
export function sortsBefore(
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
export function sortsBeforeEntry(
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
export class EntryColumns<T> {
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
