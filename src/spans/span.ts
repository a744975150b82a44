// The timing span: a node of an OpenTelemetry-shaped tree whose exclusive times add up to
// the root's duration. Cheap by design (a plain class, lazily allocated collections, no
// context work unless asked): the worker builds a handful of these per task.
import { monotonicClock, processCpuClock } from "./clock.js";
import { fromQuanta, quantaBetween } from "./float.js";
import { buildRecord } from "./record.js";
import type { SpanRegistry } from "./registry.js";
import { runInStorage, runSyncBound } from "./storage.js";
import { flat as flatTree } from "./flatten.js";
import type {
  AttributeValue,
  Clock,
  CpuClock,
  FlatMetric,
  SpanAttributes,
  SpanMetrics,
  SpanRecord,
} from "./types.js";
import { SECONDS } from "./types.js";
import { nodeProblems, SpanTreeError } from "./validate.js";

export interface SpanOptions {
  /** The parent span. Without it the span is a root, whatever span is current. */
  readonly parent?: Span | null | undefined;
  /** Time source (seconds); inherited from the parent, else monotonic real time. */
  readonly clock?: Clock | undefined;
  readonly attributes?: Readonly<Record<string, AttributeValue>> | undefined;
  /** Track this root in a registry while it is open (see `SpanRegistry.scrape`). */
  readonly registry?: SpanRegistry | undefined;
  /**
   * Measure CPU time and export this span's own time as `thread-cpu` + `thread-noncpu`.
   * `true` uses `processCpuClock`. Descendants inherit the measurement (so a metered
   * sub-span takes its own CPU out of this one) but not the split; `false` stops it.
   */
  readonly cpu?: CpuClock | boolean | undefined;
  /**
   * Throw a `SpanTreeError` at `end()` when this span's tree is inconsistent (open or
   * outliving children, negative exclusive time) and on repeated start/end. Inherited.
   */
  readonly strict?: boolean | undefined;
}

/** Options of `span.child(name, options)`: a child cannot join a registry. */
export interface ChildSpanOptions extends Omit<SpanOptions, "parent" | "registry"> {
  /** Start time (default: the clock's now). */
  readonly startTime?: number | undefined;
}

// Attribute names and metric units are data, so the records keyed by them have no
// Object.prototype behind them: "__proto__" or "constructor" are ordinary keys. Objects made by
// a constructor whose prototype has a null prototype keep V8's fast (hidden-class) layout;
// Object.create(null) would give dictionary-mode objects, measured ≈ 30× slower to fill and
// iterate than a literal in this hot path (a few per task).
const KeyedRecord = function KeyedRecord(this: object): void {} as unknown as new () => Record<string, never>;
KeyedRecord.prototype = Object.freeze(Object.create(null) as object) as Record<string, never>;

function newRecord<T>(): Record<string, T> {
  return new KeyedRecord() as Record<string, T>;
}

/** A copy of `source`'s own keys in a prototype-free record. */
function copyRecord<T>(source: Readonly<Record<string, T>>): Record<string, T> {
  const copy = newRecord<T>();
  for (const key in source) copy[key] = source[key]!;
  return copy;
}

/** Attribute arrays are immutable: a frozen one is shared, any other copied and frozen. */
function attributeValue(value: AttributeValue): AttributeValue {
  return Array.isArray(value) && !Object.isFrozen(value) ? Object.freeze(value.slice()) : value;
}

const NO_OPTIONS: ChildSpanOptions & SpanOptions = Object.freeze({});
const EMPTY_ATTRIBUTES: SpanAttributes = Object.freeze(newRecord<AttributeValue>());
const EMPTY_METRICS: SpanMetrics = Object.freeze(newRecord<number>());
const NO_CHILDREN: readonly Span[] = Object.freeze([]);

// Single-segment names repeat (activities), so their frozen arrays are shared.
const SINGLE_SEGMENT_NAMES = new Map<string, readonly string[]>();
const MAX_SHARED_NAMES = 4096;

/** Attributes given at construction: shared when already (deeply) frozen, else copied. */
function shareableAttributes(attributes: Readonly<Record<string, AttributeValue>>): Record<string, AttributeValue> {
  if (Object.isFrozen(attributes)) {
    let deep = true;
    for (const key in attributes) {
      const value = attributes[key];
      if (Array.isArray(value) && !Object.isFrozen(value)) deep = false;
    }
    if (deep) return attributes as Record<string, AttributeValue>;
  }
  const copy = newRecord<AttributeValue>();
  for (const key in attributes) copy[key] = attributeValue(attributes[key]!);
  return copy;
}

function normaliseName(name: string | readonly string[]): readonly string[] {
  if (typeof name === "string") {
    let segments = SINGLE_SEGMENT_NAMES.get(name);
    if (segments !== undefined) return segments;
    if (name === "") throw new Error("span name must not be empty");
    segments = Object.freeze([name]);
    if (SINGLE_SEGMENT_NAMES.size < MAX_SHARED_NAMES) SINGLE_SEGMENT_NAMES.set(name, segments);
    return segments;
  }
  if (!Array.isArray(name)) throw new Error(`span name must be a string or an array of strings, got ${typeof name}`);
  // Indexed loops here and in end(): hot, and an array iterator is not always optimised away.
  for (let i = 0; i < name.length; i++) {
    const segment: unknown = name[i];
    if (typeof segment !== "string" || segment === "") {
      throw new Error(`span name ${JSON.stringify(name)} has an empty or non-string segment`);
    }
  }
  return Object.isFrozen(name) ? name : Object.freeze(name.slice());
}

