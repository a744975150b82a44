import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { replayToTracer, Span, toChromeTrace, toHrTime, type ChromeTraceEvent, type SpanRecord } from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";

function taskRecord(worker: string, start: number, attributes: Record<string, string | number> = {}): SpanRecord {
  const clock = new FakeClock(start);
  const root = new Span(["execute", "inc"], { clock, attributes: { worker, key: "inc-1", ...attributes } }).start();
  const body = root.child([], { cpu: new FakeClock() });
  body.child("disk-read", { startTime: start + 0.25, attributes: { aggregate: true } }).addMetric("bytes", 4096).end(start + 0.5);
  body.end(start + 1.5);
  root.setAttribute("outcome", "ok");
  root.end(start + 2);
  return root.toRecord();
}

describe("toHrTime", () => {
  it("splits seconds into [seconds, nanoseconds]", () => {
    expect(toHrTime(1.5)).toEqual([1, 500_000_000]);
    expect(toHrTime(2)).toEqual([2, 0]);
    expect(toHrTime(0.9999999999)).toEqual([1, 0]);
  });
});

describe("replayToTracer", () => {
  it("replays names, times, attributes and parenting into the OpenTelemetry SDK", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer("spanwork-test");
    const record = taskRecord("w1", 10);

    const root = await replayToTracer(record, tracer, { epochOffset: 1_700_000_000 });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(["disk-read", "execute/inc", "thread"]);
    const byName = new Map(spans.map((s) => [s.name, s]));
    const otelRoot = byName.get("execute/inc")!;
    const thread = byName.get("thread")!;
    const diskRead = byName.get("disk-read")!;

    expect(otelRoot.spanContext().spanId).toBe(root.spanContext().spanId);
    expect(otelRoot.startTime).toEqual([1_700_000_010, 0]);
    expect(otelRoot.endTime).toEqual([1_700_000_012, 0]);
    expect(diskRead.startTime).toEqual([1_700_000_010, 250_000_000]);
    expect(otelRoot.parentSpanContext).toBeUndefined();
    expect(thread.parentSpanContext?.spanId).toBe(otelRoot.spanContext().spanId);
    expect(diskRead.parentSpanContext?.spanId).toBe(thread.spanContext().spanId);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(otelRoot.attributes).toEqual({ worker: "w1", key: "inc-1", outcome: "ok" });
    // `aggregate` is an export flag of the metrics, not an attribute
    expect(diskRead.attributes).toEqual({ "spanwork.bytes": 4096, "spanwork.cpu_seconds": 0 });
    expect(thread.attributes).toEqual({ "spanwork.cpu_seconds": 0 });
    await provider.shutdown();
  });

  it("joins segments with a custom separator", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    await replayToTracer(taskRecord("w", 0), provider.getTracer("t"), { epochOffset: 0, separator: "." });
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain("execute.inc");
  });
});

describe("toChromeTrace", () => {
  it("emits complete events in microseconds with metadata naming processes and threads", () => {
    const trace = toChromeTrace([taskRecord("tcp://w1", 1), taskRecord("tcp://w2", 1.5)]);
    expect(trace.displayTimeUnit).toBe("ms");
    const complete = trace.traceEvents.filter((e) => e.ph === "X");
    expect(complete).toHaveLength(6);
    const first = complete[0]!;
    expect(first).toEqual({
      name: "execute/inc",
      cat: "execute",
      ph: "X",
      ts: 1_000_000,
      dur: 2_000_000,
      pid: 1,
      tid: 1000,
      args: { worker: "tcp://w1", key: "inc-1", outcome: "ok" },
    });
    expect(complete[2]).toMatchObject({ name: "disk-read", ts: 1_250_000, dur: 250_000, args: { "spanwork.bytes": 4096 } });
    expect(complete[3]).toMatchObject({ name: "execute/inc", pid: 2 });
    const metadata = trace.traceEvents.filter((e) => e.ph === "M");
    expect(metadata).toContainEqual({ name: "process_name", ph: "M", pid: 1, tid: 0, args: { name: "tcp://w1" } });
    expect(metadata).toContainEqual({ name: "process_name", ph: "M", pid: 2, tid: 0, args: { name: "tcp://w2" } });
    expect(JSON.parse(JSON.stringify(trace))).toEqual(trace);
  });

  it("keeps overlapping roots of one worker on separate lanes, and honours thread slots", () => {
    const trace = toChromeTrace([
      taskRecord("w", 0),
      taskRecord("w", 1),
      taskRecord("w", 2.5),
      taskRecord("w", 0, { thread: 3 }),
    ]);
    const roots = trace.traceEvents.filter((e) => e.ph === "X" && e.name === "execute/inc");
    const lanes = roots.map((e: ChromeTraceEvent) => [e.ts, e.tid]);
    expect(lanes).toEqual([
      [0, 1000],
      [0, 3],
      [1_000_000, 1001],
      [2_500_000, 1000],
    ]);
  });

  it("nests every child inside its parent on the same thread", () => {
    const events = toChromeTrace(taskRecord("w", 3)).traceEvents.filter((e) => e.ph === "X");
    const [root, ...rest] = events;
    for (const e of rest) {
      expect(e.tid).toBe(root!.tid);
      expect(e.ts!).toBeGreaterThanOrEqual(root!.ts!);
      expect(e.ts! + e.dur!).toBeLessThanOrEqual(root!.ts! + root!.dur!);
    }
  });

  it("accepts pid/tid mappings and an epoch offset", () => {
    const trace = toChromeTrace(taskRecord("w", 0), { pid: () => 7, tid: () => 9, epochOffset: 100 });
    const root = trace.traceEvents.find((e) => e.ph === "X")!;
    expect([root.pid, root.tid, root.ts]).toEqual([7, 9, 100_000_000]);
  });
});
