import { describe, expect, it } from "vitest";
import { SpillBuffer, SpillKeyError, SpillSerializeError, v8Serializer } from "../../src/spill/index.js";
import { Bad, FakeClock, MemoryStore, RecordingLogger, osError, pySizeof, textSerializer } from "./helpers.js";

const OVERHEAD = 150;

function makeBuffer(target: number, extra: { maxSpill?: number | false; serializer?: ReturnType<typeof textSerializer> } = {}) {
  const store = new MemoryStore();
  const logger = new RecordingLogger();
  const clock = new FakeClock();
  const buf = new SpillBuffer<unknown>({
    target,
    maxSpill: extra.maxSpill ?? false,
    store,
    sizeof: pySizeof,
    serializer: extra.serializer ?? textSerializer(OVERHEAD),
    logger,
    clock,
  });
  return { buf, store, logger, clock };
}

/** dask's assert_buf: contents, weights and totals of both tiers, and the store's files. */
function assertBuf(
  buf: SpillBuffer<unknown>,
  store: MemoryStore,
  fast: Record<string, unknown>,
  slow: Record<string, string>,
): void {
  expect(new Set(buf.fast.keys())).toEqual(new Set(Object.keys(fast)));
  expect(new Set(buf.slow.keys())).toEqual(new Set(Object.keys(slow)));
  const fastEntries = Object.fromEntries([...buf.entries()].filter(([k]) => buf.fast.has(k)));
  expect(fastEntries).toEqual(fast);
  const weights = Object.fromEntries(Object.entries(fast).map(([k, v]) => [k, pySizeof(v)]));
  expect(Object.fromEntries(buf.fast.weights)).toEqual(weights);
  expect(buf.fast.totalWeight).toBe(Object.values(weights).reduce((a, b) => a + b, 0));
  const spilled = Object.fromEntries(
    Object.entries(slow).map(([k, v]) => [k, { memory: pySizeof(v), disk: OVERHEAD + v.length }]),
  );
  expect(Object.fromEntries(buf.slow.weightByKey)).toEqual(spilled);
  const total = Object.values(spilled).reduce((a, b) => ({ memory: a.memory + b.memory, disk: a.disk + b.disk }), { memory: 0, disk: 0 });
  expect(buf.slow.totalWeight).toEqual(total);
  expect(buf.spilledTotal).toEqual(total);
  expect(new Set(store.files.keys())).toEqual(new Set(Object.keys(slow)));
  for (const [k, v] of Object.entries(slow)) expect(textSerializer(OVERHEAD).load(store.files.get(k)!)).toBe(v);
  expect(buf.size).toBe(Object.keys(fast).length + Object.keys(slow).length);
}