export class Span {
  /** Name segments: a string name is one segment, `[]` a transparent span (no segment). */
  readonly name: readonly string[];
  readonly parent: Span | undefined;
  readonly clock: Clock;
  /** CPU clock when CPU is measured for this span. */
  readonly cpuClock: CpuClock | undefined;
  /** Own time exported as `thread-cpu` + `thread-noncpu`. */
  readonly cpuSplit: boolean;
  readonly strict: boolean;
  readonly registry: SpanRegistry | undefined;

  #startTime: number | undefined = undefined;
  #endTime: number | undefined = undefined;
  #cpuStart = 0;
  #cpuEnd = 0;
  // Attributes and metrics are copy-on-write: toRecord() freezes and shares them, and the
  // next change copies them first. So a record costs no copy for a span that is done.
  #attributes: Record<string, AttributeValue> | undefined;
  #metrics: Record<string, number> | undefined = undefined;
  #children: Span[] | undefined = undefined;
  #exported: Record<string, number> | undefined = undefined;

  /** `parentOfChild` is internal: `child()` passes itself there instead of copying options. */
  constructor(name: string | readonly string[], options: SpanOptions = NO_OPTIONS, parentOfChild?: Span) {
    this.name = normaliseName(name);
    const parent = parentOfChild ?? options.parent ?? undefined;
    this.parent = parent;
    this.clock = options.clock ?? parent?.clock ?? monotonicClock;
    const cpu = options.cpu;
    this.cpuClock = cpu === undefined ? parent?.cpuClock : cpu === true ? processCpuClock : cpu === false ? undefined : cpu;
    this.cpuSplit = cpu !== undefined && cpu !== false;
    this.strict = options.strict ?? parent?.strict ?? false;
    if (parent === undefined && this.name.length === 0) throw new Error("a root span needs a name");
    if (options.registry !== undefined && parent !== undefined) {
      throw new Error(`span ${this.label} has a parent; only roots join a registry`);
    }
    this.registry = options.registry;
    const attributes = options.attributes;
    this.#attributes = attributes === undefined ? undefined : shareableAttributes(attributes);
  }

  /** Name segments from the root down to this span. */
  get path(): string[] {
    const names: string[] = [];
    for (let span: Span | undefined = this; span !== undefined; span = span.parent) {
      for (let i = span.name.length - 1; i >= 0; i -= 1) names.push(span.name[i]!);
    }
    return names.reverse();
  }

  /** The path joined with "/" (for messages and exports). */
  get label(): string {
    const path = this.path;
    return path.length === 0 ? "(unnamed span)" : path.join("/");
  }

  get startTime(): number | undefined {
    return this.#startTime;
  }

  get endTime(): number | undefined {
    return this.#endTime;
  }

  /** The root of this span's tree. */
  get root(): Span {
    let span: Span = this;
    while (span.parent !== undefined) span = span.parent;
    return span;
  }

  /**
   * Seconds from start to end (to now while recording), quantised like every exported time
   * (2^-30 s steps measured from the root's start), so exclusive times sum to it exactly.
   * Undefined before start.
   */
  get duration(): number | undefined {
    const start = this.#startTime;
    if (start === undefined) return undefined;
    const end = this.#endTime ?? this.clock.now();
    const base = this.root.#startTime ?? start;
    return fromQuanta(quantaBetween(base, end) - quantaBetween(base, start));
  }

  get children(): readonly Span[] {
    return this.#children ?? NO_CHILDREN;
  }

  get attributes(): SpanAttributes {
    return this.#attributes ?? EMPTY_ATTRIBUTES;
  }

  /** Non-time quantities by unit. */
  get metrics(): SpanMetrics {
    return this.#metrics ?? EMPTY_METRICS;
  }

