// The dask.order port (src/sim/dask-order.ts) against the priorities the installed dask
// 2022.12.1 gave the same graphs (test/fixtures/dask-order.json, written by
// tools/dask_order_fixtures.py): exact on every fixture.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { daskOrder, type OrderGraph } from "../../src/sim/dask-order.js";
import { pythonStrCompare } from "../../src/util/python-str.js";

interface Fixture {
  name: string;
  aliases?: string[];
  keys: string[];
  deps: number[][];
  ranks: number[];
  stable: boolean;
}

const fixtures = (
  JSON.parse(readFileSync(new URL("../fixtures/dask-order.json", import.meta.url), "utf8")) as { graphs: Fixture[] }
).graphs;

/** CSR arrays as GraphBuilder leaves them: dependencies and dependents in ascending id order. */
export function orderGraph(keys: readonly string[], deps: readonly (readonly number[])[]): OrderGraph {
  const n = keys.length;
  const depStart = new Int32Array(n + 1);
  const flat: number[] = [];
  const dependentCount = new Int32Array(n + 1);
  for (let t = 0; t < n; t++) {
    const own = [...new Set(deps[t])].sort((a, b) => a - b);
    for (const d of own) {
      flat.push(d);
      dependentCount[d + 1]!++;
    }
    depStart[t + 1] = flat.length;
  }
  const dependentStart = new Int32Array(n + 1);
  for (let t = 0; t < n; t++) dependentStart[t + 1] = dependentStart[t]! + dependentCount[t + 1]!;
  const dependents = new Int32Array(flat.length);
  const cursor = dependentStart.slice(0, n);
  for (let t = 0; t < n; t++) for (let e = depStart[t]!; e < depStart[t + 1]!; e++) dependents[cursor[flat[e]!]!++] = t;
  return { size: n, keys, depStart, deps: Int32Array.from(flat), dependentStart, dependents };
}

describe("daskOrder (dask.order.order of dask 2022.12.1)", () => {
  it("covers the fidelity graphs, the built-in workloads and ≥ 200 random DAGs, all stable under dask's hash seeds", () => {
    const names = fixtures.flatMap((f) => [f.name, ...(f.aliases ?? [])]);
    expect(names.filter((n) => n.startsWith("random-")).length).toBeGreaterThanOrEqual(200);
    for (const set of ["shared/fidelity/graphs/shuffle-s1.json", "fidelity/quiet/graphs/random-dag-s1.json", "shuffle-300"]) {
      expect(names).toContain(set);
    }
    expect(fixtures.filter((f) => !f.stable).map((f) => f.name)).toEqual([]);
  });

  it.each(fixtures.map((f) => [f.name, f] as const))("gives dask's ranks on %s", (_name, f) => {
    const got = Array.from(daskOrder(orderGraph(f.keys, f.deps)));
    expect(got).toEqual(f.ranks);
  });

  it("is a permutation in which every task comes after its dependencies", () => {
    // dask.order guarantees both: a task is ranked only once num_needed reaches 0 (order.py
    // 354, 370) and every task is ranked (the loop ends at len(result) == len(dependencies)).
    const dag = fc
      .integer({ min: 1, max: 80 })
      .chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: n, maxLength: n }),
          fc.array(fc.constantFrom("a", "b", "__proto__", "\u{1d518}", "\uffff", "x-1", "x-10"), { minLength: n, maxLength: n }),
        ),
      );
    fc.assert(
      fc.property(dag, ([n, raw, names]) => {
        const deps = raw.map((ds, t) => (t === 0 ? [] : ds.map((d) => d % t)));
        const keys = names.map((name, t) => `${name}-${t}`);
        const rank = daskOrder(orderGraph(keys, deps));
        expect([...rank].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
        deps.forEach((ds, t) => ds.forEach((d) => expect(rank[d]!).toBeLessThan(rank[t]!)));
      }),
      { seed: 25, numRuns: 300 },
    );
  });
});

describe("pythonStrCompare", () => {
  it("orders by code point, as Python's str < does, where UTF-16 units disagree", () => {
    expect(pythonStrCompare("\uffff", "\u{1d518}")).toBeLessThan(0);
    expect("\uffff" < "\u{1d518}").toBe(false);
    expect(pythonStrCompare("\ue000", "\u{10000}")).toBeLessThan(0);
    expect(pythonStrCompare("x-10", "x-2")).toBeLessThan(0);
    expect(pythonStrCompare("a", "ab")).toBeLessThan(0);
    expect(pythonStrCompare("__proto__", "__proto__")).toBe(0);
  });
});
