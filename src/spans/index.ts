// Timing spans (CONTRACT §3): Span trees with exact exclusive times, context binding,
// in-progress scraping, DigestMetric conversion and trace exports.
export type {
  AttributeValue,
  Clock,
  CpuClock,
  FlatMetric,
  SpanAttributes,
  SpanMetrics,
  SpanRecord,
  SpanTreeNode,
} from "./types.js";
export { OTHER, SECONDS, THREAD_CPU, THREAD_NONCPU } from "./types.js";
export { Span, type ChildSpanOptions, type SpanOptions } from "./span.js";
export { bindSync, currentSpan, hasCurrentSpan, meter, withSpan, type LazySpan, type SpanName } from "./context.js";
export { SpanRegistry, type ScrapeOptions } from "./registry.js";
export { flat, seriesKey } from "./flatten.js";
export { toDigestMetrics, type DigestOptions } from "./digest.js";
export { assertValidSpanTree, spanTreeProblems, SpanTreeError } from "./validate.js";
export { cpuClockIsPerThread, monotonicClock, processCpuClock } from "./clock.js";
export { QUANTA_PER_SECOND } from "./float.js";
export { replayToTracer, toHrTime, type ReplayOptions } from "./otel.js";
export { toChromeTrace, type ChromeCounter, type ChromeFlow, type ChromeTrace, type ChromeTraceEvent, type ChromeTraceOptions } from "./chrome.js";
