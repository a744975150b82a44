// Bounded logs (dask's `deque(maxlen=…)`) without a clock: every entry ends with the
// stimulus id and the sequence number of the stimulus that wrote it.
import { EMPTY_RECORD, newRecord } from "./records.js";

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

const EMPTY_SUMMARY: Readonly<Record<string, string>> = EMPTY_RECORD;

function summaryObject(pairs: readonly string[] | null): Readonly<Record<string, string>> {
  if (pairs === null) return EMPTY_SUMMARY;
  const summary = newRecord<string>();
  for (let i = 0; i < pairs.length; i += 2) summary[pairs[i] as string] = pairs[i + 1] as string;
  return Object.freeze(summary);
}

// What each entry stores in its STRIDE slots of the ring, by entry kind (the fields are
// named for the transition entry, the most common one; the others reuse the first ones and
// leave the rest as they were: entryAt reads only the fields of the entry's kind):
//
// | kind               | +1 subject | +2 tag | +3 finish | +4 final | +5 recommendations       | +6 recommended finish |
// |--------------------|------------|--------|-----------|----------|--------------------------|-----------------------|
// | TRANSITION         | key        | start  | finish    | final    | [key, finish, …] or null |                       |
// | TRANSITION_ONE_REC | key        | start  | finish    | final    | the recommended key      | its finish            |
// | TAGGED             | key        | tag    |           |          |                          |                       |
// | TAGGED_STATE       | key        | tag    | state     |          |                          |                       |
// | ENTRY              | the whole frozen entry                                                                      |
//
// Slot +0 holds the kind, +7 the stimulus id and +8 its sequence number.
// ("free-keys" entries are TAGGED with the tag and the keys list in the first two slots.)
const ENTRY = 0;
const TRANSITION = 1;
const TRANSITION_ONE_REC = 4;
const TAGGED = 2;
const TAGGED_STATE = 3;
const STRIDE = 9;
const SID = 7;
const SEQ = 8;

/**
 * The state machine's `log`: a ring of the most recent entries, each stored as the fields
 * of its kind in STRIDE consecutive slots of one array, so that writing an entry allocates
 * nothing (entries are built as frozen arrays only when read, which is rare: `story()`,
 * `log`, errors).
 *
 * What it buys: W1 writes about nine entries per task (six transitions and three tagged
 * entries). Building each as a frozen array when written, with its `{key: state}` map,
 * costs W1 43 % more CPU time (median of 6 alternating pairs, range +33 % to +73 %), W2
 * 23 % and W3 22 % (measured 2026-12-01, load 10–14 on 2 cores). One array rather than a
 * column array per field: an entry's fields share a cache line and one bounds check, and a
 * tagged entry writes 5 slots, not 9.
 */
export class StateLog {
  readonly capacity: number;
  private length = 0;
  private next = 0;
  /** Entry i occupies slots [i * STRIDE, (i + 1) * STRIDE). */
  private readonly slots: unknown[] = [];

