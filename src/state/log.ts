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

// What is stored in each slot, by entry kind (the columns are named for the transition
// entry, the most common one; the others reuse the first columns):
//
// | kind               | subjects | tags   | finishes | finals | recommendations     | recommendedFinishes |
// |--------------------|----------|--------|----------|--------|---------------------|---------------------|
// | TRANSITION         | key      | start  | finish   | final  | [key, finish, …] or null |                |
// | TRANSITION_ONE_REC | key      | start  | finish   | final  | the recommended key | its finish          |
// | TAGGED             | key      | tag    |          |        |                     |                     |
// | TAGGED_STATE       | key      | tag    | state    |        |                     |                     |
// | ENTRY              | the whole frozen entry                                                            |
//
// ("free-keys" entries are TAGGED with the tag and the keys list in the first two slots.)
const ENTRY = 0;
const TRANSITION = 1;
const TRANSITION_ONE_REC = 4;
const TAGGED = 2;
const TAGGED_STATE = 3;

/**
 * The state machine's `log`: a ring of the most recent entries stored column-wise, so
 * that writing an entry allocates nothing (entries are built as frozen arrays only when
 * read, which is rare: `story()`, `log`, errors).
 *
 * What it buys: W1 writes about nine entries per task (six transitions and three tagged
 * entries). Building each as a frozen array when written, with its `{key: state}` map,
 * costs W1 43 % more CPU time (median of 6 alternating pairs, range +33 % to +73 %), W2
 * 23 % and W3 22 % (measured 2026-12-01, load 10–14 on 2 cores).
 */
export class StateLog {
  readonly capacity: number;
  private length = 0;
  private next = 0;
  private readonly kinds: number[] = [];
  private readonly subjects: unknown[] = [];
  private readonly tags: unknown[] = [];
  private readonly finishes: unknown[] = [];
  private readonly finals: unknown[] = [];
  private readonly recommendations: (readonly string[] | string | null)[] = [];
  private readonly recommendedFinishes: string[] = [];
  private readonly sids: string[] = [];
  private readonly seqs: number[] = [];

  constructor(capacity: number = DEFAULT_LOG_LENGTH) {
    if (!(capacity >= 0)) throw new RangeError(`log capacity must be >= 0, got ${capacity}`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.length;
  }

  private slot(): number {
    const capacity = this.capacity;
    if (capacity === 0) return -1;
    const index = this.next;
    this.next = index + 1 === capacity ? 0 : index + 1;
    if (this.length < capacity) this.length++;
    return index;
  }

  /** Writes one entry's columns into the next slot (nothing when the capacity is 0). */
  private write(
    kind: number,
    subject: unknown,
    tag: unknown,
    finish: unknown,
    final: unknown,
    recommendations: readonly string[] | string | null,
    recommendedFinish: string,
    stimulusId: string,
    seq: number,
  ): void {
    const i = this.slot();
    if (i < 0) return;
    this.kinds[i] = kind;
    this.subjects[i] = subject;
    this.tags[i] = tag;
    this.finishes[i] = finish;
    this.finals[i] = final;
    this.recommendations[i] = recommendations;
    this.recommendedFinishes[i] = recommendedFinish;
    this.sids[i] = stimulusId;
    this.seqs[i] = seq;
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
    this.write(TRANSITION, key, start, finish, final, recs, "", stimulusId, seq);
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
    this.write(TRANSITION_ONE_REC, key, start, finish, final, recKey, recFinish, stimulusId, seq);
  }

  /** `[key, tag, stimulusId, seq]` (also `["free-keys", keys, stimulusId, seq]`) */
  tagged(key: unknown, tag: unknown, stimulusId: string, seq: number): void {
    this.write(TAGGED, key, tag, undefined, undefined, null, "", stimulusId, seq);
  }

  /** `[key, tag, state, stimulusId, seq]` */
  taggedState(key: string, tag: string, state: string, stimulusId: string, seq: number): void {
    this.write(TAGGED_STATE, key, tag, state, undefined, null, "", stimulusId, seq);
  }

  /** Any other entry, stored frozen (like every entry the log hands out). */
  push(entry: LogEntry): void {
    this.write(ENTRY, Object.freeze(entry), undefined, undefined, undefined, null, "", "", 0);
  }

  private entryAt(i: number): LogEntry {
    switch (this.kinds[i]) {
      case TRANSITION:
      case TRANSITION_ONE_REC: {
        const recs = this.recommendations[i] as readonly string[] | string | null;
        const pairs = typeof recs === "string" ? [recs, this.recommendedFinishes[i] as string] : recs;
        return Object.freeze([this.subjects[i], this.tags[i], this.finishes[i], this.finals[i], summaryObject(pairs), this.sids[i], this.seqs[i]]);
      }
      case TAGGED:
        return Object.freeze([this.subjects[i], this.tags[i], this.sids[i], this.seqs[i]]);
      case TAGGED_STATE:
        return Object.freeze([this.subjects[i], this.tags[i], this.finishes[i], this.sids[i], this.seqs[i]]);
      default:
        return this.subjects[i] as LogEntry;
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
