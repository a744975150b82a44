// A worker process's interpreter lock held by a copy that does not let go: a received message's
// deserialisation (dask's `from_frames` → `_deserialize_bytes`, a `b"".join` over memoryview
// frames, one per value) and a spilled value's read (the SpillBuffer's `deserialize_bytes`, the
// same join after the file read, which lets go). A task thread that must take the lock back
// meanwhile — its sleep or its releasing CPU part ends — gets it when the copy ends, or once it
// has waited CPython's switch interval and the copy running then reaches its next eval-breaker
// check: the end of that value's join, whichever is first. docs/sim.md, "Task threads wait for
// the lock"; measured by fidelity/tools/wake_gil.py and overrun_classes.py.
import type { ModelledRead, SpillStore } from "../spill/index.js";
import type { ReceiverLoop } from "./transport.js";

/** Holds booked beside each other on one serial loop: in time order, never overlapping. */
export class CopyHolds {
  // A queue of holds (start, end, first value end) over typed arrays, reused: no allocation per hold.
  private starts = new Float64Array(8);
  private ends = new Float64Array(8);
  private firstValue = new Uint32Array(8);
  private valueEnds = new Float64Array(32);
  private head = 0;
  private tail = 0;
  private values = 0;
  /** Where the open hold's values are: its start, seconds per byte and bytes booked so far. */
  private openStart = 0;
  private openPerByte = 0;
  private openBytes = 0;

  /** `switchInterval`: seconds a waiter waits before the holder is asked to let go (> 0). */
  constructor(readonly switchInterval: number) {}

  /**
   * A copy holds the lock from `start` to `end` (booked at `now`, after every hold booked so
   * far), of `bytes` in all; its values follow with `value`, in copy order. Holds over by `now` go.
   */
  open(now: number, start: number, end: number, bytes: number): void {
    this.drop(now);
    if (this.head === this.tail) this.head = this.tail = this.values = 0;
    if (this.tail === this.starts.length) this.grow();
    const i = this.tail++;
    this.starts[i] = start;
    this.ends[i] = end;
    this.firstValue[i] = this.values;
    this.openStart = start;
    this.openPerByte = bytes > 0 ? (end - start) / bytes : 0;
    this.openBytes = 0;
  }

  /** The open hold's next value of `bytes`: its join ends after the bytes copied so far. */
  value(bytes: number): void {
    if (this.values === this.valueEnds.length) this.valueEnds = grown(this.valueEnds, this.valueEnds.length * 2);
    this.openBytes += bytes;
    this.valueEnds[this.values++] = this.openStart + this.openBytes * this.openPerByte;
  }

  /**
   * Seconds a thread that asks for the lock at `now` waits for it: 0 when no copy holds it;
   * else until the copy ends or until the end of the value being copied once it has waited the
   * switch interval, whichever is first. O(log values) (holds that ended go as it passes them).
   */
  wait(now: number): number {
    this.drop(now);
    if (this.head === this.tail) return 0;
    const h = this.head;
    const start = this.starts[h]!;
    const end = this.ends[h]!;
    if (now < start) return 0;
    const asked = now + this.switchInterval;
    if (asked >= end) return end - now;
    // The first value whose join ends at or after `asked` (the hold's last one ends at `end`).
    const last = h + 1 < this.tail ? this.firstValue[h + 1]! : this.values;
    let lo = this.firstValue[h]!;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.valueEnds[mid]! < asked) lo = mid + 1;
      else hi = mid;
    }
    const valueEnd = lo < last ? this.valueEnds[lo]! : end;
    return Math.min(valueEnd, end) - now;
  }

  /** Holds that ended by `now` (the head's, in order). */
  private drop(now: number): void {
    while (this.head < this.tail && this.ends[this.head]! <= now) this.head++;
  }

  /** Room for one more hold: the live ones moved to the front, or the arrays doubled. */
  private grow(): void {
    const live = this.tail - this.head;
    if (this.head > 0) {
      const shift = this.firstValue[this.head]!;
      this.starts.copyWithin(0, this.head, this.tail);
      this.ends.copyWithin(0, this.head, this.tail);
      this.firstValue.copyWithin(0, this.head, this.tail);
      for (let i = 0; i < live; i++) this.firstValue[i]! -= shift;
      this.valueEnds.copyWithin(0, shift, this.values);
      this.values -= shift;
      this.head = 0;
      this.tail = live;
    }
    if (this.tail < this.starts.length) return;
    const size = this.starts.length * 2;
    this.starts = grown(this.starts, size);
    this.ends = grown(this.ends, size);
    const first = new Uint32Array(size);
    first.set(this.firstValue);
    this.firstValue = first;
  }
}

function grown(array: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(size);
  next.set(array);
  return next;
}

/**
 * A spill store whose reads hold the lock for their deserialisation: dask's SpillBuffer reads
 * the file (letting go of the lock) and then joins the value's frames (holding it), on the
 * loop. The read's booking on `loop` (the store's `onService`) ends with the join, the last
 * min(booking, bytes × `perByte`) seconds of it; writes and removals let go (a file write).
 * `perByte` 0 (a free deserialisation): the store itself.
 */
export function holdingReads(store: SpillStore, loop: ReceiverLoop, holds: CopyHolds, perByte: number, now: () => number): SpillStore {
  if (perByte <= 0) return store;
  const wrapped: SpillStore = {
    read(key, byteLength) {
      const before = loop.idleIn();
      const read = store.read(key, byteLength);
      const after = loop.idleIn();
      const bytes = read instanceof Uint8Array ? read.byteLength : (read as ModelledRead).bytes.byteLength;
      const join = Math.min(after - before, bytes * perByte);
      if (join > 0) {
        const at = now();
        holds.open(at, at + after - join, at + after, bytes);
        holds.value(bytes);
      }
      return read;
    },
    write: (key, bytes) => store.write(key, bytes),
    delete: (key) => store.delete(key),
  };
  if (store.close !== undefined) wrapped.close = () => store.close!();
  return wrapped;
}
