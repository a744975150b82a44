import * as v8 from "node:v8";
import * as vm from "node:vm";
import { describe, expect, it } from "vitest";
import { SpillBuffer } from "../../src/spill/index.js";
import { MemoryStore, RecordingLogger } from "./helpers.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** WeakRefs made in this job keep their targets alive until it ends; let it end, then collect. */
async function collectGarbage(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

function makeBuffer(weakCache: boolean) {
  const store = new MemoryStore();
  const sizes = new WeakMap<object, number>();
  const buf = new SpillBuffer<object>({
    target: 100,
    store,
    weakCache,
    logger: new RecordingLogger(),
    sizeof: (v) => (typeof v === "object" && v !== null ? (sizes.get(v) ?? (v as { size: number }).size) : 1),
  });
  return { buf, store };
}

describe("weak cache (dask test_weakref_cache)", () => {
  for (const size of [60, 110]) {
    it(`returns the same object without a disk read while it is alive elsewhere (size ${size})`, async () => {
      const { buf, store } = makeBuffer(true);
      // x is lighter than target and pushed out by y, or heavier and never kept in memory.
      let x: { size: number; id: number } | undefined = { size, id: 1 };
      buf.set("x", x);
      if (size < 100) buf.set("y", { size: 60, id: 2 });
      expect(buf.slow.has("x")).toBe(true);

      // Cached on set: same object, no read.
      expect(buf.get("x")).toBe(x);
      expect(store.reads).toBe(0);
      expect(buf.cumulativeMetrics.has("disk-read/count")).toBe(false);
      if (size < 100) buf.get("y"); // push x out again
      expect(buf.slow.has("x")).toBe(true);

      x = undefined;
      await collectGarbage();
      const x2 = buf.get("x") as { id: number };
      expect(x2.id).toBe(1);
      expect(store.reads).toBe(1);
      if (size < 100) buf.get("y");
      expect(buf.slow.has("x")).toBe(true);

      // Cached on get.
      expect(buf.get("x")).toBe(x2);
      expect(store.reads).toBe(1);
    });
  }

  it("is off by default: every read of a spilled value goes to the store", () => {
    const { buf, store } = makeBuffer(false);
    const x = { size: 200 };
    buf.set("x", x);
    const back = buf.get("x");
    expect(back).not.toBe(x);
    expect(back).toEqual(x);
    expect(store.reads).toBe(1);
  });

  it("does not cache primitives", () => {
    const store = new MemoryStore();
    const buf = new SpillBuffer<string>({ target: 0, store, weakCache: true, logger: new RecordingLogger() });
    buf.set("s", "text");
    expect(buf.get("s")).toBe("text");
    expect(store.reads).toBe(1);
  });
});
