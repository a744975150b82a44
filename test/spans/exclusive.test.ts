import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DigestMetric } from "../../src/state/instructions.js";
import {
  assertValidSpanTree,
  flat,
  QUANTA_PER_SECOND,
  Span,
  SpanTreeError,
  spanTreeProblems,
  toDigestMetrics,
  type FlatMetric,
} from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";
import { buildTree, shapeArbitrary } from "./trees.js";

function seconds(entries: readonly FlatMetric[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) if (e.unit === "seconds") out[e.path.join("/")] = e.value;
  return out;
}

describe("exclusive time", () => {
  it("is each node's duration minus its children's, on nested trees", () => {
    const root = new Span(["execute", "inc"], { clock: new FakeClock() }).start(0);
    const a = root.child("a", { startTime: 1 });
    a.child("a1", { startTime: 1.5 }).end(2);
    a.child("a2", { startTime: 2.5 }).end(3.5);
    a.end(4);
    root.child("b", { startTime: 5 }).end(8);
    root.end(10);
    expect(seconds(root.flat())).toEqual({
      "execute/inc": 10 - 3 - 3,
      "execute/inc/a": 3 - 0.5 - 1,
      "execute/inc/a/a1": 0.5,
      "execute/inc/a/a2": 1,
      "execute/inc/b": 3,
    });
  });

  it("sums exactly to the root's duration for arbitrary float times", () => {
    // Random sequential trees on non-dyadic times: the sum must be exact, not close.
    fc.assert(
      fc.property(shapeArbitrary(), fc.double({ min: 0, max: 1e6, noNaN: true }), (shape, origin) => {
        const root = buildTree(shape, origin);
        const total = root.flat().filter((e) => e.unit === "seconds").reduce((s, e) => s + e.value, 0);
        const reversed = root.flat().filter((e) => e.unit === "seconds").reverse().reduce((s, e) => s + e.value, 0);
        expect(total).toBe(root.duration);
        expect(reversed).toBe(root.duration);
        expect(spanTreeProblems(root)).toEqual([]);
      }),
      { seed: 7949, numRuns: 300 },
    );
  });

  it("is measured in whole 2^-30 s quanta", () => {
    const root = new Span("r", { clock: new FakeClock() }).start(0.1);
    root.end(0.4);
    expect(root.duration! * QUANTA_PER_SECOND).toBe(Math.round(0.3 * QUANTA_PER_SECOND));
    expect(root.duration).toBeCloseTo(0.3, 8);
  });

  it("sums equal paths and units", () => {
    const root = new Span("r", { clock: new FakeClock() }).start(0);
    root.child("io", { startTime: 0 }).addMetric("bytes", 3).end(1);
    root.child("io", { startTime: 2 }).addMetric("bytes", 4).end(4);
    root.end(5);
    expect(root.flat()).toEqual([
      { path: ["r"], unit: "seconds", value: 2 },
      { path: ["r", "io"], unit: "seconds", value: 3 },
      { path: ["r", "io"], unit: "bytes", value: 7 },
    ]);
  });

  it("flat() of the record equals flat() of the span", () => {
    const root = new Span(["gather-dep"], { clock: new FakeClock() }).start(0);
    root.child("network", { startTime: 0.5 }).addMetric("bytes", 1000).end(2);
    root.end(3);
    expect(flat(root.toRecord())).toEqual(root.flat());
  });

  it("refuses to flatten an open tree", () => {
    const root = new Span("open", { clock: new FakeClock() }).start(0);
    expect(() => root.flat()).toThrow(/span open is still open/);
  });

  it("puts a transparent child's own time on its parent's path", () => {
    const root = new Span("r", { clock: new FakeClock() }).start(0);
    const inline = root.child([], { startTime: 1 });
    inline.child("io", { startTime: 1 }).end(2);
    inline.end(4);
    root.end(5);
    expect(root.flat()).toEqual([
      { path: ["r"], unit: "seconds", value: 2 + 2 },
      { path: ["r", "io"], unit: "seconds", value: 1 },
    ]);
  });
});

