import { describe, expect, it } from "vitest";
import { activityStacks, fineMetricBreakdown } from "../../src/cli/fine-metrics.js";
import { sampleMetrics } from "./fixtures.js";

describe("fineMetricBreakdown", () => {
  const breakdown = fineMetricBreakdown(sampleMetrics());

  it("makes one row per context, prefix, activity and outcome with its seconds, bytes and count", () => {
    expect(breakdown.rows.find((row) => row.context === "execute" && row.prefix === "inc" && row.activity === "disk-write")).toEqual({
      context: "execute",
      prefix: "inc",
      activity: "disk-write",
      outcome: "ok",
      seconds: 0.8,
      bytes: 64 * 2 ** 20,
      count: 16,
    });
    expect(breakdown.rows.find((row) => row.context === "get-data")).toMatchObject({ prefix: "", activity: "network", outcome: "", seconds: 1.5 });
  });

  it("sorts rows by seconds, largest first, then by bytes", () => {
    const seconds = breakdown.rows.map((row) => row.seconds);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
    expect(breakdown.rows[0]).toMatchObject({ context: "execute", prefix: "inc", activity: "thread-cpu" });
    expect(breakdown.rows.at(-1)).toMatchObject({ activity: "memory-read", seconds: 0 });
  });

  it("leaves out the unqualified copies of aggregate metrics so nothing counts twice", () => {
    const diskWriteBytes = breakdown.rows.filter((row) => row.activity === "disk-write").reduce((sum, row) => sum + row.bytes, 0);
    expect(diskWriteBytes).toBe(64 * 2 ** 20);
  });

  it("totals seconds overall and per context", () => {
    expect(breakdown.totalSeconds).toBeCloseTo(23.35, 10);
    expect(breakdown.secondsByContext.map((entry) => entry.context)).toEqual(["execute", "gather-dep", "get-data"]);
  });

  it("keeps outcomes apart and keeps units it does not tabulate", () => {
    const result = fineMetricBreakdown([
      { name: ["execute", "x", "other", "seconds"], value: 1, outcome: "ok" },
      { name: ["execute", "x", "other", "seconds"], value: 2, outcome: "cancelled" },
      { name: ["execute", "x", "other", "seconds"], value: 3, outcome: "ok" },
      { name: ["execute", "x", "user-io", "widgets"], value: 7 },
    ]);
    expect(result.rows.map((row) => [row.outcome, row.seconds])).toEqual([
      ["ok", 4],
      ["cancelled", 2],
    ]);
    expect(result.otherUnits).toEqual([{ name: ["execute", "x", "user-io", "widgets"], value: 7 }]);
  });

  it("joins several qualifiers with a slash", () => {
    const result = fineMetricBreakdown([{ name: ["p2p", "span-1", "foreground", "disk-write", "seconds"], value: 1 }]);
    expect(result.rows[0]).toMatchObject({ context: "p2p", prefix: "span-1/foreground", activity: "disk-write" });
  });
});

describe("activityStacks", () => {
  it("stacks activities per context and prefix in the canonical order, biggest stack first", () => {
    const stacks = activityStacks(fineMetricBreakdown(sampleMetrics()).rows, "seconds");
    expect(stacks.map((stack) => stack.label)).toEqual(["execute · inc", "execute · sum", "gather-dep · inc", "get-data"]);
    expect(stacks[0]!.segments.map((segment) => segment.activity)).toEqual(["thread-cpu", "thread-noncpu", "disk-write", "other"]);
    expect(stacks[0]!.total).toBeCloseTo(14.75, 10);
  });
  it("leaves out stacks with nothing in the unit", () => {
    const stacks = activityStacks(fineMetricBreakdown(sampleMetrics()).rows, "bytes");
    expect(stacks.map((stack) => stack.label)).toEqual(["execute · inc", "gather-dep · inc", "get-data", "execute · sum"]);
  });
});
