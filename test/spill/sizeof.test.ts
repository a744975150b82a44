import { describe, expect, it } from "vitest";
import { SIZEOF_FALLBACK, safeSizeof, sizeof } from "../../src/spill/index.js";

describe("sizeof", () => {
  it("measures primitives", () => {
    expect(sizeof(null)).toBe(0);
    expect(sizeof(undefined)).toBe(0);
    expect(sizeof(1.5)).toBe(8);
    expect(sizeof(true)).toBe(4);
    expect(sizeof("")).toBe(16);
    expect(sizeof("x".repeat(100))).toBe(116);
    expect(sizeof("é".repeat(100))).toBe(116); // Latin-1: one byte per character
    expect(sizeof("€".repeat(100))).toBe(216); // two bytes per character
    expect(sizeof(2n ** 200n)).toBe(16 + 8 * 4);
    expect(sizeof(0n)).toBe(24);
  });

  it("counts the bytes of binary data", () => {
    expect(sizeof(new Uint8Array(1000))).toBe(1064);
    expect(sizeof(Buffer.alloc(1000))).toBe(1064);
    expect(sizeof(new Float64Array(10))).toBe(144);
    expect(sizeof(new ArrayBuffer(100))).toBe(164);
    expect(sizeof(new DataView(new ArrayBuffer(100), 10, 20))).toBe(84);
    // A view counts its own bytes, not the whole backing buffer.
    expect(sizeof(new Uint8Array(new ArrayBuffer(1 << 20), 0, 10))).toBe(74);
  });

  it("adds up nested collections", () => {
    const arr = sizeof([1, 2, 3]);
    expect(arr).toBe(64 + 3 * 8 + 3 * 8);
    expect(sizeof({ a: 1 })).toBe(24 + 8 + 17 + 8);
    expect(sizeof(new Map([["k", 1]]))).toBe(64 + 16 + 17 + 8);
    expect(sizeof(new Set(["k"]))).toBe(64 + 16 + 17);
    expect(sizeof({ inner: [new Uint8Array(500)] })).toBeGreaterThan(500);
    expect(sizeof([new Uint8Array(1000), new Uint8Array(1000)])).toBeGreaterThan(2000);
  });

  it("is deterministic and samples huge collections: bounded work, extrapolated size", () => {
    let visited = 0;
    const counted = () => ({
      get payload() {
        visited++;
        return "x".repeat(10);
      },
    });
    const big = Array.from({ length: 100_000 }, counted);
    const first = sizeof(big);
    expect(visited).toBeLessThanOrEqual(16);
    expect(sizeof(big)).toBe(first);
    const perItem = sizeof(counted()); // 24 + 8 + (16 + 7) + (16 + 10)
    expect(first).toBe(64 + 8 * big.length + perItem * big.length);

    visited = 0;
    const bigMap = new Map(Array.from({ length: 100_000 }, (_, i) => [i, counted()] as const));
    expect(sizeof(bigMap)).toBe(sizeof(bigMap));
    expect(visited).toBeLessThanOrEqual(32);
    expect(sizeof(bigMap)).toBe(64 + 100_000 * (16 + 8 + perItem));
  });

  it("survives cycles and shared objects, and stops at a depth limit", () => {
    const a: Record<string, unknown> = { x: new Uint8Array(100) };
    a["self"] = a;
    expect(sizeof(a)).toBeGreaterThan(100);
    const shared = new Uint8Array(1000);
    expect(sizeof([shared, shared])).toBeLessThan(1200); // counted once
    let deep: unknown = new Uint8Array(10_000);
    for (let i = 0; i < 50; i++) deep = [deep];
    expect(sizeof(deep)).toBeLessThan(10_000);
  });

  it("measures other built-ins without throwing", () => {
    for (const v of [new Date(0), /ab+c/, new Error("e"), new WeakMap(), Promise.resolve(1), () => 1, Symbol("s"), Object.create(null)]) {
      expect(sizeof(v)).toBeGreaterThan(0);
    }
  });
});

describe("safeSizeof", () => {
  it("falls back to 1e6 with a warning when sizeof throws or returns nonsense", () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(safeSizeof("x", () => { throw new Error("nope"); }, warn, "k")).toBe(SIZEOF_FALLBACK);
    expect(safeSizeof("x", () => Number.NaN, warn)).toBe(SIZEOF_FALLBACK);
    expect(safeSizeof("x", () => -1, warn)).toBe(SIZEOF_FALLBACK);
    expect(safeSizeof("x", () => 5, warn)).toBe(5);
    expect(warnings.length).toBe(3);
    expect(warnings[0]).toMatch(/for key "k": Error: nope; defaulting to 1000000 bytes/);
  });
});
