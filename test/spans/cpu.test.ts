import { describe, expect, it } from "vitest";
import { processCpuClock, Span, SpanRegistry, toDigestMetrics, type DigestOptions } from "../../src/spans/index.js";
import type { DigestMetric } from "../../src/state/instructions.js";
import { FakeClock } from "./fake-clock.js";

function byName(metrics: readonly DigestMetric[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of metrics) out[m.name.join("/")] = (out[m.name.join("/")] ?? 0) + m.value;
  return out;
}

const digest: DigestOptions = { stimulusId: "s" };

describe("CPU split", () => {
  it("splits a span's exclusive wall time into thread-cpu and thread-noncpu", () => {
    const wall = new FakeClock();
    const cpu = new FakeClock();
    const root = new Span(["execute", "inc"], { clock: wall }).start(0);
    const body = root.child([], { cpu });
    wall.set(4);
    cpu.set(3);
    body.end();
    root.end(5);
    expect(body.cpuSeconds).toBe(3);
    expect(byName(toDigestMetrics(root, digest))).toEqual({
      "execute/inc/other/seconds": 1,
      "execute/inc/thread-cpu/seconds": 3,
      "execute/inc/thread-noncpu/seconds": 1,
    });
  });

  it("lets a user sub-span take out its own CPU and wall time (not CPU first, unlike dask)", () => {
    // dask reference §1.5: 10 s of user-metered I/O using 0.1 s CPU, then 5 s of pure CPU.
    // dask reports I/O=10, thread-cpu=0, thread-noncpu=5; the true split is cpu 5, noncpu 0.
    const wall = new FakeClock();
    const cpu = new FakeClock();
    const root = new Span(["execute", "inc"], { clock: wall }).start(0);
    const body = root.child([], { cpu });
    const io = body.child("I/O");
    expect(io.cpuClock).toBe(cpu);
    expect(io.cpuSplit).toBe(false);
    wall.set(10);
    cpu.set(0.125);
    io.end();
    wall.set(15);
    cpu.set(5.125);
    body.end();
    root.end(15.5);
    expect(byName(toDigestMetrics(root.toRecord(), digest))).toEqual({
      "execute/inc/other/seconds": 0.5,
      "execute/inc/thread-cpu/seconds": 5,
      "execute/inc/thread-noncpu/seconds": 0,
      "execute/inc/I/O/seconds": 10,
    });
    expect(root.toRecord().children[0]!.children[0]!.cpuSeconds).toBe(0.125);
  });

  it("names the split under the span's own path when the span is named", () => {
    const wall = new FakeClock();
    const cpu = new FakeClock();
    const root = new Span(["p2p"], { clock: wall }).start(0);
    const part = root.child("shard-partition", { cpu });
    wall.set(2);
    cpu.set(0.5);
    part.end();
    root.end(2);
    expect(root.flat()).toEqual([
      { path: ["p2p"], unit: "seconds", value: 0 },
      { path: ["p2p", "shard-partition", "thread-cpu"], unit: "seconds", value: 0.5 },
      { path: ["p2p", "shard-partition", "thread-noncpu"], unit: "seconds", value: 1.5 },
    ]);
  });

  it("clamps CPU into [0, exclusive wall] so the wall time stays exact", () => {
    const wall = new FakeClock();
    const cpu = new FakeClock();
    const root = new Span("r", { clock: wall, cpu }).start(0);
    wall.set(1);
    cpu.set(3); // a process-wide clock counting other threads can run faster than wall time
    root.end();
    expect(root.flat()).toEqual([
      { path: ["r", "thread-cpu"], unit: "seconds", value: 1 },
      { path: ["r", "thread-noncpu"], unit: "seconds", value: 0 },
    ]);
  });

  it("keeps scraped cpu/noncpu series monotone when CPU outruns wall time", () => {
    const wall = new FakeClock();
    const cpu = new FakeClock();
    const registry = new SpanRegistry();
    const root = new Span("r", { clock: wall, registry }).start(0);
    const body = root.child([], { cpu });
    wall.set(1); // idle second: all noncpu
    const scraped = registry.scrape();
    expect(byName(scraped)).toEqual({ "r/thread-noncpu/seconds": 1 });
    wall.set(2);
    cpu.set(3);
    body.end();
    root.end();
    const final = toDigestMetrics(root, digest);
    for (const m of final) expect(m.value).toBeGreaterThanOrEqual(0);
    const total = byName([...scraped, ...final]);
    expect(total["r/thread-cpu/seconds"]! + total["r/thread-noncpu/seconds"]!).toBe(2);
    expect(total["r/thread-noncpu/seconds"]).toBe(1);
  });

  it("measures real CPU with the process clock", () => {
    const root = new Span("busy", { cpu: true }).start();
    let x = 0;
    for (let i = 0; i < 1e5; i += 1) x += Math.sqrt(i);
    root.end();
    expect(x).toBeGreaterThan(0);
    expect(root.cpuClock).toBe(processCpuClock);
    expect(root.cpuSeconds).toBeGreaterThanOrEqual(0);
    const [cpuEntry, noncpuEntry] = root.flat();
    expect(cpuEntry!.value + noncpuEntry!.value).toBe(root.duration);
  });
});