describe("SpillBuffer LRU (dask test_spillbuffer)", () => {
  it("walks the LRU: spill, unspill, delete, update, heavy keys straight to disk", () => {
    const { buf, store } = makeBuffer(300);
    expect(buf.memory).toBe(buf.fast);
    expect(buf.disk).toBe(buf.slow);
    assertBuf(buf, store, {}, {});
    const [a, b, c, d] = ["a".repeat(100), "b".repeat(99), "c".repeat(98), "d".repeat(97)];

    buf.set("a", a);
    assertBuf(buf, store, { a }, {});
    expect(buf.get("a")).toBe(a);

    buf.set("b", b);
    assertBuf(buf, store, { a, b }, {});

    buf.set("c", c);
    assertBuf(buf, store, { b, c }, { a });

    expect(buf.get("a")).toBe(a);
    assertBuf(buf, store, { a, c }, { b });

    buf.set("d", d);
    assertBuf(buf, store, { a, d }, { b, c });

    // Deleting an in-memory key does not move spilled keys back to memory.
    expect(buf.delete("a")).toBe(true);
    assertBuf(buf, store, { d }, { b, c });
    expect(() => buf.get("a")).toThrow(SpillKeyError);
    expect(() => buf.get("a")).toThrow("'a'");

    // Deleting a spilled key updates the metadata.
    expect(buf.delete("b")).toBe(true);
    assertBuf(buf, store, { d }, { c });
    expect(buf.delete("b")).toBe(false);

    // Updating a spilled key drops the slow copy and puts it at the top of the LRU
    // (which pushes d out).
    const c2 = c + c;
    buf.set("c", c2);
    assertBuf(buf, store, { c: c2 }, { d });

    // A key heavier than target goes straight to slow.
    const e = "e".repeat(500);
    buf.set("e", e);
    assertBuf(buf, store, { c: c2 }, { d, e });

    // Updating a spilled key with a heavy value updates slow directly.
    const dLarge = "d".repeat(500);
    buf.set("d", dLarge);
    assertBuf(buf, store, { c: c2 }, { d: dLarge, e });
  });

  it("reading a value heavier than target leaves it in slow (dask test_metrics)", () => {
    const { buf, store } = makeBuffer(300);
    const big = "x".repeat(400);
    buf.set("big", big);
    expect(buf.get("big")).toBe(big);
    assertBuf(buf, store, {}, { big });
  });

  it("unspilling evicts the least recently used keys, in LRU order", () => {
    const { buf } = makeBuffer(3 * 59);
    for (const k of ["a", "b", "c"]) buf.set(k, k.repeat(10)); // 59 each: exactly at target
    expect([...buf.fast.keys()]).toEqual(["a", "b", "c"]);
    buf.get("a"); // touch: order b, c, a
    buf.set("d", "dddddddddd"); // evicts b
    expect([...buf.fast.keys()]).toEqual(["c", "a", "d"]);
    expect([...buf.slow.keys()]).toEqual(["b"]);
    buf.get("b"); // unspills b, evicts c
    expect([...buf.fast.keys()]).toEqual(["a", "d", "b"]);
    expect([...buf.slow.keys()]).toEqual(["c"]);
  });

  it("views iterate fast then slow without touching the LRU or unspilling", () => {
    const { buf, store } = makeBuffer(120);
    buf.set("a", "a".repeat(10));
    buf.set("b", "b".repeat(10)); // 59 + 59 = 118
    buf.set("c", "c".repeat(10)); // evicts a
    const reads = store.reads;
    expect([...buf.keys()]).toEqual(["b", "c", "a"]);
    expect([...buf.values()]).toEqual(["b".repeat(10), "c".repeat(10), "a".repeat(10)]);
    expect([...buf]).toEqual([
      ["b", "b".repeat(10)],
      ["c", "c".repeat(10)],
      ["a", "a".repeat(10)],
    ]);
    expect(store.reads).toBe(reads + 2);
    expect([...buf.fast.keys()]).toEqual(["b", "c"]);
    expect([...buf.slow.keys()]).toEqual(["a"]);
    expect(buf.has("a") && buf.has("b") && !buf.has("z")).toBe(true);
  });

  it("target 0: every value with a positive weight goes to disk (dask test_disk_size_calculation)", () => {
    const store = new MemoryStore();
    const buf = new SpillBuffer({ target: 0, store, logger: new RecordingLogger() });
    const a = "a".repeat(100);
    const b = new Float64Array(100).fill(6.02e23);
    buf.set("a", a);
    buf.set("b", b);
    expect(buf.fast.size).toBe(0);
    expect([...buf.slow.keys()].sort()).toEqual(["a", "b"]);
    // memory weight is sizeof, disk weight the serialized length: they differ.
    const wa = buf.slow.weightByKey.get("a")!;
    const wb = buf.slow.weightByKey.get("b")!;
    expect(wa.disk).toBe(v8Serializer.dump(a).byteLength);
    expect(wb.disk).toBe(v8Serializer.dump(b).byteLength);
    expect(wb.memory).toBeGreaterThanOrEqual(800);
    expect(wa.memory).not.toBe(wa.disk);
    expect(buf.spilledTotal).toEqual({ memory: wa.memory + wb.memory, disk: wa.disk + wb.disk });
    expect(buf.get("b")).toEqual(b);
    // A zero-weight value is not heavier than a target of 0: it stays in memory.
    buf.set("nothing", null);
    expect(buf.fast.has("nothing")).toBe(true);
  });

  it("offset counts against target; changing target or offset does not evict by itself", () => {
    const { buf } = makeBuffer(200);
    buf.set("a", "a".repeat(10));
    buf.set("b", "b".repeat(10));
    buf.offset = 100;
    expect(buf.fast.size).toBe(2);
    buf.evictUntilBelowTarget();
    expect([...buf.fast.keys()]).toEqual(["b"]);
    buf.target = 10;
    expect(buf.fast.size).toBe(1);
    buf.evictUntilBelowTarget();
    expect(buf.fast.size).toBe(0);
  });

  it("rejects bad options and keys with errors naming the problem", () => {
    const store = new MemoryStore();
    expect(() => new SpillBuffer({ target: -1, store })).toThrow(/target/);
    expect(() => new SpillBuffer({ target: Number.NaN, store })).toThrow(/target/);
    expect(() => new SpillBuffer({ target: 1, maxSpill: -5, store })).toThrow(/maxSpill/);
    expect(() => new SpillBuffer({ target: 1, store, directory: "/tmp" })).toThrow(/either store or directory/);
    const buf = new SpillBuffer({ target: 1, store });
    expect(() => buf.set(5 as unknown as string, 1)).toThrow(/keys are strings/);
  });

  it("pop is not supported and says why", () => {
    const { buf } = makeBuffer(100);
    buf.set("a", "a");
    expect(() => buf.pop("a")).toThrow(/use delete\(key\)/);
    expect(buf.has("a")).toBe(true);
  });
});

