// A task thread that must take its worker's GIL back while a copy that does not let go holds it
// (docs/sim.md, "Task threads wait for the lock"): it gets it when the copy ends, or once it has
// waited the switch interval and the value being copied is done, whichever is first. Every
// figure by hand; the property checks the rule's bounds over random holds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CopyHolds } from "../../src/sim/copy-holds.js";
import { GraphBuilder, NO_OVERHEADS, simulate, SpecError, validateSpec, resolveCluster, type SimReport, type Workload } from "../../src/sim/index.js";
import { SimulatedExecutor } from "../../src/sim/simulated-executor.js";
import { Span } from "../../src/spans/index.js";
import { VirtualClock } from "../../src/worker/index.js";

/** One hold from `start` to `end` of values of `sizes` bytes, booked at 0. */
function holdOf(holds: CopyHolds, start: number, end: number, sizes: readonly number[]): void {
  holds.open(0, start, end, sizes.reduce((a, b) => a + b, 0));
  for (const size of sizes) holds.value(size);
}

describe("the lock held by a copy", () => {
  it("a waiter gets it at the end of the value being copied once it has waited the switch interval, or at the copy's end", () => {
    const holds = new CopyHolds(0.1);
    // 1 to 2 s, four values of 0.25 s: their joins end at 1.25, 1.5, 1.75, 2
    holdOf(holds, 1, 2, [1, 1, 1, 1]);
    expect(holds.wait(0.5)).toBe(0);
    // asks at 1.1: waited the interval at 1.2, inside the first value, which ends at 1.25
    expect(holds.wait(1.1)).toBeCloseTo(0.15, 12);
    // at 1.45: the interval ends at 1.55, in the third value (1.5-1.75)
    expect(holds.wait(1.45)).toBeCloseTo(0.3, 12);
    // at 1.95: the copy ends first
    expect(holds.wait(1.95)).toBeCloseTo(0.05, 12);
    expect(holds.wait(2)).toBe(0);
  });

  it("values of other sizes end where their bytes do; holds queued after each other are apart", () => {
    const holds = new CopyHolds(0.05);
    // 0 to 1 s: 10 bytes then 30 (0.25, 1); then 1 to 3 s, one value
    holdOf(holds, 0, 1, [10, 30]);
    holdOf(holds, 1, 3, [5]);
    expect(holds.wait(0.1)).toBeCloseTo(0.15, 12);
    expect(holds.wait(0.3)).toBeCloseTo(0.7, 12);
    // the first copy ends at 1: a waiter from 0.99 gets the lock then, not at the second's end
    expect(holds.wait(0.99)).toBeCloseTo(0.01, 12);
    expect(holds.wait(1.5)).toBeCloseTo(1.5, 12);
  });

  it("many holds: the queue keeps its order as it grows and moves (no hold lost)", () => {
    const holds = new CopyHolds(0.001);
    for (let round = 0; round < 50; round++) {
      const at = round * 10;
      for (let i = 0; i < 20; i++) {
        holds.open(at, at + i * 0.1, at + i * 0.1 + 0.05, 100);
        for (let v = 0; v < 5; v++) holds.value(20);
      }
      // inside hold 7's second value (0.01 s each from 0.7): 0.7125 + 0.001 → its end 0.72
      expect(holds.wait(at + 0.7125)).toBeCloseTo(0.0075, 9);
      expect(holds.wait(at + 0.76)).toBe(0);
    }
  });

  it("rule's bounds over random holds: never before the unblocked end, never past the copy's end or the interval plus one value (property)", () => {
    const hold = fc.record({
      gap: fc.double({ min: 0, max: 0.05, noNaN: true }),
      sizes: fc.array(fc.integer({ min: 1, max: 10_000_000 }), { minLength: 1, maxLength: 12 }),
      perByte: fc.double({ min: 1e-10, max: 2e-9, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.double({ min: 0.0001, max: 0.02, noNaN: true }), fc.array(hold, { minLength: 1, maxLength: 8 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }), (interval, spec, asks) => {
        const holds = new CopyHolds(interval);
        const booked: Array<{ start: number; end: number; longest: number }> = [];
        let at = 0;
        for (const { gap, sizes, perByte } of spec) {
          const start = at + gap;
          const bytes = sizes.reduce((a, b) => a + b, 0);
          const end = start + bytes * perByte;
          holds.open(0, start, end, bytes);
          for (const size of sizes) holds.value(size);
          booked.push({ start, end, longest: Math.max(...sizes) * perByte });
          at = end;
        }
        for (const t of [...asks].map((x) => x * at).sort((a, b) => a - b)) {
          const wait = holds.wait(t);
          const inside = booked.find((h) => h.start <= t && t < h.end);
          if (inside === undefined) {
            expect(wait).toBe(0);
            continue;
          }
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(t + wait).toBeLessThanOrEqual(inside.end + 1e-12);
          // it waited the interval, or the copy ended first
          expect(t + wait).toBeGreaterThanOrEqual(Math.min(inside.end, t + interval) - 1e-12);
          expect(wait).toBeLessThanOrEqual(interval + inside.longest + 1e-12);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});

describe("a task thread waking while its worker deserialises", () => {
  async function sleepEnd(sleep: number, holds: CopyHolds | undefined, parts: Record<string, number> = { "thread-noncpu": sleep }): Promise<{ end: number; children: Record<string, number> }> {
    const clock = new VirtualClock({ settle: "microtasks" });
    const executor = new SimulatedExecutor(undefined, undefined, holds === undefined ? undefined : () => holds.wait(clock.now()));
    const span = new Span(["execute", "t"], { clock }).start(0);
    let end = -1;
    void executor
      .execute({ key: "t-0", runSpec: { durations: parts, outputBytes: 0 } } as Parameters<SimulatedExecutor["execute"]>[0], { span, clock, signal: new AbortController().signal })
      .then(() => (end = clock.now()));
    await clock.runUntilIdle();
    const children: Record<string, number> = {};
    for (const c of span.end().toRecord().children) children[c.name.join("/")] = (children[c.name.join("/")] ?? 0) + (c.endTime ?? 0) - c.startTime;
    return { end, children };
  }

  it("a sleep ending mid-copy ends at min(copy end, wake + interval + the rest of that value), in its own thread-noncpu span", async () => {
    const holds = new CopyHolds(0.005);
    // 0.9 to 1.1 s, ten values of 0.02 s: the sleep ends at 1, waits to 1.005, inside the value that ends at 1.02
    holdOf(holds, 0.9, 1.1, new Array<number>(10).fill(1));
    const late = await sleepEnd(1, holds);
    expect(late.end).toBeCloseTo(1.02, 12);
    expect(late.children).toEqual({ "thread-noncpu": expect.closeTo(1.02, 12) as unknown as number });
    // without the holds (switchInterval 0: no waker) it ends at its own length
    expect((await sleepEnd(1, undefined)).end).toBe(1);
  });

  it("a releasing CPU part that ends mid-copy takes the lock back after it, as thread-noncpu; a build's wait comes off its sleep", async () => {
    const holds = new CopyHolds(0.005);
    holdOf(holds, 0.45, 0.6, [1]);
    const cpu = await sleepEnd(0, holds, { "thread-cpu": 0.5, "thread-noncpu": 0.5 });
    // CPU to 0.5, the lock at 0.6 (one value: the copy's end), then the sleep: 1.1
    expect(cpu.end).toBeCloseTo(1.1, 12);
    expect(cpu.children["thread-cpu"]).toBeCloseTo(0.5, 12);
    expect(cpu.children["thread-noncpu"]).toBeCloseTo(0.6, 12);
  });

  it("no task ends before its unblocked end, each part is late by at most the interval plus one value, and one that ends outside every hold is not late (property)", async () => {
    const part = fc.record({ cpu: fc.boolean(), seconds: fc.double({ min: 0.001, max: 0.2, noNaN: true }) });
    const hold = fc.record({ gap: fc.double({ min: 0, max: 0.1, noNaN: true }), values: fc.integer({ min: 1, max: 8 }), length: fc.double({ min: 0.001, max: 0.1, noNaN: true }) });
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 3 }), fc.array(hold, { maxLength: 6 }), async (parts, spec) => {
        const interval = 0.005;
        const holds = new CopyHolds(interval);
        const booked: Array<{ start: number; end: number }> = [];
        let at = 0;
        let longest = 0;
        for (const { gap, values, length } of spec) {
          holdOf(holds, at + gap, at + gap + length, new Array<number>(values).fill(1));
          booked.push({ start: at + gap, end: at + gap + length });
          longest = Math.max(longest, length / values);
          at += gap + length;
        }
        // distinct activity names: a task model's parts are its durations' keys
        const durations: Record<string, number> = {};
        parts.forEach((p, i) => (durations[p.cpu && i === 0 ? "thread-cpu" : `noncpu-${i}`] = p.seconds));
        const nominal = parts.reduce((sum, p) => sum + p.seconds, 0);
        const { end } = await sleepEnd(0, holds, durations);
        expect(end).toBeGreaterThanOrEqual(nominal - 1e-12);
        expect(end - nominal).toBeLessThanOrEqual(parts.length * (interval + longest) + 1e-9);
        // the first part's end is where it stands alone: outside every hold, no wait there
        const first = parts[0]!.seconds;
        if (parts.length === 1 && !booked.some((h) => h.start <= first && first < h.end)) expect(end).toBe(nominal);
      }),
      { numRuns: 150, seed: 11 },
    );
  });

  it("in a run: the receiver's task whose sleep ends during the deserialisation is late; with switchInterval false it is not", async () => {
    // a (50 MB) and b (60 MB) on their own workers; j fetches a to b's worker: 50 ms of deserialising
    // from 1 s (1 GB/s: the wire takes nothing of it). s sleeps 1.02 s beside b, on b's worker.
    const workload = (): Workload => {
      const builder = new GraphBuilder();
      const a = builder.addTask({ key: "a", prefix: "a", duration: 1, nbytes: 50e6 });
      const b = builder.addTask({ key: "b", prefix: "b", duration: 1, nbytes: 60e6 });
      builder.addTask({ key: "s-0", prefix: "s", duration: 1.02, nbytes: 1 });
      builder.addTask({ key: "s-1", prefix: "s", duration: 1.02, nbytes: 1 });
      const j = builder.addTask({ key: "j", prefix: "j", duration: 0.1, nbytes: 1 });
      builder.addDependency(j, a);
      builder.addDependency(j, b);
      return { name: "wake", description: "", graph: builder.build("wake"), faults: [], cluster: {} };
    };
    const run = async (switchInterval: number | false): Promise<SimReport> => {
      const cluster = { overheads: { ...NO_OVERHEADS, switchInterval: switchInterval === false ? 0 : switchInterval }, loopBandwidth: false as const, deserializeBandwidth: 1e9 };
      return (await simulate(workload(), { workers: 2, threads: 2, network: "max-min", latency: 0, bandwidth: 1e9, cluster, collectSpans: false })).report;
    };
    const late = await run(0.005);
    const transfer = late.transfers.find((t) => t.outcome === "ok")!;
    expect(transfer.bytes).toBe(50e6);
    expect(transfer.end).toBeCloseTo(1.05, 9);
    const receiver = late.taskRecords.filter((t) => t.prefix === "s" && t.worker === transfer.to);
    expect(receiver).toHaveLength(1);
    // its sleep ends at 1.02, asks at 1.025: one value, so the copy's end, 1.05
    expect(receiver[0]!.end).toBeCloseTo(1.05, 9);
    const other = late.taskRecords.find((t) => t.prefix === "s" && t.worker !== transfer.to)!;
    expect(other.end).toBeCloseTo(1.02, 9);
    const off = await run(false);
    for (const t of off.taskRecords.filter((r) => r.prefix === "s")) expect(t.end).toBeCloseTo(1.02, 9);
    // the thread's wait is task time: busy seconds grow by it
    const busy = (report: SimReport) => report.perWorker.reduce((sum, w) => sum + w.busySeconds, 0);
    expect(busy(late) - busy(off)).toBeCloseTo(0.03, 9);
  });

  it("switchInterval is validated with its path; false turns it off", () => {
    const bad = { tasks: [{ prefix: "a" }], cluster: { overheads: { switchInterval: -1 } } };
    expect(() => validateSpec(bad)).toThrow(SpecError);
    expect(() => validateSpec(bad)).toThrow(/cluster\.overheads\.switchInterval: expected a number ≥ 0/);
    expect(() => validateSpec({ ...bad, cluster: { overheads: { switchInterval: "5ms" } } })).toThrow(/cluster\.overheads\.switchInterval: expected seconds \(a number ≥ 0\) or false/);
    const address = (worker: number) => `tcp://10.0.0.${worker}:8786`;
    const off = validateSpec({ ...bad, cluster: { overheads: { switchInterval: false } } });
    expect(resolveCluster(off.cluster ?? {}, undefined, {}, address).overheads.switchInterval).toBe(0);
    expect(resolveCluster({}, undefined, {}, address).overheads.switchInterval).toBe(0.005);
    expect(NO_OVERHEADS.switchInterval).toBe(0);
  });
});