describe("aggregate", () => {
  it("exports the span's time and metrics qualified and as [activity, unit]", () => {
    const root = new Span(["execute", "inc"], { clock: new FakeClock() }).start(0);
    const write = root.child("disk-write", { startTime: 1, attributes: { aggregate: true } });
    write.addMetric("bytes", 4096).addMetric("count", 1);
    write.end(1.5);
    root.end(2);
    expect(root.flat()).toEqual([
      { path: ["execute", "inc"], unit: "seconds", value: 1.5 },
      { path: ["execute", "inc", "disk-write"], unit: "seconds", value: 0.5 },
      { path: ["execute", "inc", "disk-write"], unit: "bytes", value: 4096 },
      { path: ["execute", "inc", "disk-write"], unit: "count", value: 1 },
      { path: ["disk-write"], unit: "seconds", value: 0.5 },
      { path: ["disk-write"], unit: "bytes", value: 4096 },
      { path: ["disk-write"], unit: "count", value: 1 },
    ]);
  });

  it("adds up aggregate names across different roots' paths", () => {
    const root = new Span(["get-data"], { clock: new FakeClock() }).start(0);
    root.child("memory-read", { startTime: 0, attributes: { aggregate: true } }).addMetric("count", 1).end(0);
    const nested = root.child("serialize", { startTime: 0 });
    nested.child("memory-read", { startTime: 0, attributes: { aggregate: true } }).addMetric("count", 2).end(0);
    nested.end(0);
    root.end(1);
    const counts = root.flat().filter((e) => e.unit === "count");
    expect(counts).toContainEqual({ path: ["memory-read"], unit: "count", value: 3 });
    expect(counts).toContainEqual({ path: ["get-data", "serialize", "memory-read"], unit: "count", value: 2 });
  });
});

describe("toDigestMetrics", () => {
  it("names the root's own time `other` and builds DigestMetric instructions", () => {
    const root = new Span(["execute", "inc"], { clock: new FakeClock() }).start(0);
    root.child("thread-cpu", { startTime: 0.25 }).end(0.75);
    root.end(1);
    expect(toDigestMetrics(root.toRecord(), { stimulusId: "s1" })).toEqual([
      DigestMetric({ name: ["execute", "inc", "other", "seconds"], value: 0.5, stimulusId: "s1" }),
      DigestMetric({ name: ["execute", "inc", "thread-cpu", "seconds"], value: 0.5, stimulusId: "s1" }),
    ]);
  });

  it("copies the root's outcome into every instruction", () => {
    const root = new Span(["gather-dep"], { clock: new FakeClock() }).start(0);
    root.child("network", { startTime: 0 }).addMetric("bytes", 10).end(1);
    root.setAttribute("outcome", "busy");
    root.end(2);
    const metrics = toDigestMetrics(root, { stimulusId: "g" });
    expect(metrics.map((m) => m.outcome)).toEqual(["busy", "busy", "busy"]);
    expect(metrics).toContainEqual(
      DigestMetric({ name: ["gather-dep", "network", "bytes"], value: 10, stimulusId: "g", outcome: "busy" }),
    );
  });

  it("leaves the outcome key out when the root has none", () => {
    const root = new Span(["get-data"], { clock: new FakeClock() }).start(0).end(1);
    const [metric] = toDigestMetrics(root, { stimulusId: "x" });
    expect(metric).not.toHaveProperty("outcome");
    expect(Object.isFrozen(metric)).toBe(true);
  });

  it("merges a child named `other` with the root's own time", () => {
    const root = new Span(["execute", "f"], { clock: new FakeClock() }).start(0);
    root.child("other", { startTime: 0 }).end(1);
    root.end(3);
    expect(toDigestMetrics(root, { stimulusId: "s" })).toEqual([
      DigestMetric({ name: ["execute", "f", "other", "seconds"], value: 3, stimulusId: "s" }),
    ]);
  });
});

describe("validation", () => {
  it("reports a child outliving its parent as a negative residual, never floored", () => {
    const root = new Span("r", { clock: new FakeClock() }).start(0);
    const child = root.child("c", { startTime: 0 });
    child.end(5);
    root.end(3);
    expect(root.flat()[0]).toEqual({ path: ["r"], unit: "seconds", value: -2 });
    expect(spanTreeProblems(root)).toEqual([
      "span r/c ends (5) after its parent r (3)",
      "span r has a negative exclusive time: its children last longer than it (overlapping children?)",
    ]);
    expect(() => assertValidSpanTree(root.toRecord())).toThrow(SpanTreeError);
  });

  it("throws at end() in strict mode", () => {
    const root = new Span("r", { clock: new FakeClock(), strict: true }).start(0);
    const a = root.child("a", { startTime: 0 });
    const b = root.child("b", { startTime: 1 });
    a.end(3);
    b.end(3);
    expect(() => root.end(3)).toThrow(/span r has a negative exclusive time/);
  });

  it("finds children starting before their parent", () => {
    const clock = new FakeClock();
    const root = new Span("r", { clock }).start(1);
    new Span("early", { parent: root }).start(0).end(2);
    root.end(3);
    expect(spanTreeProblems(root)).toContain("span r/early starts (0) before its parent r (1)");
  });
});
