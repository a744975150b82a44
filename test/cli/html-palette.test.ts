import { describe, expect, it } from "vitest";
import { hashedColour, labDistance, MIN_COLOUR_DISTANCE, oklab, PREFIX_PALETTE, prefixColours, prefixHash } from "../../src/cli/html/palette.js";

/** WCAG 2 contrast ratio of a colour against white. */
function contrastOnWhite(hex: string): number {
  const channel = (offset: number): number => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (luminance + 0.05);
}

// Prefixes people will see together: the built-in workloads, the example specs, dask's usual names.
const COMMON_SETS: Record<string, string[]> = {
  map: ["map"],
  "tree-reduce": ["load", "reduce"],
  shuffle: ["shuffle-input", "shuffle-split", "shuffle-join"],
  "random-dag": ["load", "transform", "combine"],
  "spill-pressure": ["produce", "combine"],
  "faulty-shuffle": ["input", "output"],
  etl: ["read-csv", "lookup", "clean", "join", "aggregate", "summary"],
  dask: ["inc", "add", "sum", "double", "getitem", "read-parquet", "from-delayed", "finalize"],
};

describe("prefix colours", () => {
  it("hashes the UTF-8 bytes of a name with FNV-1a, pinned so reports from any version compare", () => {
    // Values checked against an independent FNV-1a implementation (Python).
    expect([prefixHash(""), prefixHash("inc"), prefixHash("shuffle-split"), prefixHash("__proto__"), prefixHash("ünïcode")]).toEqual([2166136261, 2833882183, 2875224815, 2238802877, 1173504043]);
    expect([hashedColour("inc"), hashedColour("shuffle-split"), hashedColour("__proto__")]).toEqual(["#0275a3", "#de5f79", "#007e68"]);
  });

  it("gives a prefix the same colour in every report with the same prefixes, whatever their order or size", () => {
    const first = prefixColours(["shuffle-join", "shuffle-input", "shuffle-split"]);
    const second = prefixColours(["shuffle-split", "shuffle-input", "shuffle-join"]);
    for (const [prefix, colour] of first) expect(second.get(prefix)).toBe(colour);
    expect([...first.keys()]).toEqual(["shuffle-join", "shuffle-input", "shuffle-split"]);
    // A prefix no other name clashes with keeps its hashed colour in any company.
    expect(prefixColours(["shuffle-input"]).get("shuffle-input")).toBe(first.get("shuffle-input"));
    expect(prefixColours(["map", "shuffle-input"]).get("shuffle-input")).toBe(hashedColour("shuffle-input"));
  });

  for (const [workload, prefixes] of Object.entries(COMMON_SETS)) {
    it(`keeps the prefixes of ${workload} apart`, () => {
      const colours = [...prefixColours(prefixes).values()];
      expect(new Set(colours).size).toBe(prefixes.length);
      for (let i = 0; i < colours.length; i += 1) {
        for (let j = i + 1; j < colours.length; j += 1) {
          expect(labDistance(oklab(colours[i]!), oklab(colours[j]!)), `${prefixes[i]} vs ${prefixes[j]}`).toBeGreaterThanOrEqual(MIN_COLOUR_DISTANCE);
        }
      }
    });
  }

  it("moves a prefix whose hashed colour looks like one taken by a name sorting before it", () => {
    // "combine" sorts first and keeps its colour; "load" hashes to a neighbouring hue and moves.
    expect(labDistance(oklab(hashedColour("combine")), oklab(hashedColour("load")))).toBeLessThan(MIN_COLOUR_DISTANCE);
    const colours = prefixColours(["load", "combine"]);
    expect(colours.get("combine")).toBe(hashedColour("combine"));
    expect(colours.get("load")).not.toBe(hashedColour("load"));
  });

  it("keeps every palette colour at 3:1 contrast or more against the white page", () => {
    for (const colour of PREFIX_PALETTE) expect(contrastOnWhite(colour), colour).toBeGreaterThanOrEqual(3);
    expect(new Set(PREFIX_PALETTE).size).toBe(PREFIX_PALETTE.length);
  });

  it("still colours every prefix when there are more prefixes than colours", () => {
    const many = Array.from({ length: 40 }, (_, i) => `task-${i}`);
    const colours = prefixColours(many);
    expect(colours.size).toBe(40);
    for (const colour of colours.values()) expect(PREFIX_PALETTE).toContain(colour);
    expect(new Set(colours.values()).size).toBeGreaterThanOrEqual(12);
  });
});
