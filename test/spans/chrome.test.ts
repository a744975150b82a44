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
  const flowEvents = (trace: ReturnType<typeof toChromeTrace>) =>
    trace.traceEvents.flatMap((e, index) => (e.ph === "s" || e.ph === "t" || e.ph === "f" ? [[trace.traceEvents[index - 1]?.ph, e.name, e.ph, e.id, e.ts, e.bp]] : []));

  it("puts each flow's events right after its slices: start on the first, step between, finish on the last", () => {
    const a = root(["execute", "a"], 0, 1, { worker: "p" });
    const b = root(["get-data"], 1, 2, { worker: "p" });
    const c = root(["gather-dep"], 0.9, 2.1, { worker: "q" });
    const d = root(["execute", "d"], 2.2, 3, { worker: "q" });
    const trace = toChromeTrace([a, b, c, d], { flows: [{ records: [a, b, c], name: "x-1" }, { records: [c.children[0]!, d] }] });
    expect(flowEvents(trace)).toEqual([
      ["X", "x-1", "s", 1, 0, undefined],
      ["X", "x-1", "f", 1, 900_000, "e"],
      ["X", "flow", "s", 2, 900_000, undefined],
      ["X", "x-1", "t", 1, 1_000_000, undefined],
      ["X", "flow", "f", 2, 2_200_000, "e"],
    ]);
    const summary = checkTrace(json(trace));
    expect(summary.problems).toEqual([]);
    const slice = (index: number) => trace.traceEvents[index]!.name;
    const one = summary.flows.get(1)!;
    expect([slice(one.from.index), slice(one.to.index), one.steps]).toEqual(["execute/a", "gather-dep", 1]);
    const two = summary.flows.get(2)!;
    expect([slice(two.from.index), slice(two.to.index)]).toEqual(["network", "execute/d"]);
  });

  it("lets one slice carry several flows (one producer, several consumers; one consumer, several producers)", () => {
    const producer = root(["execute", "p"], 0, 1, { worker: "p" });
    const other = root(["execute", "o"], 0, 1, { worker: "q" });
    const consumers = [root(["execute", "c"], 1, 2, { worker: "p" }), root(["execute", "c"], 2, 3, { worker: "p" })];
    const flows = [...consumers.map((consumer) => ({ records: [producer, consumer] })), { records: [other, consumers[0]!] }];
    const trace = toChromeTrace([producer, other, ...consumers], { flows });
    const summary = checkTrace(json(trace));
    expect(summary.problems).toEqual([]);
    expect(summary.flows.size).toBe(3);
    const ends = [...summary.flows.values()].map((flow) => [trace.traceEvents[flow.from.index]!.ts, trace.traceEvents[flow.to.index]!.ts]);
    expect(ends).toEqual([[0, 1_000_000], [0, 2_000_000], [0, 1_000_000]]);
    expect(new Set([...summary.flows.values()].map((flow) => flow.from.pid))).toEqual(new Set([1, 2]));
  });

  it("leaves out flows through a record that is not in the trace; a flow needs two records", () => {
    const a = root(["execute", "a"], 0, 1, { worker: "p" });
    const b = root(["execute", "b"], 1, 2, { worker: "p" });
    const elsewhere = root(["execute", "c"], 0, 1, { worker: "p" });
    const trace = toChromeTrace([a, b], { flows: [{ records: [a, elsewhere] }, { records: [a, b] }] });
    expect(flowEvents(trace).map(([, , ph, id]) => [ph, id])).toEqual([["s", 1], ["f", 1]]);
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
        { name: "x", ph: "f", ts: 1, pid: 9, tid: 9, id: 3 },
        { name: "x", ph: "s", pid: 1, tid: 1, id: "4" },
        { name: "y", cat: "flow", ph: "s", ts: 0, pid: 1, tid: 1, id: 5 },
        { name: "y", cat: "other", ph: "f", ts: 0, pid: 1, tid: 1, id: 5, bp: "e" },
      ],
    };
    expect(checkTrace(json(broken)).problems).toEqual([
      "event 2 (c): X needs ts and dur ≥ 0",
      "event 4 (m): counter used is not a finite number",
      "event 4 (m): counter 1/m goes back in time (4 after 5)",
      "event 5 (thread_name): thread_name without args.name",
      "event 6 (i): bind_id on a i event",
      "event 6 (i): unexpected phase i",
      'event 7 (x): a flow finish should bind to its enclosing slice (bp "e")',
      "event 8 (x): flow event needs ts ≥ 0",
      "event 8 (x): flow event needs an integer id",
      'event 10 (y): flow 5 has category and name ["other","y"], not ["flow","y"] like its other events',
      "thread 1:1: event 1 overlaps event 0 without nesting",
      "event 7 (flow 3): no slice on thread 9:9 to bind to",
      "flow 1: 1 start and 0 end slices (one of each expected)",
    ]);
  });
});
