// Plain data shared by every spans module. Kept free of runtime code so that the state
// machine can import these types without pulling in the spans implementation.

/** A source of time in seconds (float). The default is monotonic real time. */
export interface Clock {
  now(): number;
}

/** A source of CPU time in seconds consumed by the running thread (or process). */
export interface CpuClock {
  now(): number;
}

/** Attribute values follow `@opentelemetry/api`'s `AttributeValue`. */
export type AttributeValue =
  | string
  | number
  | boolean
  | readonly string[]
  | readonly number[]
  | readonly boolean[];

export type SpanAttributes = Readonly<Record<string, AttributeValue>>;

/** Non-time quantities keyed by unit ("bytes", "count", …). */
export type SpanMetrics = Readonly<Record<string, number>>;

/**
 * The frozen, immutable record of a finished span tree: what events carry.
 *
 * Times are seconds on the clock of the span that produced the record. `cpuSeconds` is the
 * inclusive CPU time of the node when CPU was measured. `cpuSplit` marks a node whose own
 * exclusive time is exported as `thread-cpu` + `thread-noncpu` instead of one `seconds`
 * entry. `exported` (roots only) is present when a `SpanRegistry` scraped the root while it
 * was open: cumulative value already exported per DigestMetric series (see `seriesKey`), so
 * `toDigestMetrics(record)` yields only the remainder.
 */
export interface SpanRecord {
  readonly name: readonly string[];
  readonly startTime: number;
  readonly endTime: number;
  readonly attributes: SpanAttributes;
  readonly metrics: SpanMetrics;
  readonly cpuSeconds?: number;
  readonly cpuSplit?: boolean;
  readonly children: readonly SpanRecord[];
  readonly exported?: Readonly<Record<string, number>>;
}

/** One entry of `flat()`: exclusive seconds of a node path, or a metric summed per path. */
export interface FlatMetric {
  path: string[];
  unit: string;
  value: number;
}

/**
 * What flattening reads from a node: implemented by `SpanRecord` (finished) and by the
 * live `Span` (which may still be open: `endTime` undefined, `cpuSeconds` so far).
 */
export interface SpanTreeNode {
  readonly name: readonly string[];
  readonly startTime: number | undefined;
  readonly endTime: number | undefined;
  readonly attributes: SpanAttributes;
  readonly metrics: SpanMetrics;
  readonly cpuSeconds?: number | undefined;
  readonly cpuSplit?: boolean | undefined;
  readonly children: readonly SpanTreeNode[];
  readonly exported?: Readonly<Record<string, number>> | undefined;
}

/** Activity names of the CPU split of a `cpuSplit` node's exclusive time. */
export const THREAD_CPU = "thread-cpu";
export const THREAD_NONCPU = "thread-noncpu";
/** Activity of a root's own exclusive time in DigestMetrics. */
export const OTHER = "other";
/** The unit of time entries. */
export const SECONDS = "seconds";
