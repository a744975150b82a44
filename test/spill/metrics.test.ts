import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Span, flat, toDigestMetrics } from "../../src/spans/index.js";
import { SPILL_ACTIVITIES, SpillBuffer } from "../../src/spill/index.js";
import { Bad, MemoryStore, RecordingLogger, osError, pySizeof, textSerializer } from "./helpers.js";

/** A clock that moves 1/1024 s every time it is read (exact in binary, so sums are exact). */
class TickingClock {
  t = 0;
  now(): number {
    this.t += 1 / 1024;
    return this.t;
  }
}

/** The unqualified `[activity]` entries of a flattened tree, keyed "activity/unit". */
function aggregated(root: Span): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of flat(root)) {
    if (entry.path.length === 1 && (SPILL_ACTIVITIES as readonly string[]).includes(entry.path[0]!)) {
      const key = `${entry.path[0]}/${entry.unit}`;
      out.set(key, (out.get(key) ?? 0) + entry.value);
    }
  }
  return out;
}

function nonZero(map: Map<string, number>): Map<string, number> {
  return new Map([...map].filter(([, v]) => v !== 0));
}

describe("spill metrics", () => {
  it("port of dask test_metrics: memory-read on hits, disk-write/disk-read with count and bytes, serialize/deserialize seconds", () => {
    const clock = new TickingClock();
    const store = new MemoryStore();
    const buf = new SpillBuffer({ target: 80_000, store, clock, logger: new RecordingLogger() });
    expect(buf.cumulativeMetrics).toEqual(new Map());
    const a = "a".repeat(20_000); // < target
    const b = "b".repeat(100_000); // > target
    const c = new Uint8Array(30_000).fill(7); // < target
    const d = new Uint8Array(100_000).fill(9); // > target
    buf.set("a", a);
    buf.set("b", b);
    buf.set("c", c);
    buf.set("d", d);
    expect(new Set(buf.fast.keys())).toEqual(new Set(["a", "c"]));
    expect(new Set(buf.slow.keys())).toEqual(new Set(["b", "d"]));
    for (const k of ["a", "b", "c", "d", "a", "c"]) buf.get(k);
    const m = buf.cumulativeMetrics;
    const wa = buf.fast.weights.get("a")!;
    const wc = buf.fast.weights.get("c")!;
    const disk = buf.spilledTotal.disk;
    expect(m.get("memory-read/count")).toBe(4);
    expect(m.get("memory-read/bytes")).toBe(2 * wa + 2 * wc);
    expect(m.has("memory-read/seconds")).toBe(false);
    expect(m.get("disk-write/count")).toBe(2);
    expect(m.get("disk-write/bytes")).toBe(disk);
    // b and d are heavier than target: read back, they stay on disk.
    expect(m.get("disk-read/count")).toBe(2);
    expect(m.get("disk-read/bytes")).toBe(disk);
    for (const key of ["serialize/seconds", "deserialize/seconds", "disk-write/seconds", "disk-read/seconds"]) {
      expect(m.get(key), key).toBeGreaterThan(0);
    }
    expect(m.has("compress/seconds")).toBe(false);
    // Cache-hit ratio as dask derives it downstream.
    expect(m.get("memory-read/count")! / (m.get("memory-read/count")! + m.get("disk-read/count")!)).toBeCloseTo(4 / 6);
  });

  it("records each access as an aggregate child span of the current span, and in the cumulative totals", () => {
    const clock = new TickingClock();
    const buf = new SpillBuffer({ target: 100, store: new MemoryStore(), clock, sizeof: pySizeof, serializer: textSerializer(10), logger: new RecordingLogger() });
    const root = new Span(["execute", "inc"], { clock }).start();
    root.asCurrent(() => {
      buf.set("x", "x".repeat(100)); // heavy: serialize + disk-write
      buf.set("y", "y");
      buf.get("y"); // memory-read
      buf.get("x"); // disk-read + deserialize, stays on disk
    });
    root.end();
    const names = root.children.map((c) => c.name.join("/"));
    expect(names).toEqual(["serialize", "disk-write", "memory-read", "disk-read", "deserialize"]);
    for (const child of root.children) expect(child.attributes["aggregate"]).toBe(true);
    expect(root.children[1]!.metrics).toEqual({ bytes: 110, count: 1 });
    expect(root.children[2]!.metrics).toEqual({ bytes: 50, count: 1 });
    expect(root.children[2]!.duration).toBe(0);
    expect(root.children[3]!.metrics).toEqual({ bytes: 110, count: 1 });

    const digests = toDigestMetrics(root, { stimulusId: "s1" });
    const names2 = digests.map((d) => d.name.join("/"));
    expect(names2).toContain("execute/inc/disk-write/bytes");
    expect(names2).toContain("disk-write/bytes");
    expect(names2).toContain("execute/inc/other/seconds");
    expect(nonZero(aggregated(root))).toEqual(nonZero(buf.cumulativeMetrics));
  });

  it("without a current span the cumulative totals still count", () => {
    const buf = new SpillBuffer({ target: 0, store: new MemoryStore(), clock: new TickingClock(), logger: new RecordingLogger() });
    buf.set("k", { a: 1 });
    buf.get("k");
    const m = buf.cumulativeMetrics;
    expect(m.get("disk-write/count")).toBe(1);
    expect(m.get("disk-read/count")).toBe(1);
    expect(m.get("serialize/seconds")).toBe(1 / 1024);
  });

  it("a store's modelled durations replace the measured time, on the span and in the totals", () => {
    const clock = new TickingClock();
    const store = new MemoryStore();
    store.writeSeconds = 0.25;
    store.readSeconds = 0.125;
    const buf = new SpillBuffer({ target: 0, store, clock, logger: new RecordingLogger() });
    const root = new Span("gather-dep", { clock }).start();
    root.asCurrent(() => {
      buf.set("k", "v".repeat(10));
      buf.get("k");
    });
    root.end(root.startTime! + 10);
    const write = root.children.find((c) => c.name[0] === "disk-write")!;
    const read = root.children.find((c) => c.name[0] === "disk-read")!;
    expect(write.duration).toBe(0.25);
    expect(write.endTime! - write.startTime!).toBe(0.25);
    expect(read.duration).toBe(0.125);
    expect(buf.cumulativeMetrics.get("disk-write/seconds")).toBe(0.25);
    expect(buf.cumulativeMetrics.get("disk-read/seconds")).toBe(0.125);

    // Outside any span: still the modelled time.
    buf.set("j", "w");
    expect(buf.cumulativeMetrics.get("disk-write/seconds")).toBe(0.5);
  });

  it("a modelled duration counts from the request, not from a span that a cursor clock started later", () => {
    // The buffer's virtual clock stands at 0 during the call; the span's clock is a root's
    // cursor, already at the end (0.25) of an earlier modelled write. The store's 0.5 s include
    // the wait behind that write: the request is done at 0.5, not at 0.75.
    const store = new MemoryStore();
    store.writeSeconds = 0.5;
    const buf = new SpillBuffer({ target: 0, store, clock: { now: () => 0 }, logger: new RecordingLogger() });
    const root = new Span("execute", { clock: { now: () => 0.25 } }).start();
    root.asCurrent(() => buf.set("k", "v".repeat(10)));
    const write = root.children.find((c) => c.name[0] === "disk-write")!;
    expect(write.startTime).toBe(0.25);
    expect(write.endTime).toBe(0.5);
    expect(buf.cumulativeMetrics.get("disk-write/seconds")).toBe(0.25);
  });

  it("a store reporting a bad modelled duration is a store failure naming the problem", () => {
    const logger = new RecordingLogger();
    const store = new MemoryStore();
    store.writeSeconds = -1;
    const buf = new SpillBuffer({ target: 0, store, logger, clock: new TickingClock() });
    buf.set("k", "v");
    expect(buf.fast.has("k")).toBe(true);
    expect(logger.messages().join("\n")).toMatch(/modelled duration of -1 seconds/);
  });

  it("compression records compress/decompress and stores the compressed size", () => {
    for (const compression of ["gzip", "deflate", "brotli"] as const) {
      const buf = new SpillBuffer({ target: 0, store: new MemoryStore(), compression, clock: new TickingClock(), logger: new RecordingLogger() });
      const value = { text: "abc".repeat(10_000), n: [1, 2, 3] };
      buf.set("k", value);
      expect(buf.spilledTotal.disk).toBeLessThan(2_000);
      expect(buf.get("k")).toEqual(value);
      const m = buf.cumulativeMetrics;
      expect(m.get("compress/seconds"), compression).toBeGreaterThan(0);
      expect(m.get("decompress/seconds"), compression).toBeGreaterThan(0);
      expect(m.get("disk-write/bytes")).toBe(buf.spilledTotal.disk);
    }
    expect(() => new SpillBuffer({ target: 0, store: new MemoryStore(), compression: "lz4" as never })).toThrow(/unknown spill compression "lz4"/);
  });

  it("property: after any sequence of operations the unqualified totals from spans equal cumulativeMetrics", () => {
    const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const op = fc.oneof(
      fc.record({ kind: fc.constant("set" as const), key, size: fc.integer({ min: 0, max: 400 }), bad: fc.boolean() }),
      fc.record({ kind: fc.constant("get" as const), key }),
      fc.record({ kind: fc.constant("delete" as const), key }),
      fc.record({ kind: fc.constant("evict" as const) }),
      fc.record({ kind: fc.constant("disk" as const), broken: fc.boolean() }),
      fc.record({ kind: fc.constant("target" as const), target: fc.integer({ min: 0, max: 600 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.constantFrom<number | false>(false, 500), (ops, maxSpill) => {
        const clock = new TickingClock();
        const store = new MemoryStore();
        const buf = new SpillBuffer<unknown>({
          target: 200,
          maxSpill,
          store,
          clock,
          sizeof: pySizeof,
          serializer: textSerializer(5),
          logger: new RecordingLogger(),
        });
        const model = new Map<string, unknown>();
        const root = new Span("handle-stimulus", { clock }).start();
        root.asCurrent(() => {
          for (const o of ops) {
            switch (o.kind) {
              case "set": {
                const value = o.bad ? new Bad(o.size) : "v".repeat(o.size);
                try {
                  buf.set(o.key, value);
                  model.set(o.key, value);
                } catch (error) {
                  // Only a heavy value that cannot be serialized is rejected, and then forgotten.
                  expect(o.bad && pySizeof(value) > buf.target).toBe(true);
                  expect((error as Error).message).toContain(`Failed to serialize '${o.key}'`);
                  model.delete(o.key);
                }
                break;
              }
              case "get":
                if (model.has(o.key)) expect(buf.get(o.key)).toEqual(model.get(o.key));
                else expect(() => buf.get(o.key)).toThrow(/is not in the SpillBuffer/);
                break;
              case "delete":
                expect(buf.delete(o.key)).toBe(model.delete(o.key));
                break;
              case "evict":
                expect(buf.evict()).toBeGreaterThanOrEqual(-1);
                break;
              case "disk":
                store.writeError = o.broken ? osError("ENOSPC", "full") : null;
                break;
              case "target":
                buf.target = o.target;
                break;
            }
            // No value that was accepted is ever lost.
            expect(new Set(buf.keys())).toEqual(new Set(model.keys()));
            expect(buf.fast.size + buf.slow.size).toBe(model.size);
            for (const k of buf.fast.keys()) expect(buf.slow.has(k)).toBe(false);
          }
        });
        root.end();
        expect(nonZero(aggregated(root))).toEqual(nonZero(buf.cumulativeMetrics));
        // The cumulative series are exactly the activity/unit pairs that spans exported.
        for (const [k, v] of buf.cumulativeMetrics) expect(aggregated(root).get(k) ?? 0, k).toBe(v);
      }),
      { numRuns: 150, seed: 20261129 },
    );
  });
});