describe("SpillBuffer maxSpill (dask test_spillbuffer_maxlim)", () => {
  it("keeps values in memory when the disk would exceed maxSpill, logging a rate-limited warning", () => {
    const { buf, store, logger, clock } = makeBuffer(200, { maxSpill: 600 });
    const [a, b, c, d, e] = ["a".repeat(200), "b".repeat(100), "c".repeat(99), "d".repeat(199), "e".repeat(98)];

    // a is heavier than target and fits within maxSpill: straight to slow (350 bytes).
    buf.set("a", a);
    assertBuf(buf, store, {}, { a });
    expect(buf.get("a")).toBe(a);

    buf.set("b", b);
    assertBuf(buf, store, { b }, { a });

    // b + c > target: b moves to slow (600 bytes on disk now).
    buf.set("c", c);
    assertBuf(buf, store, { c }, { a, b });
    expect(logger.entries).toEqual([]);

    // c + e > target, but c does not fit on disk: both stay in memory.
    buf.set("e", e);
    expect(logger.messages().join("\n")).toMatch(/disk reached capacity/);
    assertBuf(buf, store, { c, e }, { a, b });

    // d is heavy but does not fit either: kept in memory (unlike a serialize failure).
    logger.clear();
    clock.advance(10);
    buf.set("d", d);
    expect(logger.messages().join("\n")).toMatch(/disk reached capacity/);
    assertBuf(buf, store, { c, e, d }, { a, b });

    // Overwrite a spilled key with a value bigger than maxSpill: the others are evicted instead.
    const aLarge = "a".repeat(500);
    logger.clear();
    clock.advance(10);
    buf.set("a", aLarge);
    expect(logger.messages().join("\n")).toMatch(/disk reached capacity/);
    assertBuf(buf, store, { e, d, a: aLarge }, { b, c });

    // Overwrite an in-memory key with a value bigger than maxSpill.
    const dLarge = "d".repeat(501);
    logger.clear();
    clock.advance(10);
    buf.set("d", dLarge);
    expect(logger.messages().join("\n")).toMatch(/disk reached capacity/);
    assertBuf(buf, store, { e, a: aLarge, d: dLarge }, { b, c });
  });

  it("rate-limits the capacity warning to once per 10 s of the injected clock", () => {
    const { buf, logger, clock } = makeBuffer(100, { maxSpill: 0 });
    buf.set("a", "a".repeat(100)); // heavy, does not fit
    buf.set("b", "b".repeat(100));
    expect(logger.entries.length).toBe(1);
    clock.advance(9.9);
    buf.set("c", "c".repeat(100));
    expect(logger.entries.length).toBe(1);
    clock.advance(0.1);
    buf.set("d", "d".repeat(100));
    expect(logger.entries.length).toBe(2);
    expect(logger.entries.every((e) => e.level === "warn")).toBe(true);
    expect(buf.fast.size).toBe(4);
  });

  it("maxSpill is checked after serializing, so the serialize time is still recorded", () => {
    const { buf } = makeBuffer(10, { maxSpill: 0 });
    buf.set("a", "a".repeat(100));
    const m = buf.cumulativeMetrics;
    expect(m.get("serialize/seconds")).toBe(0);
    expect(m.has("disk-write/count")).toBe(false);
  });
});

