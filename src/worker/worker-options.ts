// Checking a Worker's options, and building from them the data store its WorkerState writes
// to (the default SpillBuffer, target = memoryLimit × memoryTargetFraction, or the store
// given) and the WorkerState itself.
import { SpillBuffer } from "../spill/index.js";
import { WorkerState, type Key } from "../state/index.js";
import type { WorkerClock } from "./clock.js";
import { LazyFileStore } from "./data-store.js";
import { MEMORY_FRACTIONS } from "./memory-fractions.js";
import type { WorkerDataStore, WorkerOptions } from "./types.js";

export const DEFAULT_RETRY_BUSY_DELAY = 0.15;
export const DEFAULT_GET_DATA_BUSY_LIMIT = 10;
const DEFAULT_MEMORY_TARGET_FRACTION = MEMORY_FRACTIONS.target;

export function checkPositive(value: number, name: string, integer: boolean): number {
  if (typeof value !== "number" || !(value > 0) || (integer && !Number.isInteger(value)) || !Number.isFinite(value)) {
    throw new RangeError(`Worker option ${name} must be a ${integer ? "positive integer" : "positive finite number"}, got ${String(value)}`);
  }
  return value;
}

export function checkAddress(options: WorkerOptions): string {
  if (options === null || typeof options !== "object") throw new TypeError("Worker needs an options object with an address");
  if (typeof options.address !== "string" || options.address === "") {
    throw new TypeError(`Worker option address must be a non-empty string, got ${String(options.address)}`);
  }
  return options.address;
}

export function checkRetryBusyDelay(options: WorkerOptions): number {
  const delay = options.retryBusyDelay ?? DEFAULT_RETRY_BUSY_DELAY;
  if (!(delay >= 0)) throw new RangeError(`Worker option retryBusyDelay must be ≥ 0 seconds, got ${delay}`);
  return delay;
}

/** The store given as `data`, or the default SpillBuffer (null `spillBuffer` for the former). */
export function buildDataStore(
  options: WorkerOptions,
  clock: WorkerClock,
  sizeof: (value: unknown) => number,
): { store: WorkerDataStore; spillBuffer: SpillBuffer | null } {
  if (options.data !== undefined) return { store: options.data, spillBuffer: null };
  const memoryLimit = options.memoryLimit ?? null;
  const fraction = options.memoryTargetFraction ?? DEFAULT_MEMORY_TARGET_FRACTION;
  if (!(fraction > 0 && fraction <= 1)) throw new RangeError(`Worker option memoryTargetFraction must be in (0, 1], got ${fraction}`);
  if (memoryLimit !== null && !(memoryLimit >= 0)) throw new RangeError(`Worker option memoryLimit must be bytes ≥ 0 or null, got ${memoryLimit}`);
  const target = memoryLimit === null ? Infinity : Math.floor(memoryLimit * fraction);
  const spill = options.spill ?? {};
  if (spill.store !== undefined && spill.directory !== undefined) {
    throw new TypeError("Worker option spill: pass either store or directory, not both (directory is for the default file store)");
  }
  const { directory, ...rest } = spill;
  const spillBuffer = new SpillBuffer({
    sizeof,
    clock,
    ...rest,
    target,
    // the default file store makes its directory only once something is spilled
    store: spill.store ?? new LazyFileStore(directory),
  });
  return { store: spillBuffer as unknown as WorkerDataStore, spillBuffer };
}

/** The WorkerState with the options that are the state's own. */
export function buildState(
  options: WorkerOptions,
  shell: { address: string; nthreads: number; data: WorkerDataStore; threads: Map<Key, number>; sizeof: (value: unknown) => number },
): WorkerState {
  return new WorkerState({
    ...shell,
    validate: options.validate ?? true,
    ...(options.resources === undefined ? {} : { resources: options.resources }),
    ...(options.transferIncomingCountLimit === undefined ? {} : { transferIncomingCountLimit: options.transferIncomingCountLimit }),
    ...(options.transferIncomingBytesLimit === undefined ? {} : { transferIncomingBytesLimit: options.transferIncomingBytesLimit }),
    ...(options.transferMessageBytesLimit === undefined ? {} : { transferMessageBytesLimit: options.transferMessageBytesLimit }),
    ...(options.transitionCounterMax === undefined ? {} : { transitionCounterMax: options.transitionCounterMax }),
  });
}
