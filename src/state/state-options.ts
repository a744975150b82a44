// The options a WorkerState is built with, and the Map-like store of its values: apart from
// the core so that the shell and the tests can name them without the state machine's loop.
import type { Key } from "./events.js";
import type { Sizeof } from "./sizeof.js";

/** The Map-like store of task values (a `Map`, or the SpillBuffer). */
export interface DataStore {
  has(key: Key): boolean;
  get(key: Key): unknown;
  set(key: Key, value: unknown): unknown;
  delete(key: Key): unknown;
  readonly size: number;
  keys(): Iterable<Key>;
}

export interface WorkerStateOptions {
  /** Our own address: stripped from who_has, and its host decides which peers are local. */
  address?: string | null;
  nthreads?: number;
  data?: DataStore;
  resources?: Readonly<Record<string, number>>;
  /** Check every touched task after each stimulus (and allow `validateState()`). */
  validate?: boolean;
  /** Raise TransitionCounterMaxExceeded once this many transitions ran (false = no limit). */
  transitionCounterMax?: number | false;
  transferIncomingCountLimit?: number;
  transferIncomingBytesLimit?: number;
  transferMessageBytesLimit?: number;
  /** Capacity of `log` and `stimulusLog` (default 1000; Infinity = unbounded). */
  logLength?: number;
  /** Size of a value stored with unknown nbytes (default: a rough JS estimate). */
  sizeof?: Sizeof;
  /** key → thread id of the executing task, filled by the shell; read for messages. */
  threads?: Map<Key, number>;
}

/** dask's hard-coded `transfer_incoming_bytes_throttle_threshold`. */
export const TRANSFER_INCOMING_BYTES_THROTTLE_THRESHOLD = 10_000_000;
