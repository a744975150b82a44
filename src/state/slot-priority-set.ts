// PrioritySets whose membership lives on the items (`_queue`, `_queueSeq`) instead of in a
// Map: the worker state's task queues (ready, constrained, and the fetch queue per peer). No
// hashing per add, pop and membership test, and no Map of every queued task to walk.
import { PrioritySet } from "./priority-set.js";

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
