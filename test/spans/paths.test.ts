// Runs in its own file: it fills the module-level path trie to its bound.
import { describe, expect, it } from "vitest";
import { Span, toDigestMetrics } from "../../src/spans/index.js";
import { DigestMetric } from "../../src/state/instructions.js";
import { FakeClock } from "./fake-clock.js";

describe("interned paths", () => {
  it("hands out the same frozen DigestMetric names for recurring paths", () => {
    const make = (): DigestMetric[] => {
      const root = new Span(["execute", "inc"], { clock: new FakeClock() }).start(0);
      root.child("thread-cpu", { startTime: 0 }).end(1);
      root.end(2);
      return toDigestMetrics(root.toRecord(), { stimulusId: "s" });
    };
    const [a, b] = [make(), make()];
    expect(a[1]!.name).toBe(b[1]!.name);
    expect(Object.isFrozen(a[1]!.name)).toBe(true);
  });

  it("still merges equal paths once the trie is full", () => {
    const clock = new FakeClock();
    const filler = new Span("filler", { clock }).start(0);
    for (let i = 0; i < 21_000; i += 1) filler.child(`n${i}`, { startTime: 0 }).end(0);
    filler.end(1);
    expect(filler.flat()).toHaveLength(21_001);

    const root = new Span(["never", "seen"], { clock }).start(0);
    root.child("io", { startTime: 0 }).addMetric("bytes", 1).end(1);
    root.child("io", { startTime: 1 }).addMetric("bytes", 2).end(3);
    root.end(4);
    expect(toDigestMetrics(root, { stimulusId: "s" })).toEqual([
      DigestMetric({ name: ["never", "seen", "other", "seconds"], value: 1, stimulusId: "s" }),
      DigestMetric({ name: ["never", "seen", "io", "seconds"], value: 3, stimulusId: "s" }),
      DigestMetric({ name: ["never", "seen", "io", "bytes"], value: 3, stimulusId: "s" }),
    ]);
  });
});
