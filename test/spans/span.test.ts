import { describe, expect, it } from "vitest";
import { Span, SpanTreeError } from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";

const isFrozen = (value: unknown): boolean => Object.isFrozen(value);

describe("Span lifecycle", () => {
  it("starts and ends on its clock and reports times", () => {
    const clock = new FakeClock(10);
    const span = new Span("work", { clock });
    expect(span.isRecording()).toBe(false);
    expect(span.startTime).toBeUndefined();
    expect(span.duration).toBeUndefined();
    span.start();
    expect(span.isRecording()).toBe(true);
    expect(span.startTime).toBe(10);
    clock.advance(2.5);
    expect(span.duration).toBe(2.5);
    span.end();
    expect(span.isRecording()).toBe(false);
    expect(span.endTime).toBe(12.5);
    clock.advance(1);
    expect(span.duration).toBe(2.5);
  });

  it("takes explicit times and stop() is end()", () => {
    const span = new Span("work", { clock: new FakeClock() }).start(1);
    span.stop(4);
    expect([span.startTime, span.endTime, span.duration]).toEqual([1, 4, 3]);
  });

  it("keeps name segments", () => {
    expect(new Span("a").name).toEqual(["a"]);
    expect(new Span(["execute", "inc"]).name).toEqual(["execute", "inc"]);
    expect(() => new Span("")).toThrow(/empty/);
    expect(() => new Span(["execute", ""])).toThrow(/empty or non-string segment/);
    expect(() => new Span([])).toThrow(/root span needs a name/);
  });

  it("uses the default monotonic clock when none is given", () => {
    const span = new Span("real").start();
    span.end();
    expect(span.duration).toBeGreaterThanOrEqual(0);
  });

  it("refuses ending before starting and time going backwards", () => {
    const span = new Span("x", { clock: new FakeClock() });
    expect(() => span.end()).toThrow(/ended before it started/);
    span.start(5);
    expect(() => span.end(4)).toThrow(/ends \(4\) before it starts \(5\)/);
    expect(() => span.end(Number.NaN)).toThrow(/not finite/);
  });

  it("ignores a repeated end unless strict", () => {
    const lax = new Span("x", { clock: new FakeClock() }).start(0).end(1);
    lax.end(2);
    expect(lax.endTime).toBe(1);
    const strict = new Span("x", { clock: new FakeClock(), strict: true }).start(0).end(1);
    expect(() => strict.end(2)).toThrow(SpanTreeError);
    expect(() => strict.start(0)).toThrow(/started twice/);
  });
});

describe("children", () => {
  it("child() starts a child that inherits the clock, in creation order", () => {
    const clock = new FakeClock(0);
    const root = new Span("root", { clock }).start();
    clock.set(1);
    const a = root.child("a");
    expect(a.startTime).toBe(1);
    expect(a.clock).toBe(clock);
    expect(a.parent).toBe(root);
    clock.set(2);
    a.end();
    const b = root.child("b", { startTime: 3 });
    b.end(4);
    expect(root.children).toEqual([a, b]);
    expect(b.path).toEqual(["root", "b"]);
    expect(b.label).toBe("root/b");
  });

  it("joins the parent only when started", () => {
    const root = new Span("root", { clock: new FakeClock() }).start(0);
    const pending = new Span("pending", { parent: root });
    expect(root.children).toEqual([]);
    pending.start(1);
    expect(root.children).toEqual([pending]);
  });

  it("cannot start under an unstarted or ended parent", () => {
    const root = new Span("root", { clock: new FakeClock() });
    expect(() => new Span("c", { parent: root }).start()).toThrow(/before its parent started/);
    root.start(0).end(1);
    expect(() => root.child("late")).toThrow(/after its parent root ended/);
  });

  it("ends open children with the parent, or throws when strict", () => {
    const root = new Span("root", { clock: new FakeClock() }).start(0);
    const open = root.child("open", { startTime: 1 });
    root.end(3);
    expect(open.endTime).toBe(3);

    const strictRoot = new Span("root", { clock: new FakeClock(), strict: true }).start(0);
    strictRoot.child("open", { startTime: 1 });
    expect(() => strictRoot.end(3)).toThrow(/root\/open is still open when its parent root ends/);
  });
});

describe("attributes and metrics", () => {
  it("sets attributes one by one or together", () => {
    const span = new Span("x", { attributes: { a: 1 } });
    span.setAttribute("b", "two").setAttributes({ c: true, d: ["x", "y"] });
    expect(span.attributes).toEqual({ a: 1, b: "two", c: true, d: ["x", "y"] });
  });

  it("sums metrics per unit and keeps integers integers", () => {
    const span = new Span("x");
    span.addMetric("bytes", 100).addMetric("bytes", 28).addMetric("count", 1).addMetric("count", 1);
    expect(span.metrics).toEqual({ bytes: 128, count: 2 });
    expect(Number.isInteger(span.metrics["bytes"])).toBe(true);
  });

  it("refuses negative, non-finite and time metrics with the span named", () => {
    const span = new Span(["execute", "inc"]);
    expect(() => span.addMetric("bytes", -1)).toThrow(/execute\/inc: metric bytes must be a finite number ≥ 0, got -1/);
    expect(() => span.addMetric("count", Number.POSITIVE_INFINITY)).toThrow(/finite/);
    expect(() => span.addMetric("seconds", 1)).toThrow(/addMetric\("seconds"\) is not allowed/);
  });
});

describe("toRecord", () => {
  function finishedTree(): Span {
    const clock = new FakeClock();
    const root = new Span(["execute", "inc"], { clock, attributes: { key: "inc-1", tags: ["a"] } }).start(0);
    const child = root.child("disk-read", { startTime: 0.25, attributes: { aggregate: true } });
    child.addMetric("bytes", 10);
    child.end(0.5);
    root.end(1);
    return root;
  }

  it("is a deep frozen plain copy of the tree", () => {
    const record = finishedTree().toRecord();
    expect(record).toEqual({
      name: ["execute", "inc"],
      startTime: 0,
      endTime: 1,
      attributes: { key: "inc-1", tags: ["a"] },
      metrics: {},
      children: [
        {
          name: ["disk-read"],
          startTime: 0.25,
          endTime: 0.5,
          attributes: { aggregate: true },
          metrics: { bytes: 10 },
          children: [],
        },
      ],
    });
    expect(isFrozen(record)).toBe(true);
    expect(isFrozen(record.name)).toBe(true);
    expect(isFrozen(record.attributes)).toBe(true);
    expect(isFrozen(record.attributes["tags"])).toBe(true);
    expect(isFrozen(record.children)).toBe(true);
    expect(isFrozen(record.children[0])).toBe(true);
    expect(isFrozen(record.children[0]!.metrics)).toBe(true);
    expect(() => {
      (record.children[0]!.metrics as Record<string, number>)["bytes"] = 1;
    }).toThrow(TypeError);
  });

  it("does not change when the live span changes afterwards", () => {
    const root = finishedTree();
    const record = root.toRecord();
    root.setAttribute("key", "changed");
    root.children[0]!.addMetric("bytes", 5);
    expect(record.attributes["key"]).toBe("inc-1");
    expect(record.children[0]!.metrics["bytes"]).toBe(10);
  });

  it("needs a finished tree", () => {
    const root = new Span("root", { clock: new FakeClock() }).start(0);
    expect(() => root.toRecord()).toThrow(/toRecord\(\): span root is still recording; end it first/);
    expect(() => new Span("never").toRecord()).toThrow(/was never started/);
  });
});