  /** Inclusive CPU seconds (so far while recording); undefined when CPU is not measured. */
  get cpuSeconds(): number | undefined {
    const clock = this.cpuClock;
    if (clock === undefined || this.#startTime === undefined) return undefined;
    return (this.#endTime === undefined ? clock.now() : this.#cpuEnd) - this.#cpuStart;
  }

  /** Scrape bookkeeping of a root: cumulative value exported so far per series. */
  get exported(): Readonly<Record<string, number>> | undefined {
    return this.#exported;
  }

  /** @internal used by SpanRegistry.scrape */
  exportedForUpdate(): Record<string, number> {
    this.#exported ??= {};
    return this.#exported;
  }

  isRecording(): boolean {
    return this.#startTime !== undefined && this.#endTime === undefined;
  }

  start(time?: number): this {
    if (this.#startTime !== undefined) {
      if (this.strict) throw new SpanTreeError([`span ${this.label} started twice`]);
      return this;
    }
    const parent = this.parent;
    if (parent !== undefined) {
      if (parent.#startTime === undefined) throw new Error(`span ${this.label} starts before its parent started`);
      if (parent.#endTime !== undefined) throw new Error(`span ${this.label} starts after its parent ${parent.label} ended`);
    }
    const startTime = time ?? this.clock.now();
    if (!Number.isFinite(startTime)) throw new Error(`span ${this.label}: start time ${startTime} is not finite`);
    this.#startTime = startTime;
    if (this.cpuClock !== undefined) this.#cpuStart = this.cpuClock.now();
    if (parent !== undefined) (parent.#children ??= []).push(this);
    this.registry?.track(this);
    return this;
  }

  /** Ends the span (and, unless strict, any child still open, at the same time). */
  end(time?: number): this {
    const start = this.#startTime;
    if (start === undefined) throw new Error(`span ${this.label} ended before it started`);
    if (this.#endTime !== undefined) {
      if (this.strict) throw new SpanTreeError([`span ${this.label} ended twice`]);
      return this;
    }
    const endTime = time ?? this.clock.now();
    if (!Number.isFinite(endTime)) throw new Error(`span ${this.label}: end time ${endTime} is not finite`);
    if (endTime < start) throw new Error(`span ${this.label} ends (${endTime}) before it starts (${start})`);
    const children = this.#children;
    if (children !== undefined) {
      for (let i = 0; i < children.length; i++) {
        const child = children[i]!;
        if (child.#endTime !== undefined) continue;
        if (this.strict) throw new SpanTreeError([`span ${child.label} is still open when its parent ${this.label} ends`]);
        child.end(Math.max(endTime, child.#startTime!));
      }
    }
    if (this.cpuClock !== undefined) this.#cpuEnd = this.cpuClock.now();
    this.#endTime = endTime;
    if (this.strict) {
      const problems: string[] = [];
      nodeProblems(this, this.path, this.root.#startTime!, problems);
      if (problems.length > 0) throw new SpanTreeError(problems);
    }
    if (this.registry !== undefined) this.registry.untrack(this);
    return this;
  }

  /** Alias of `end`. */
  stop(time?: number): this {
    return this.end(time);
  }

  #writableAttributes(): Record<string, AttributeValue> {
    let own = this.#attributes;
    if (own === undefined) own = this.#attributes = newRecord();
    else if (Object.isFrozen(own)) own = this.#attributes = copyRecord(own);
    return own;
  }

  /** @internal Freezes attributes and metrics for sharing with a record (copy-on-write). */
  sealForRecord(): void {
    if (this.#attributes !== undefined) Object.freeze(this.#attributes);
    if (this.#metrics !== undefined) Object.freeze(this.#metrics);
  }

  setAttribute(key: string, value: AttributeValue): this {
    this.#writableAttributes()[key] = attributeValue(value);
    return this;
  }

  setAttributes(attributes: Readonly<Record<string, AttributeValue>>): this {
    const own = this.#writableAttributes();
    for (const key in attributes) own[key] = attributeValue(attributes[key]!);
    return this;
  }

  /**
   * Adds a non-time quantity (bytes, count, …) to this node; repeated calls sum. Time is
   * what start/end measure, so `seconds` is refused: time a child span instead.
   */
  addMetric(unit: string, value: number): this {
    if (unit === SECONDS) {
      throw new Error(`span ${this.label}: addMetric("seconds") is not allowed; time a child span (start/end) instead`);
    }
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`span ${this.label}: metric ${unit} must be a finite number ≥ 0, got ${value}`);
    }
    let metrics = this.#metrics;
    if (metrics === undefined) metrics = this.#metrics = newRecord();
    else if (Object.isFrozen(metrics)) metrics = this.#metrics = copyRecord(metrics);
    metrics[unit] = (metrics[unit] ?? 0) + value;
    return this;
  }

  /** Creates and starts a child (inheriting clock, CPU measurement and strictness). */
  child(name: string | readonly string[], options: ChildSpanOptions = NO_OPTIONS): Span {
    return new Span(name, options, this).start(options.startTime);
  }

  /** Runs `fn` with this span as `currentSpan()` for its synchronous and asynchronous work. */
  asCurrent<T>(fn: () => T): T {
    return runInStorage(this, fn);
  }

  /**
   * Runs synchronous `fn` with this span as `currentSpan()`, without AsyncLocalStorage (no
   * cost for later awaits). Only the synchronous part of `fn` sees the binding: promise
   * continuations and timers it leaves behind do not. For hot paths that know their work
   * is synchronous (a state-machine step, a data access).
   */
  runSync<T>(fn: () => T): T {
    return runSyncBound(this, fn);
  }

  /** Exclusive seconds per node path plus metrics (see `flat`). The tree must have ended. */
  flat(): FlatMetric[] {
    return flatTree(this);
  }

  /** The frozen record of the finished tree, carrying scrape bookkeeping of a root. */
  toRecord(): SpanRecord {
    return buildRecord(this);
  }
}
