// The AsyncLocalStorage behind `currentSpan()`, created on first use: until some code
// binds a span, no AsyncLocalStorage exists and `await` keeps its native cost.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Span } from "./span.js";

let storage: AsyncLocalStorage<Span> | undefined;

/** The storage if anything ever bound a span, else undefined. */
export function existingStorage(): AsyncLocalStorage<Span> | undefined {
  return storage;
}

/** The storage, creating it on first use. */
export function spanStorage(): AsyncLocalStorage<Span> {
  storage ??= new AsyncLocalStorage<Span>();
  return storage;
}
