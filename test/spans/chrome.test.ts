import { describe, expect, it } from "vitest";
import { Span, toChromeTrace, type SpanRecord } from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";
import { checkTrace } from "./trace-format.js";

/** A finished root `name` from `start` to `end` with one child covering it. */
function root(name: string[], start: number, end: number, attributes: Record<string, string | number> = {}): SpanRecord {
  const clock = new FakeClock(start);
  const span = new Span(name, { clock, attributes }).start();
  span.child("network", { startTime: start }).end(end);
  span.end(end);
  return span.toRecord();
}

const json = (value: unknown): string => JSON.stringify(value);

describe("toChromeTrace tracks", () => {
  it("gives each thread slot its own track and each family of other roots its own lanes", () => {
    const records = [
      root(["execute", "inc"], 0, 2, { worker: "w", thread: 0 }),
      root(["execute", "inc"], 0, 1, { worker: "w", thread: 1 }),
      root(["gather-dep"], 0, 1, { worker: "w" }),
      root(["gather-dep"], 0.5, 1.5, { worker: "w" }),
      root(["get-data"], 0.2, 0.4, { worker: "w" }),
      root(["gather-dep"], 1.2, 2, { worker: "w" }),
    ];
    const trace = toChromeTrace(records);
    const tidOf = (name: string, ts: number): number => trace.traceEvents.find((e) => e.ph === "X" && e.name === name && e.ts === ts)!.tid;
    expect([tidOf("execute/inc", 0), tidOf("gather-dep", 0), tidOf("gather-dep", 500_000), tidOf("get-data", 200_000), tidOf("gather-dep", 1_200_000)]).toEqual([0, 1000, 1001, 2000, 1000]);
    const summary = checkTrace(json(trace));
    expect(summary.problems).toEqual([]);
    expect(summary.threads.get(1)).toEqual(["thread 0", "thread 1", "gather-dep lane 0", "get-data lane 0", "gather-dep lane 1"]);
  });
});

describe("toChromeTrace counters", () => {
  it("emits counter samples per process and name in time order, without non-finite values", () => {
    const trace = toChromeTrace([root(["execute", "a"], 0, 1, { worker: "w" })], {
      epochOffset: 1,
      counters: [
        { pid: 1, name: "memory", time: 2, values: { used: 20 } },
        { pid: 1, name: "memory", time: 0.5, values: { used: 5, spilled: Number.NaN } },
        { pid: 2, name: "memory", time: 0, values: { used: 1 } },
        { pid: 1, name: "memory", time: Number.NaN, values: { used: 1 } },
        { pid: 1, name: "memory", time: 3, values: { used: Number.POSITIVE_INFINITY } },
      ],
    });
    const counters = trace.traceEvents.filter((e) => e.ph === "C");
    expect(counters).toEqual([
      { name: "memory", ph: "C", ts: 1_500_000, pid: 1, tid: 0, args: { used: 5 } },
      { name: "memory", ph: "C", ts: 3_000_000, pid: 1, tid: 0, args: { used: 20 } },
      { name: "memory", ph: "C", ts: 1_000_000, pid: 2, tid: 0, args: { used: 1 } },
    ]);
    const summary = checkTrace(json(trace));
    expect(summary.problems).toEqual([]);
    expect(summary.counters).toEqual(new Map([["1/memory", 2], ["2/memory", 1]]));
  });
});

describe("toChromeTrace flows", () => {
  it("binds each flow to its slices by one id: out on the first, in on the last, both on a step", () => {
    const a = root(["execute", "a"], 0, 1, { worker: "p" });
    const b = root(["get-data"], 1, 2, { worker: "p" });
    const c = root(["gather-dep"], 0.9, 2.1, { worker: "q" });
    const d = root(["execute", "d"], 2.2, 3, { worker: "q" });
    const trace = toChromeTrace([a, b, c, d], { flows: [{ records: [a, b, c] }, { records: [c.children[0]!, d] }] });
    const bound = trace.traceEvents.filter((e) => e.bind_id !== undefined).map((e) => [e.name, e.bind_id, e.flow_out ?? false, e.flow_in ?? false]);
    expect(bound).toEqual([
      ["execute/a", 1, true, false],
      ["gather-dep", 1, false, true],
      ["network", 2, true, false],
      ["get-data", 1, true, true],
      ["execute/d", 2, false, true],
    ]);
    const summary = checkTrace(json(trace));
    expect(summary.problems).toEqual([]);
    expect(summary.flows.get(1)).toMatchObject({ from: { pid: 1, ts: 0 }, to: { pid: 2, ts: 900_000 }, steps: 1 });
  });

  it("leaves out flows through a record that is not in the trace, and refuses a record in two flows", () => {
    const a = root(["execute", "a"], 0, 1, { worker: "p" });
    const b = root(["execute", "b"], 1, 2, { worker: "p" });
    const elsewhere = root(["execute", "c"], 0, 1, { worker: "p" });
    const trace = toChromeTrace([a, b], { flows: [{ records: [a, elsewhere] }] });
    expect(trace.traceEvents.some((e) => e.bind_id !== undefined)).toBe(false);
    expect(() => toChromeTrace([a, b], { flows: [{ records: [a, b] }, { records: [b, a] }] })).toThrow(/in two flows/);
    expect(() => toChromeTrace([a], { flows: [{ records: [a] }] })).toThrow(/at least two records/);
  });
});

describe("checkTrace (the test's reader)", () => {
  it("reports what a viewer would trip over", () => {
    const broken = {
      traceEvents: [
        { name: "a", ph: "X", ts: 0, dur: 10, pid: 1, tid: 1, bind_id: 1, flow_out: true },
        { name: "b", ph: "X", ts: 5, dur: 10, pid: 1, tid: 1 },
        { name: "c", ph: "X", ts: 20, pid: 1, tid: 1 },
        { name: "m", ph: "C", ts: 5, pid: 1, tid: 0, args: { used: 1 } },
        { name: "m", ph: "C", ts: 4, pid: 1, tid: 0, args: { used: null } },
        { name: "thread_name", ph: "M", pid: 1, tid: 1, args: {} },
        { name: "i", ph: "i", ts: 1, pid: 1, tid: 1, bind_id: 2, flow_in: true },
      ],
    };
    expect(checkTrace(json(broken)).problems).toEqual([
      "event 2 (c): X needs ts and dur ≥ 0",
      "event 4 (m): counter used is not a finite number",
      "event 4 (m): counter 1/m goes back in time (4 after 5)",
      "event 5 (thread_name): thread_name without args.name",
      "event 6 (i): bind_id on a i event",
      "event 6 (i): unexpected phase i",
      "thread 1:1: event 1 overlaps event 0 without nesting",
      "flow 1: 1 start and 0 end slices (one of each expected)",
    ]);
  });
});