describe("SpillBuffer serialize failures (dask test_spillbuffer_fail_to_serialize)", () => {
  it("a heavy value that cannot be serialized is forgotten and the error names the key; a light one stays and is logged once", () => {
    const { buf, store, logger } = makeBuffer(200, { maxSpill: 600 });
    const a = new Bad(201);
    let thrown: unknown;
    try {
      buf.set("a", a);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SpillSerializeError);
    expect((thrown as Error).message).toContain("Failed to serialize 'a'");
    expect((thrown as Error).cause).toBeInstanceOf(TypeError);
    // spill stays silent: the caller (the worker) reports the error.
    expect(logger.entries).toEqual([]);
    assertBuf(buf, store, {}, {});

    const b = new Bad(100);
    buf.set("b", b);
    assertBuf(buf, store, { b }, {});

    // c pushes b out, b cannot be serialized: b stays, the error is logged, not thrown.
    const c = "c".repeat(100);
    buf.set("c", c);
    expect(logger.entries.length).toBe(1);
    expect(logger.entries[0]!.level).toBe("error");
    expect(logger.entries[0]!.message).toContain("Failed to serialize 'b'");
    expect(logger.entries[0]!.error).toBeInstanceOf(TypeError);
    expect(buf.loggedSerializeErrors.has("b")).toBe(true);
    assertBuf(buf, store, { b, c }, {});

    // Eviction stopped at b; later inserts retry on b but log nothing new for it.
    buf.set("d", "d".repeat(10));
    expect(logger.entries.length).toBe(1);
    assertBuf(buf, store, { b, c, d: "d".repeat(10) }, {});

    // Setting b again clears the logged entry; deleting it too.
    buf.set("b", new Bad(10));
    expect(buf.loggedSerializeErrors.has("b")).toBe(false);
  });

  it("deleting a key clears its logged serialize error, so a new failure is logged again", () => {
    const { buf, logger } = makeBuffer(200);
    buf.set("bad", new Bad(150));
    buf.set("x", "x".repeat(100)); // evict bad: fails, logged
    expect(buf.loggedSerializeErrors.has("bad")).toBe(true);
    buf.delete("bad");
    expect(buf.loggedSerializeErrors.has("bad")).toBe(false);
    buf.set("bad", new Bad(150)); // evicts x first (LRU), then bad fails again
    buf.set("y", "y".repeat(10));
    expect(logger.entries.filter((e) => e.message.includes("'bad'")).length).toBe(2);
  });

  it("a heavy value that cannot be serialized with the default v8 serializer (function, symbol)", () => {
    const store = new MemoryStore();
    const buf = new SpillBuffer({ target: 10, store, sizeof: () => 100, logger: new RecordingLogger() });
    expect(() => buf.set("f", () => 1)).toThrow("Failed to serialize 'f'");
    expect(() => buf.set("s", Symbol("x"))).toThrow("Failed to serialize 's'");
    expect(buf.size).toBe(0);
    expect(store.files.size).toBe(0);
  });
});

describe("SpillBuffer store failures (dask test_spillbuffer_oserror)", () => {
  it("a failing write is logged with the error and keeps the value in memory", () => {
    const { buf, store, logger, clock } = makeBuffer(200, { maxSpill: 800 });
    const [a, b, c, d] = ["a".repeat(200), "b".repeat(100), "c".repeat(201), "d".repeat(101)];
    buf.set("a", a);
    buf.set("b", b);
    assertBuf(buf, store, { b }, { a });

    // Read-only disk: writes throw.
    const readOnly = osError("EROFS", "read-only file system");
    store.writeError = readOnly;
    buf.set("c", c); // heavy; fails; then trying to evict b fails too
    expect(logger.entries.length).toBe(1);
    expect(logger.entries[0]!.level).toBe("error");
    expect(logger.entries[0]!.message).toMatch(/Spill to disk failed; keeping data in memory/);
    expect(logger.entries[0]!.message).toContain("EROFS");
    expect(logger.entries[0]!.error).toBe(readOnly);
    assertBuf(buf, store, { b, c }, { a });

    buf.delete("c");
    assertBuf(buf, store, { b }, { a });

    clock.advance(10);
    store.writeError = osError("ENOSPC", "no space left on device");
    buf.set("d", d); // light, pushes b out, which fails
    expect(logger.entries.length).toBe(2);
    expect(logger.entries[1]!.message).toContain("ENOSPC");
    assertBuf(buf, store, { b, d }, { a });

    // The disk comes back: the next insert spills as usual.
    store.writeError = null;
    buf.set("e", "e");
    expect(buf.slow.has("b")).toBe(true);
  });

  it("a failing store delete is logged and loses nothing", () => {
    const { buf, store, logger } = makeBuffer(100);
    buf.set("a", "a".repeat(100)); // heavy → slow
    store.deleteError = osError("EIO", "input/output error");
    expect(buf.get("a")).toBe("a".repeat(100));
    expect(buf.delete("a")).toBe(true);
    expect(buf.has("a")).toBe(false);
    expect(logger.messages().join("\n")).toMatch(/Failed to delete the spilled data of 'a'/);
  });
});

