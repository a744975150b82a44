// Replay of finished span records into any OpenTelemetry tracer. `@opentelemetry/api` is an
// optional peer dependency: only types are imported statically, and the module itself is
// loaded on the first replay, so spanwork runs without it.
//
// What the records say in spanwork's own vocabulary becomes OpenTelemetry's: `outcome:
// "failed"` is the ERROR status, the `exception.type`/`exception.message` attributes a failed
// root carries are its exception event (not span attributes, as the semantic conventions
// put them), `aggregate` (an export flag of the metrics, docs/spans.md) is dropped, and a
// root with a `stimulus` attribute — the handling of a done event, which shares its work's
// name so its cost is charged there — is named for what it handled.
import type { Attributes, Context, HrTime, Link, Span as OtelSpan, Tracer } from "@opentelemetry/api";
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
  /**
   * Links of the replayed root: e.g. the handling of a task's result (the next record the
   * worker reports, named `… (handle-stimulus execute-success)`) linked to the task's span.
   */
  readonly links?: readonly Link[];
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

/** Attributes with a meaning of their own in OpenTelemetry, not copied as attributes. */
const NOT_ATTRIBUTES = new Set(["aggregate", "exception.type", "exception.message"]);

function attributesOf(record: SpanRecord): Attributes {
  const out: Attributes = {};
  for (const key in record.attributes) {
    if (NOT_ATTRIBUTES.has(key)) continue;
    const value = record.attributes[key]!;
    out[key] = Array.isArray(value) ? (value.slice() as string[] | number[] | boolean[]) : (value as string | number | boolean);
  }
  return Object.assign(out, measurementAttributes(record));
}

function nameOf(record: SpanRecord, separator: string): string {
  const name = displayName(record, separator);
  const stimulus = record.attributes["stimulus"];
  return typeof stimulus === "string" && record.name[0] !== "handle-stimulus" ? `${name} (handle-stimulus ${stimulus})` : name;
}

/** The exception a failed node recorded, if any. */
function exceptionOf(record: SpanRecord): { name: string; message: string } | undefined {
  const type = record.attributes["exception.type"];
  const message = record.attributes["exception.message"];
  if (type === undefined && message === undefined) return undefined;
  return { name: String(type ?? "Error"), message: String(message ?? "") };
}

/**
 * Replays a finished record (and its subtree) into `tracer`, with the same names (segments
 * joined by `separator`), times, attributes (plus `spanwork.<unit>` metrics and
 * `spanwork.cpu_seconds`) and parenting; a failed node gets the ERROR status and its
 * exception event (see the top of this file). Resolves to the replayed root span.
 */
export async function replayToTracer(record: SpanRecord, tracer: Tracer, options: ReplayOptions = {}): Promise<OtelSpan> {
  const otel = await loadApi();
  const offset = options.epochOffset ?? performance.timeOrigin / 1000;
  const separator = options.separator ?? NAME_SEPARATOR;
  const replay = (node: SpanRecord, parentContext: Context, links: readonly Link[] | undefined): OtelSpan => {
    const span = tracer.startSpan(
      nameOf(node, separator),
      {
        startTime: toHrTime(node.startTime + offset),
        attributes: attributesOf(node),
        ...(links === undefined ? {} : { links: links.slice() }),
      },
      parentContext,
    );
    const childContext = otel.trace.setSpan(parentContext, span);
    for (const child of node.children) replay(child, childContext, undefined);
    const end = toHrTime(node.endTime + offset);
    const exception = exceptionOf(node);
    if (exception !== undefined) span.recordException(exception, end);
    if (node.attributes["outcome"] === "failed") {
      // the same text as TaskErredMsg.exceptionText
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: exception === undefined ? "failed" : `${exception.name}: ${exception.message}` });
    }
    span.end(end);
    return span;
  };
  return replay(record, options.parentContext ?? otel.ROOT_CONTEXT, options.links);
}