  constructor(capacity: number = DEFAULT_LOG_LENGTH) {
    if (!(capacity >= 0)) throw new RangeError(`log capacity must be >= 0, got ${capacity}`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.length;
  }

  /**
   * The first slot of the next entry, with its kind, stimulus id and sequence number
   * written (-1 when the capacity is 0). Slots are appended in order until the ring is
   * full, so the array stays packed.
   */
  private slot(kind: number, stimulusId: string, seq: number): number {
    const capacity = this.capacity;
    if (capacity === 0) return -1;
    const index = this.next;
    this.next = index + 1 === capacity ? 0 : index + 1;
    if (this.length < capacity) this.length++;
    const j = index * STRIDE;
    const slots = this.slots;
    if (j === slots.length) {
      for (let k = 0; k < STRIDE; k++) slots.push(undefined);
    }
    slots[j] = kind;
    slots[j + SID] = stimulusId;
    slots[j + SEQ] = seq;
    return j;
  }

  /** `[key, start, finish, final, {key: recommended state}, stimulusId, seq]` */
  transition(
    key: string,
    start: string,
    finish: string,
    final: string,
    recs: readonly string[] | null,
    stimulusId: string,
    seq: number,
  ): void {
    const j = this.transitionSlot(TRANSITION, key, start, finish, final, stimulusId, seq);
    if (j >= 0) this.slots[j + 5] = recs;
  }

  /**
   * The same entry as `transition` with the one recommendation the transition made, so
   * that the most common transition entry allocates nothing.
   */
  transitionOneRec(
    key: string,
    start: string,
    finish: string,
    final: string,
    recKey: string,
    recFinish: string,
    stimulusId: string,
    seq: number,
  ): void {
    const j = this.transitionSlot(TRANSITION_ONE_REC, key, start, finish, final, stimulusId, seq);
    if (j < 0) return;
    this.slots[j + 5] = recKey;
    this.slots[j + 6] = recFinish;
  }

  /** `slot` with the fields both transition entries share written (-1: capacity 0). */
  private transitionSlot(kind: number, key: string, start: string, finish: string, final: string, stimulusId: string, seq: number): number {
    const j = this.slot(kind, stimulusId, seq);
    if (j < 0) return j;
    const slots = this.slots;
    slots[j + 1] = key;
    slots[j + 2] = start;
    slots[j + 3] = finish;
    slots[j + 4] = final;
    return j;
  }

  /** `[key, tag, stimulusId, seq]` (also `["free-keys", keys, stimulusId, seq]`) */
  tagged(key: unknown, tag: unknown, stimulusId: string, seq: number): void {
    const j = this.slot(TAGGED, stimulusId, seq);
    if (j < 0) return;
    this.slots[j + 1] = key;
    this.slots[j + 2] = tag;
  }

  /** `[key, tag, state, stimulusId, seq]` */
  taggedState(key: string, tag: string, state: string, stimulusId: string, seq: number): void {
    const j = this.slot(TAGGED_STATE, stimulusId, seq);
    if (j < 0) return;
    const slots = this.slots;
    slots[j + 1] = key;
    slots[j + 2] = tag;
    slots[j + 3] = state;
  }

  /** Any other entry, stored frozen (like every entry the log hands out). */
  push(entry: LogEntry): void {
    const j = this.slot(ENTRY, "", 0);
    if (j >= 0) this.slots[j + 1] = Object.freeze(entry);
  }

  private entryAt(i: number): LogEntry {
    const slots = this.slots;
    const j = i * STRIDE;
    const sid = slots[j + SID];
    const seq = slots[j + SEQ];
    switch (slots[j]) {
      case TRANSITION:
        return Object.freeze([slots[j + 1], slots[j + 2], slots[j + 3], slots[j + 4], summaryObject(slots[j + 5] as readonly string[] | null), sid, seq]);
      case TRANSITION_ONE_REC:
        return Object.freeze([slots[j + 1], slots[j + 2], slots[j + 3], slots[j + 4], summaryObject([slots[j + 5] as string, slots[j + 6] as string]), sid, seq]);
      case TAGGED:
        return Object.freeze([slots[j + 1], slots[j + 2], sid, seq]);
      case TAGGED_STATE:
        return Object.freeze([slots[j + 1], slots[j + 2], slots[j + 3], sid, seq]);
      default:
        return slots[j + 1] as LogEntry;
    }
  }

  /** Oldest first. */
  toArray(): LogEntry[] {
    const result: LogEntry[] = new Array(this.length);
    const start = this.length < this.capacity ? 0 : this.next;
    for (let n = 0; n < this.length; n++) {
      const i = start + n >= this.length ? start + n - this.length : start + n;
      result[n] = this.entryAt(i);
    }
    return result;
  }

  [Symbol.iterator](): Iterator<LogEntry> {
    return this.toArray()[Symbol.iterator]();
  }
}
