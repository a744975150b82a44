// Replay of finished span records into any OpenTelemetry tracer. `@opentelemetry/api` is an
// optional peer dependency: only types are imported statically, and the module itself is
// loaded on the first replay, so spanwork runs without it.
import type { Attributes, Context, HrTime, Span as OtelSpan, Tracer } from "@opentelemetry/api";
import { displayName, measurementAttributes, NAME_SEPARATOR } from "./display.js";
import type { SpanRecord } from "./types.js";

export interface ReplayOptions {
  /**
   * Seconds added to every record time to get Unix epoch seconds. Default
   * `performance.timeOrigin / 1000`, right for the default monotonic clock; pass 0 for a
   * clock that already reads epoch seconds, or the simulation's wall-clock origin.
   */
  readonly epochOffset?: number;
  /** Joins a node's name segments into the OpenTelemetry span name (default "/"). */
  readonly separator?: string;
  /** Context holding the parent of the replayed root (default: a root trace). */
  readonly parentContext?: Context;
}

type OtelApi = typeof import("@opentelemetry/api");
let api: Promise<OtelApi> | undefined;

function loadApi(): Promise<OtelApi> {
  api ??= import("@opentelemetry/api").catch((error: unknown) => {
    api = undefined;
    throw new Error(
      `replayToTracer needs the optional peer dependency @opentelemetry/api (npm install @opentelemetry/api): ${String(error)}`,
    );
  });
  return api;
}

/** Seconds → OpenTelemetry `[seconds, nanoseconds]`. */
export function toHrTime(seconds: number): HrTime {
  let whole = Math.floor(seconds);
  let nanos = Math.round((seconds - whole) * 1e9);
  if (nanos >= 1e9) {
    whole += 1;
    nanos -= 1e9;
  }
  return [whole, nanos];
}

function attributesOf(record: SpanRecord): Attributes {
  const out: Attributes = {};
  for (const key in record.attributes) {
    const value = record.attributes[key]!;
    out[key] = Array.isArray(value) ? (value.slice() as string[] | number[] | boolean[]) : (value as string | number | boolean);
  }
  return Object.assign(out, measurementAttributes(record));
}

/**
 * Replays a finished record (and its subtree) into `tracer`, with the same names (segments
 * joined by `separator`), times, attributes (plus `spanwork.<unit>` metrics and
 * `spanwork.cpu_seconds`) and parenting. Resolves to the replayed root span.
 */
export async function replayToTracer(record: SpanRecord, tracer: Tracer, options: ReplayOptions = {}): Promise<OtelSpan> {
  const otel = await loadApi();
  const offset = options.epochOffset ?? performance.timeOrigin / 1000;
  const separator = options.separator ?? NAME_SEPARATOR;
  const replay = (node: SpanRecord, parentContext: Context): OtelSpan => {
    const span = tracer.startSpan(
      displayName(node, separator),
      { startTime: toHrTime(node.startTime + offset), attributes: attributesOf(node) },
      parentContext,
    );
    const childContext = otel.trace.setSpan(parentContext, span);
    for (const child of node.children) replay(child, childContext);
    span.end(toHrTime(node.endTime + offset));
    return span;
  };
  return replay(record, options.parentContext ?? otel.ROOT_CONTEXT);
}
