// The scheduler's queue of root-ish tasks waiting for a worker slot (dask's `queued` HeapSet),
// ordered by priority rank. A task is in the heap at most once: leaving the queue (placed,
// taken back by a recompute) leaves a stale entry that is skipped when it surfaces, and a task
// queued again while its old entry is still there reuses it (its rank never changes). The
// heap is the simulator's one min-heap (src/util/min-heap.ts), ranked by priority.
import { RankedMinHeap } from "../../util/min-heap.js";
import type { QueueView } from "./policy.js";

export class TaskQueue implements QueueView {
  private readonly heap = new RankedMinHeap<number>();
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
    this.inHeap[task] = 1;
    this.heap.push(this.order[task]!, task);
  }

  private pop(): number | undefined {
    const task = this.heap.pop();
    if (task !== undefined) this.inHeap[task] = 0;
    return task;
  }
}
