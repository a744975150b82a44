// The scheduler's queue of root-ish tasks waiting for a worker slot (dask's `queued` HeapSet),
// ordered by priority rank. A task is in the heap at most once: leaving the queue (placed,
// taken back by a recompute) leaves a stale entry that is skipped when it surfaces, and a task
// queued again while its old entry is still there reuses it (its rank never changes).
import type { QueueView } from "./policy.js";

export class TaskQueue implements QueueView {
  private readonly heap: number[] = [];
  private readonly inHeap: Uint8Array;
  private readonly queued: Uint8Array;
  private count = 0;
  /** Entries popped by `peek` and not yet pushed back (reused: no array per peek). */
  private readonly held: number[] = [];

  constructor(private readonly order: Int32Array) {
    this.inHeap = new Uint8Array(order.length);
    this.queued = new Uint8Array(order.length);
  }

  get size(): number {
    return this.count;
  }

  has(task: number): boolean {
    return this.queued[task] === 1;
  }

  add(task: number): void {
    if (this.queued[task] === 1) return;
    this.queued[task] = 1;
    this.count++;
    if (this.inHeap[task] === 0) this.push(task);
  }

  delete(task: number): void {
    if (this.queued[task] === 0) return;
    this.queued[task] = 0;
    this.count--;
  }

  peek(n: number): number[] {
    this.restore();
    const out: number[] = [];
    while (out.length < n) {
      const task = this.pop();
      if (task === undefined) break;
      if (this.queued[task] === 1) out.push(task);
    }
    for (const task of out) this.held.push(task);
    return out;
  }

  /** Puts back what `peek` took that is still queued. */
  restore(): void {
    if (this.held.length === 0) return;
    for (const task of this.held) if (this.queued[task] === 1 && this.inHeap[task] === 0) this.push(task);
    this.held.length = 0;
  }

  private push(task: number): void {
    const heap = this.heap;
    const order = this.order;
    this.inHeap[task] = 1;
    heap.push(task);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (order[heap[parent]!]! <= order[task]!) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = task;
  }

  private pop(): number | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      const order = this.order;
      const n = heap.length;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && order[heap[right]!]! < order[heap[left]!]! ? right : left;
        if (order[heap[child]!]! >= order[last]!) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
    }
    this.inHeap[top] = 0;
    return top;
  }
}