describe("SpillBuffer read faults", () => {
  it("a missing spill file throws an error naming the key and the problem; the key stays spilled", () => {
    const { buf, store } = makeBuffer(100);
    buf.set("a", "a".repeat(100));
    store.files.delete("a");
    expect(() => buf.get("a")).toThrow(/Failed to read spilled key 'a': the spill store failed: ENOENT/);
    expect(buf.slow.has("a")).toBe(true);
    expect(() => buf.get("a")).toThrow(/'a'/);
  });

  it("truncated or undecodable bytes are reported, not returned", () => {
    const store = new MemoryStore();
    const buf = new SpillBuffer({ target: 0, store, logger: new RecordingLogger() });
    buf.set("t", { x: "y".repeat(50) });
    store.files.set("t", store.files.get("t")!.subarray(0, 10));
    expect(() => buf.get("t")).toThrow(/'t'.*holds 10 bytes but \d+ were written/);
    buf.set("g", { x: 1 });
    const size = store.files.get("g")!.byteLength;
    store.files.set("g", new Uint8Array(size).fill(0xff));
    expect(() => buf.get("g")).toThrow(/Failed to read spilled key 'g': the spilled bytes do not deserialize/);
    expect(buf.slow.has("g")).toBe(true);
  });

  it("a throwing sizeof counts 1e6 bytes with a warning naming the key", () => {
    const logger = new RecordingLogger();
    const buf = new SpillBuffer({
      target: 2e6,
      store: new MemoryStore(),
      logger,
      sizeof: () => {
        throw new Error("boom");
      },
    });
    buf.set("k", 1);
    expect(buf.fast.weights.get("k")).toBe(1e6);
    expect(logger.entries[0]!.level).toBe("warn");
    expect(logger.entries[0]!.message).toMatch(/Sizeof calculation failed for key "k".*boom/);
  });
});

describe("SpillBuffer.evict (dask test_spillbuffer_evict)", () => {
  it("returns the evicted weight, or -1 (logged, never thrown) when the value cannot be spilled", () => {
    const { buf, store, logger } = makeBuffer(300);
    const a = "a".repeat(100);
    buf.set("a", a);
    assertBuf(buf, store, { a }, {});
    expect(buf.evict()).toBe(pySizeof(a));
    assertBuf(buf, store, {}, { a });

    const bad = new Bad(100);
    buf.set("bad", bad);
    assertBuf(buf, store, { bad }, { a });
    expect(buf.evict()).toBe(-1);
    expect(logger.messages().join("\n")).toContain("Failed to serialize 'bad'");
    assertBuf(buf, store, { bad }, { a });

    buf.delete("bad");
    expect(buf.evict()).toBe(-1); // empty
    store.writeError = osError("ENOSPC", "full");
    buf.get("a");
    expect(buf.evict()).toBe(-1);
    expect(buf.fast.has("a")).toBe(true);
  });

  it("evicts the oldest heavy key first, else the least recently used", () => {
    const { buf, store } = makeBuffer(200);
    // A heavy key that failed to spill drops out of the heavy set (zict) ...
    store.writeError = osError("ENOSPC", "full");
    buf.set("h1", "h".repeat(200));
    expect(buf.fast.heavy.size).toBe(0);
    store.writeError = null;
    buf.set("l", "l");
    // ... so it is evicted in plain LRU order: h1 is the oldest anyway.
    expect([...buf.fast.keys()]).toEqual(["l"]);
    expect(buf.slow.has("h1")).toBe(true);
  });

  it("a heavy key waiting in the heavy set goes before older light keys", () => {
    const { buf } = makeBuffer(200);
    buf.offset = -1000; // room for everything: nothing is evicted yet
    buf.set("l1", "l");
    buf.set("h", "h".repeat(200));
    buf.set("l2", "l");
    expect([...buf.fast.heavy]).toEqual(["h"]);
    buf.offset = 0;
    expect(buf.evict()).toBe(249);
    expect([...buf.fast.keys()]).toEqual(["l1", "l2"]);
    expect(buf.fast.heavy.size).toBe(0);
    expect(buf.evict()).toBe(50);
    expect([...buf.fast.keys()]).toEqual(["l2"]);
  });
});

describe("SpillBuffer close", () => {
  it("stops evicting after close", () => {
    const { buf } = makeBuffer(10);
    buf.close();
    buf.close();
    buf.set("a", "a".repeat(100));
    expect(buf.fast.has("a")).toBe(true);
  });
});
