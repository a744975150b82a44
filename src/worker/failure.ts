// How a failure is described: the one place that turns a thrown value into the fields of a
// failure event (ExecuteFailureEvent, GatherDepFailureEvent) and of a failed root.
import type { AttributeValue } from "../spans/index.js";

/** `"TypeError: message"`, like dask's exception text; something not an Error says so. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return `non-Error thrown: ${typeof error === "string" ? error : JSON.stringify(error)}`;
  } catch {
    return `non-Error thrown: ${String(error)}`;
  }
}

function stackText(error: unknown): string {
  return error instanceof Error && typeof error.stack === "string" ? error.stack : "";
}

/** The fields every failure event shares. */
export interface FailureFields {
  readonly exception: unknown;
  readonly traceback: string | null;
  readonly exceptionText: string;
  readonly tracebackText: string;
}

export function failureFields(error: unknown): FailureFields {
  const stack = stackText(error);
  return { exception: error, traceback: stack || null, exceptionText: errorText(error), tracebackText: stack };
}

/**
 * What a failed root records about its error: OpenTelemetry's exception attribute names,
 * which the OTel bridge turns into the span's ERROR status and exception event.
 */
export function exceptionAttributes(error: unknown): Record<string, AttributeValue> {
  if (error instanceof Error) return { "exception.type": error.name, "exception.message": error.message };
  return { "exception.type": typeof error, "exception.message": errorText(error) };
}
