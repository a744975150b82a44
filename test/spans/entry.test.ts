// The package entry loads state and spans, which import each other (state calls
// toDigestMetrics, spans builds DigestMetric): the cycle must not leave anything in its
// temporal dead zone.
import { describe, expect, it } from "vitest";
import * as spanwork from "../../src/index.js";

describe("package entry", () => {
  it("loads with spans and state usable together", () => {
    const root = new spanwork.Span(["execute", "inc"], { clock: { now: () => 0 } }).start(0).end(1);
    expect(spanwork.toDigestMetrics(root.toRecord(), { stimulusId: "s" })).toEqual([
      spanwork.DigestMetric({ name: ["execute", "inc", "other", "seconds"], value: 1, stimulusId: "s" }),
    ]);
  });
});
