// The AsyncLocalStorage behind `currentSpan()`, created on first use: until some code
// binds a span, no AsyncLocalStorage exists and `await` keeps its native cost.
//
// Beside it, a synchronous binding (`bindSync`): a plain module variable set for the
// duration of one synchronous call. It is the innermost binding while set, costs no
// AsyncLocalStorage (so no promise hooks) and may hold a lazy source that creates its span
// only when something asks for it.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Span } from "./span.js";

/** A span created on first request (e.g. a root that only exists if something records). */
export interface LazySpan {
  /** The span, created and started on the first call; the same span afterwards. */
  resolve(): Span;
  /** Whether `resolve()` was called. */
  readonly resolved: boolean;
}

let storage: AsyncLocalStorage<Span> | undefined;
let syncBound: Span | LazySpan | undefined;

/** The storage if anything ever bound a span, else undefined. */
export function existingStorage(): AsyncLocalStorage<Span> | undefined {
  return storage;
}

/** The storage, creating it on first use. */
export function spanStorage(): AsyncLocalStorage<Span> {
  storage ??= new AsyncLocalStorage<Span>();
  return storage;
}

/** The synchronous binding in force, if any (it takes precedence over the storage). */
export function syncBinding(): Span | LazySpan | undefined {
  return syncBound;
}

/** Runs `fn` with `bound` as the synchronous binding, restoring the previous one after. */
export function runSyncBound<T>(bound: Span | LazySpan | undefined, fn: () => T): T {
  const previous = syncBound;
  syncBound = bound;
  try {
    return fn();
  } finally {
    syncBound = previous;
  }
}

/**
 * Binds `span` in the storage for `fn` (sync and async work). A synchronous binding in
 * force is lifted for the call, so the storage binding is the innermost one inside it.
 */
export function runInStorage<T>(span: Span, fn: () => T): T {
  const store = spanStorage();
  if (syncBound === undefined) return store.run(span, fn);
  return runSyncBound(undefined, () => store.run(span, fn));
}
