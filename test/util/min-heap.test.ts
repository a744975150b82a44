import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RankedMinHeap } from "../../src/util/min-heap.js";

type Op = { push: number } | { pop: true } | { retainEven: true };

describe("RankedMinHeap", () => {
  it("pops by rank, equal ranks in push order", () => {
    const heap = new RankedMinHeap<string>();
    for (const [rank, value] of [[2, "a"], [1, "b"], [2, "c"], [1, "d"], [0, "e"]] as const) heap.push(rank, value);
    expect(heap.size).toBe(5);
    expect([heap.peekRank(), heap.peek()]).toEqual([0, "e"]);
    expect(Array.from({ length: 6 }, () => heap.pop())).toEqual(["e", "b", "d", "a", "c", undefined]);
    expect([heap.size, heap.peekRank(), heap.peek()]).toEqual([0, undefined, undefined]);
  });

  it("behaves like a sorted list under any sequence of push, pop and retain", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ push: fc.integer({ min: 0, max: 20 }) }), fc.constant({ pop: true as const }), fc.constant({ retainEven: true as const })), { maxLength: 300 }),
        (ops: Op[]) => {
          const heap = new RankedMinHeap<{ rank: number; seq: number }>();
          let model: Array<{ rank: number; seq: number }> = [];
          let seq = 0;
          for (const op of ops) {
            if ("push" in op) {
              const entry = { rank: op.push, seq: seq++ };
              heap.push(entry.rank, entry);
              model.push(entry);
              model.sort((a, b) => a.rank - b.rank || a.seq - b.seq);
            } else if ("pop" in op) {
              expect(heap.pop()).toBe(model.shift());
            } else {
              heap.retain((entry) => entry.seq % 2 === 0);
              model = model.filter((entry) => entry.seq % 2 === 0);
            }
            expect(heap.size).toBe(model.length);
            expect(heap.peek()).toBe(model[0]);
          }
        },
      ),
      { seed: 20261201, numRuns: 200 },
    );
  });
});
