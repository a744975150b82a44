// Attribute names and metric units are data: `__proto__`, `constructor`, `toString` are
// ordinary keys of a span's attributes and metrics, in the live span, in its record and in
// everything flattened from it.
import { describe, expect, it } from "vitest";
import { Span, flat, toDigestMetrics } from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";

const PROTOTYPE_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"] as const;

function own(record: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? (record as Record<string, unknown>)[key] : "(not an own key)";
}

describe("prototype-named attribute keys and metric units", () => {
  it("setAttribute keeps __proto__ and friends as own attributes, live and in the record", () => {
    const span = new Span("work", { clock: new FakeClock() }).start();
    for (const name of PROTOTYPE_NAMES) span.setAttribute(name, `value of ${name}`);
    span.end();
    const record = span.toRecord();
    for (const name of PROTOTYPE_NAMES) {
      expect(own(span.attributes, name)).toBe(`value of ${name}`);
      expect(own(record.attributes, name)).toBe(`value of ${name}`);
    }
    expect(Object.keys(record.attributes).sort()).toEqual([...PROTOTYPE_NAMES].sort());
  });

  it("setAttributes and the constructor's attributes keep them too (copy-on-write included)", () => {
    const given = JSON.parse('{"__proto__": "a", "constructor": "b"}') as Record<string, string>;
    const span = new Span("work", { clock: new FakeClock(), attributes: given }).start();
    expect(own(span.attributes, "__proto__")).toBe("a");
    span.end();
    const first = span.toRecord();
    // after the record shared the attributes, the next change copies them
    span.setAttributes(JSON.parse('{"__proto__": "c", "toString": "d"}') as Record<string, string>);
    expect(own(first.attributes, "__proto__")).toBe("a");
    expect(own(span.attributes, "__proto__")).toBe("c");
    expect(own(span.attributes, "constructor")).toBe("b");
    expect(own(span.attributes, "toString")).toBe("d");
  });

  it("an absent prototype-named attribute reads as undefined", () => {
    const span = new Span("work", { clock: new FakeClock() }).start().end();
    expect(span.attributes["constructor"]).toBeUndefined();
    expect(span.toRecord().attributes["toString"]).toBeUndefined();
    span.setAttribute("outcome", "ok");
    expect(span.attributes["constructor"]).toBeUndefined();
  });

  it("addMetric sums prototype-named units like any other", () => {
    const clock = new FakeClock();
    const root = new Span(["execute", "inc"], { clock }).start();
    for (const unit of PROTOTYPE_NAMES) root.addMetric(unit, 1).addMetric(unit, 2);
    clock.advance(1);
    root.end();
    for (const unit of PROTOTYPE_NAMES) {
      expect(own(root.metrics, unit)).toBe(3);
      expect(own(root.toRecord().metrics, unit)).toBe(3);
    }
    const flattened = flat(root).filter((entry) => entry.unit !== "seconds");
    expect(flattened.map((entry) => [entry.unit, entry.value]).sort()).toEqual(PROTOTYPE_NAMES.map((unit) => [unit, 3]).sort());
    const digested = toDigestMetrics(root.toRecord(), { stimulusId: "s" }).filter((metric) => metric.name.at(-1) !== "seconds");
    expect(digested.map((metric) => [metric.name.join("/"), metric.value]).sort()).toEqual(PROTOTYPE_NAMES.map((unit) => [`execute/inc/${unit}`, 3]).sort());
  });
});
