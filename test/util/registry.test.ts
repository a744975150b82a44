import { describe, expect, it } from "vitest";
import { isRegistryName, registryEntry, registryNames } from "../../src/util/registry.js";

const registry = {
  alpha: { description: "first" },
  beta: { description: "second" },
} as const;

describe("registry helpers", () => {
  it("lists names in declaration order", () => {
    expect(registryNames(registry)).toEqual(["alpha", "beta"]);
  });

  it("never treats inherited names as entries", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(isRegistryName(registry, name)).toBe(false);
      expect(registryEntry(registry, name)).toBeUndefined();
    }
    expect(registryEntry(registry, "beta")).toEqual({ description: "second" });
  });

  it("refuses an empty registry", () => {
    expect(() => registryNames({})).toThrow(/at least one entry/);
  });
});
