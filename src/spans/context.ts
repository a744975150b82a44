// Finding the current span. AsyncLocalStorage only answers "which span is current"; it
// never decides parenting of roots: `new Span(name)` without `parent` is a root even inside
// another span's work (dask #7949, where inherited context piled up callbacks).
import { Span, type ChildSpanOptions } from "./span.js";
import { existingStorage, runInStorage, runSyncBound, syncBinding, type LazySpan } from "./storage.js";

export type { LazySpan } from "./storage.js";

/**
 * The span bound by the innermost `asCurrent`/`withSpan`/`meter` around the running code,
 * if it is still recording (an ended span cannot take children, so it is not current).
 */
export function currentSpan(): Span | undefined {
  const bound = syncBinding();
  if (bound !== undefined) {
    const span = bound instanceof Span ? bound : bound.resolve();
    return span.isRecording() ? span : undefined;
  }
  const storage = existingStorage();
  if (storage === undefined) return undefined;
  const span = storage.getStore();
  return span !== undefined && span.isRecording() ? span : undefined;
}

/**
 * Whether `currentSpan()` would return a span, without resolving a lazy binding (so a
 * caller can decide to attribute work without creating the lazy span).
 */
export function hasCurrentSpan(): boolean {
  const bound = syncBinding();
  if (bound !== undefined) {
    if (bound instanceof Span) return bound.isRecording();
    return !bound.resolved || bound.resolve().isRecording();
  }
  return currentSpan() !== undefined;
}

/**
 * Runs synchronous `fn` with `bound` (a span, or a lazy source whose span is created only
 * if something inside asks for `currentSpan()`) as the current span, without
 * AsyncLocalStorage. Only the synchronous part of `fn` sees it (see `Span.runSync`).
 */
export function bindSync<T>(bound: Span | LazySpan, fn: () => T): T {
  return runSyncBound(bound, fn);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** Runs `fn` bound to `span` and ends the span when `fn` returns, throws or settles. */
function runThenEnd<T>(span: Span, fn: () => T): T {
  let result: T;
  try {
    result = runInStorage(span, fn);
  } catch (error) {
    span.end();
    throw error;
  }
  if (isPromiseLike(result)) {
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        span.end();
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

export type SpanName = string | readonly string[];

/**
 * `withSpan(span, fn)` binds an existing span to the work started inside `fn` (like
 * `span.asCurrent(fn)`). `withSpan(name, fn)` starts a child of the current span (a new
 * root when there is none), binds it, and ends it when `fn` returns or settles.
 */
export function withSpan<T>(nameOrSpan: SpanName | Span, fn: () => T, options: ChildSpanOptions = {}): T {
  if (nameOrSpan instanceof Span) return nameOrSpan.asCurrent(fn);
  const parent = currentSpan();
  const span = parent !== undefined ? parent.child(nameOrSpan, options) : new Span(nameOrSpan, options).start();
  return runThenEnd(span, fn);
}

/**
 * Runs `fn` (sync or async) inside a started child of the current span, ending it even
 * when `fn` throws or rejects (the error propagates). Without a current span it just runs
 * `fn`.
 */
export function meter<T>(name: SpanName, fn: () => T, options: ChildSpanOptions = {}): T {
  const parent = currentSpan();
  if (parent === undefined) return fn();
  return runThenEnd(parent.child(name, options), fn);
}
