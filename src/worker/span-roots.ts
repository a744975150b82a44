// The worker's root spans (docs/worker.md, "Span roots"): their names, the cursor clock
// they run on, and the lazy root of a stimulus.
//
//   ["execute", prefix]           one per Execute, started before the async work is launched
//   ["gather-dep"]                one per GatherDep (split over prefixes when digested)
//   ["get-data"]                  one per request served to a peer (split likewise)
//   <cause> for handleStimulus    the done event's root name, else ["handle-stimulus", <stimulus>]
//   ["memory-monitor"]            manual evict()
//   ["unattributed"]              data accesses made outside any span
import { Span, type AttributeValue, type SpanRegistry } from "../spans/index.js";
import type { LazySpan } from "../spans/context.js";
import type { WorkerClock } from "./clock.js";

// Root names are frozen once and reused: a Span keeps a frozen name as is (no copy per span).
const STIMULUS_ROOTS = new Map<string, readonly string[]>();
const EXECUTE_ROOTS = new Map<string, readonly string[]>();
export const GATHER_DEP_ROOT: readonly string[] = Object.freeze(["gather-dep"]);
export const GET_DATA_ROOT: readonly string[] = Object.freeze(["get-data"]);
export const MEMORY_MONITOR_ROOT: readonly string[] = Object.freeze(["memory-monitor"]);
export const UNATTRIBUTED_ROOT: readonly string[] = Object.freeze(["unattributed"]);

/** `["handle-stimulus", <kind in kebab case>]`: "ComputeTaskEvent" → "compute-task". */
export function stimulusRoot(kind: string): readonly string[] {
  let name = STIMULUS_ROOTS.get(kind);
  if (name === undefined) {
    const stimulus = kind
      .replace(/Event$/, "")
      .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
      .toLowerCase();
    name = Object.freeze(["handle-stimulus", stimulus]);
    STIMULUS_ROOTS.set(kind, name);
  }
  return name;
}

export function executeRoot(prefix: string): readonly string[] {
  let name = EXECUTE_ROOTS.get(prefix);
  if (name === undefined) {
    name = Object.freeze(["execute", prefix]);
    // prefixes are few in practice; a pathological stream of distinct ones cannot grow this forever
    if (EXECUTE_ROOTS.size >= 10_000) EXECUTE_ROOTS.clear();
    EXECUTE_ROOTS.set(prefix, name);
  }
  return name;
}

/** Latest end among a root's children: synchronous spill with a modelled duration can end "in the future". */
export function latestChildEnd(root: Span, floor: number): number {
  let latest = floor;
  const children = root.children;
  // Indexed: called on every now() of a stimulus root, and an array iterator is not always optimised away.
  for (let i = 0; i < children.length; i++) {
    const end = children[i]!.endTime;
    if (end !== undefined && end > latest) latest = end;
  }
  return latest;
}

/** The worker clock, but never earlier than the end of the root's latest ended child. */
class CursorClock {
  root: Span | undefined;
  readonly #base: WorkerClock;
  constructor(base: WorkerClock) {
    this.#base = base;
  }
  now(): number {
    const now = this.#base.now();
    return this.root === undefined ? now : latestChildEnd(this.root, now);
  }
}

export interface RootOptions {
  readonly registry?: SpanRegistry;
  readonly attributes?: Readonly<Record<string, AttributeValue>>;
}

/**
 * A root span (explicitly parentless: roots are roots, whatever span is current — no
 * pile-up, dask #7949) on a cursor clock: a child starts no earlier than the end of the
 * root's latest ended child. Synchronous spill with a modelled duration (a virtual disk)
 * ends "in the future" of a virtual clock that cannot advance mid-call; the cursor makes
 * the next activity start after it instead of overlapping it, so exclusive times stay
 * exact and non-negative, and the root itself ends no earlier than its children.
 */
export function newRoot(clock: WorkerClock, name: readonly string[], options: RootOptions = {}): Span {
  const cursor = new CursorClock(clock);
  const root = new Span(name, { registry: options.registry, attributes: options.attributes, parent: null, clock: cursor });
  cursor.root = root;
  return root;
}

/**
 * The root of one stimulus, created only when something records under it (spill caused by
 * storing a value) or when handling took time: most stimuli of a simulation record nothing,
 * and then no span is built at all. Starts at the time handling began, like an eager root.
 */
export class LazyRoot implements LazySpan {
  span: Span | undefined = undefined;
  readonly #name: readonly string[];
  readonly #clock: WorkerClock;
  readonly #start: number;

  constructor(name: readonly string[], clock: WorkerClock, start: number) {
    this.#name = name;
    this.#clock = clock;
    this.#start = start;
  }

  get resolved(): boolean {
    return this.span !== undefined;
  }

  resolve(): Span {
    this.span ??= newRoot(this.#clock, this.#name).start(this.#start);
    return this.span;
  }
}
