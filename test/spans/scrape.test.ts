import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DigestMetric } from "../../src/state/instructions.js";
import { Span, SpanRegistry, toDigestMetrics } from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";
import { buildTree, shapeArbitrary } from "./trees.js";

function totals(metrics: readonly DigestMetric[], into: Map<string, number> = new Map()): Map<string, number> {
  for (const m of metrics) {
    const key = m.name.join("/");
    into.set(key, (into.get(key) ?? 0) + m.value);
  }
  return into;
}

describe("SpanRegistry", () => {
  it("tracks roots while open and forgets them when they end", () => {
    const registry = new SpanRegistry();
    const clock = new FakeClock();
    const a = new Span(["execute", "a"], { clock, registry }).start(0);
    const b = new Span(["execute", "b"], { clock });
    registry.track(b.start(0));
    expect(registry.roots()).toEqual([a, b]);
    a.end(1);
    expect(registry.roots()).toEqual([b]);
    expect(registry.size).toBe(1);
    expect(() => registry.track(b.child("c"))).toThrow(/only roots can be tracked/);
    expect(() => new Span("c", { parent: b, registry })).toThrow(/only roots join a registry/);
  });

  it("exports an open child's time up to now and only the remainder at the end", () => {
    const clock = new FakeClock();
    const registry = new SpanRegistry();
    const root = new Span(["execute", "inc"], { clock, registry }).start(0);
    const work = root.child("thread-cpu", { startTime: 1 });

    expect(totals(registry.scrape(3))).toEqual(
      new Map([
        ["execute/inc/other/seconds", 1],
        ["execute/inc/thread-cpu/seconds", 2],
      ]),
    );
    // Nothing grew: nothing to say.
    expect(registry.scrape(3)).toEqual([]);
    expect(totals(registry.scrape(4, { stimulusId: "scrape-2" }))).toEqual(new Map([["execute/inc/thread-cpu/seconds", 1]]));
    expect(registry.scrape(4.5)[0]!.stimulusId).toBe("scrape");

    work.end(5);
    work.addMetric("bytes", 64);
    root.setAttribute("outcome", "ok");
    root.end(6);
    expect(registry.size).toBe(0);

    const record = root.toRecord();
    const remainder = toDigestMetrics(record, { stimulusId: "done" });
    expect(totals(remainder)).toEqual(
      new Map([
        ["execute/inc/other/seconds", 1],
        ["execute/inc/thread-cpu/seconds", 0.5],
        ["execute/inc/thread-cpu/bytes", 64],
      ]),
    );
    expect(remainder.every((m) => m.outcome === "ok")).toBe(true);
  });

  it("counts a child's children up to now so the child's exclusive never shrinks", () => {
    const clock = new FakeClock();
    const registry = new SpanRegistry();
    const root = new Span("r", { clock, registry }).start(0);
    const child = root.child("c", { startTime: 0 });
    clock.set(2);
    const first = totals(registry.scrape());
    expect(first.get("r/c/seconds")).toBe(2);
    const grandchild = child.child("g", { startTime: 2 });
    const second = totals(registry.scrape(5));
    expect(second.get("r/c/g/seconds")).toBe(3);
    expect(second.has("r/c/seconds")).toBe(false);
    grandchild.end(5);
    child.end(6);
    root.end(6);
    expect(totals(toDigestMetrics(root, { stimulusId: "s" })).get("r/c/seconds")).toBe(1);
  });

  it("uses each root's clock when no time is given and skips unstarted roots", () => {
    const registry = new SpanRegistry();
    const clock = new FakeClock(10);
    new Span("r", { clock, registry }).start();
    registry.track(new Span("never"));
    clock.set(12);
    expect(totals(registry.scrape())).toEqual(new Map([["r/other/seconds", 2]]));
  });

  it("carries the outcome when the root already has one at the scrape", () => {
    const registry = new SpanRegistry();
    const root = new Span(["gather-dep"], { clock: new FakeClock(), registry, attributes: { outcome: "failed" } }).start(0);
    expect(registry.scrape(1)[0]!.outcome).toBe("failed");
    root.end(1);
  });

  it("gives the unscraped totals exactly, with no negative increment (property)", () => {
    fc.assert(
      fc.property(
        shapeArbitrary(),
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        fc.infiniteStream(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }))),
        (shape, origin, choices) => {
          const plain = buildTree(shape, origin);
          const expected = totals(toDigestMetrics(plain.toRecord(), { stimulusId: "s" }));

          const registry = new SpanRegistry();
          const increments: DigestMetric[] = [];
          const cumulative = new Map<string, number>();
          const choice = choices[Symbol.iterator]();
          const scraped = buildTree(shape, origin, {
            rootOptions: { registry },
            beforeAdvance(from, to) {
              const [scrape, fraction] = choice.next().value as [boolean, number];
              if (!scrape) return;
              const batch = registry.scrape(from + (to - from) * fraction);
              for (const m of batch) {
                expect(m.value).toBeGreaterThan(0);
                const key = m.name.join("/");
                const next = (cumulative.get(key) ?? 0) + m.value;
                expect(next).toBeGreaterThanOrEqual(cumulative.get(key) ?? 0);
                cumulative.set(key, next);
              }
              increments.push(...batch);
            },
          });
          const final = toDigestMetrics(scraped.toRecord(), { stimulusId: "s" });
          for (const m of final) expect(m.value).toBeGreaterThanOrEqual(0);
          // Same order as a consumer would add them: every scrape, then the final remainder.
          expect(totals([...increments, ...final])).toEqual(expected);
        },
      ),
      { seed: 7601, numRuns: 300 },
    );
  });
});
