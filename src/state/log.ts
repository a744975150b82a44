// Bounded logs (dask's `deque(maxlen=…)`) without a clock: every entry ends with the
// stimulus id and the sequence number of the stimulus that wrote it.

/** A log entry: an array of fields ending with `stimulusId, stimulusSeq`. */
export type LogEntry = readonly unknown[];

/** Default capacity of `log` and `stimulusLog` (dask's `admin.low-level-log-length`). */
export const DEFAULT_LOG_LENGTH = 1000;

/** A ring buffer keeping the most recent `capacity` entries (Infinity = unbounded). */
export class BoundedLog<T> implements Iterable<T> {
  private buffer: T[] = [];
  private start = 0;
  readonly capacity: number;

  constructor(capacity: number = DEFAULT_LOG_LENGTH) {
    if (!(capacity >= 0)) throw new RangeError(`log capacity must be >= 0, got ${capacity}`);
    this.capacity = capacity;
  }

  get length(): number {
    return this.buffer.length;
  }

  push(entry: T): void {
    const { buffer, capacity } = this;
    if (buffer.length < capacity) {
      buffer.push(entry);
    } else if (capacity > 0) {
      buffer[this.start] = entry;
      this.start = this.start + 1 === capacity ? 0 : this.start + 1;
    }
  }

  /** Oldest first, as a fresh array. */
  toArray(): T[] {
    if (this.start === 0) return this.buffer.slice();
    return this.buffer.slice(this.start).concat(this.buffer.slice(0, this.start));
  }

  clear(): void {
    this.buffer = [];
    this.start = 0;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.toArray()[Symbol.iterator]();
  }
}
