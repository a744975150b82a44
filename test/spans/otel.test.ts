// The OpenTelemetry bridge on a worker's own records, through the real SDK (issue 12,
// item 6): a failed task is an ERROR span carrying the error, the internal `aggregate`
// flag is no attribute, and the handling of a task's result is named for what it is (and
// can be linked to the task).
import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { replayToTracer, type SpanRecord } from "../../src/spans/index.js";
import { ComputeTaskEvent } from "../../src/state/index.js";
import { RealExecutor } from "../../src/worker/index.js";
import { MemoryStore, makeCluster } from "../worker/helpers.js";

const A = "127.0.0.1:1";

let provider: BasicTracerProvider | undefined;
afterEach(async () => {
  await provider?.shutdown();
  provider = undefined;
});

async function replayAll(records: readonly SpanRecord[]): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("spanwork-test");
  for (const record of records) await replayToTracer(record, tracer, { epochOffset: 0 });
  return exporter.getFinishedSpans();
}

/** The records of one task on a worker whose target is 0 bytes: its result spills as it is stored. */
async function spillingTaskRecords(): Promise<SpanRecord[]> {
  const records: SpanRecord[] = [];
  const { clock, workers } = makeCluster([A], {
    worker: { memoryLimit: 1, spill: { store: new MemoryStore() }, onSpanRecord: (r) => records.push(r) },
  });
  workers[0]!.worker.handleStimulus(
    ComputeTaskEvent({ key: "x-1", stimulusId: "c1", runSpec: { durations: { "thread-cpu": 1 }, outputBytes: 100 } }),
  );
  await clock.runUntilIdle();
  return records;
}

describe("replayToTracer on worker records", () => {
  it("a failed task's span has status ERROR with the error, and an exception event", async () => {
    const records: SpanRecord[] = [];
    const { clock, workers, errors } = makeCluster([A], { executor: new RealExecutor(), worker: { onSpanRecord: (r) => records.push(r) } });
    const { worker } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({
        key: "boom-1",
        stimulusId: "c1",
        runSpec: () => {
          throw new TypeError("kaboom");
        },
      }),
      ComputeTaskEvent({ key: "fine-1", stimulusId: "c2", runSpec: () => 1 }),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    const spans = await replayAll(records);
    const boom = spans.find((s) => s.name === "execute/boom")!;
    expect(boom.status).toEqual({ code: SpanStatusCode.ERROR, message: "TypeError: kaboom" });
    expect(boom.events.map((e) => [e.name, e.attributes?.["exception.type"], e.attributes?.["exception.message"]])).toEqual([
      ["exception", "TypeError", "kaboom"],
    ]);
    expect(boom.attributes["outcome"]).toBe("failed");
    expect(Object.keys(boom.attributes).filter((k) => k.startsWith("exception."))).toEqual([]);
    const fine = spans.find((s) => s.name === "execute/fine")!;
    expect(fine.status.code).toBe(SpanStatusCode.UNSET);
    expect(fine.events).toEqual([]);
  });

  it("no span carries the internal aggregate flag", async () => {
    const records = await spillingTaskRecords();
    const hasAggregate = (r: SpanRecord): boolean => r.attributes["aggregate"] === true || r.children.some(hasAggregate);
    expect(records.some(hasAggregate)).toBe(true);
    const spans = await replayAll(records);
    expect(spans.map((s) => s.name)).toContain("disk-write");
    for (const span of spans) expect(span.attributes).not.toHaveProperty("aggregate");
  });

  it("the handling of a task's result is named for what it is, and can be linked to the task's span", async () => {
    const records = await spillingTaskRecords();
    // the task's root, then the root of handling its ExecuteSuccessEvent (storing the result spilled it)
    const [task, handling] = records.filter((r) => r.name.join("/") === "execute/x");
    expect(task).toBeDefined();
    expect(handling).toBeDefined();

    const exporter = new InMemorySpanExporter();
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer("spanwork-test");
    const taskSpan = await replayToTracer(task!, tracer, { epochOffset: 0 });
    const handlingSpan = await replayToTracer(handling!, tracer, { epochOffset: 0, links: [{ context: taskSpan.spanContext() }] });
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    expect(byId.get(taskSpan.spanContext().spanId)!.name).toBe("execute/x");
    const handled = byId.get(handlingSpan.spanContext().spanId)!;
    expect(handled.name).toBe("execute/x (handle-stimulus execute-success)");
    expect(handled.attributes["stimulus"]).toBe("execute-success");
    expect(handled.links.map((l) => l.context.spanId)).toEqual([taskSpan.spanContext().spanId]);
    // the two are never two spans of one name
    expect(new Set(spans.filter((s) => s.parentSpanContext === undefined).map((s) => s.name)).size).toBe(2);
  });
});
