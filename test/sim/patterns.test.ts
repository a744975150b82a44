// The fan-out and strided dependency patterns (docs/sim.md, "Spec format"): a shuffle in three
// lines instead of 420 explicit entries, compiled to the same graph.
import { describe, expect, it } from "vitest";
import { compileSpec, SpecError, validateSpec, type TaskGraph } from "../../src/sim/index.js";

function depsOf(graph: TaskGraph): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let id = 0; id < graph.size; id++) {
    const deps: string[] = [];
    for (let e = graph.depStart[id]!; e < graph.depStart[id + 1]!; e++) deps.push(graph.keys[graph.deps[e]!]!);
    out[graph.keys[id]!] = deps;
  }
  return out;
}

describe("fan-out and strided", () => {
  it("fan-out: task i needs piece ⌊i / pieces⌋ of the group it splits", () => {
    const graph = compileSpec(validateSpec({ tasks: [{ prefix: "input", count: 2 }, { prefix: "split", count: 6, dependsOn: { pattern: "fan-out", on: "input", pieces: 3 } }] }), 1);
    expect(depsOf(graph)).toMatchObject({ "split-0": ["input-0"], "split-2": ["input-0"], "split-3": ["input-1"], "split-5": ["input-1"] });
  });

  it("strided: task j needs piece j of every task (indices j, j + count, …)", () => {
    const graph = compileSpec(
      validateSpec({
        tasks: [
          { prefix: "input", count: 2 },
          { prefix: "split", count: 6, dependsOn: { pattern: "fan-out", on: "input" } },
          { prefix: "join", count: 3, dependsOn: { pattern: "strided", on: "split" } },
        ],
      }),
      1,
    );
    expect(depsOf(graph)).toMatchObject({ "join-0": ["split-0", "split-3"], "join-1": ["split-1", "split-4"], "join-2": ["split-2", "split-5"] });
  });

  it("a shuffle written with them is the graph of the same shuffle written out key by key", () => {
    const groups = (splitDeps: unknown, joinDeps: unknown) => ({
      name: "shuffle",
      tasks: [
        { prefix: "input", count: 20, duration: 0.2, outputSize: 20e6 },
        { prefix: "split", count: 400, duration: 0.05, outputSize: { dist: "uniform", low: 1e6, high: 5e6 }, dependsOn: splitDeps },
        { prefix: "join", count: 20, duration: 0.1, outputSize: 1e6, dependsOn: joinDeps },
      ],
    });
    const explicitSplit = { pattern: "explicit", deps: Array.from({ length: 400 }, (_, i) => [`input-${Math.floor(i / 20)}`]) };
    const explicitJoin = { pattern: "explicit", deps: Array.from({ length: 20 }, (_, j) => Array.from({ length: 20 }, (_, i) => `split-${i * 20 + j}`)) };
    const patterned = compileSpec(validateSpec(groups({ pattern: "fan-out", on: "input", pieces: 20 }, { pattern: "strided", on: "split" })), 1);
    const explicit = compileSpec(validateSpec(groups(explicitSplit, explicitJoin)), 1);
    expect(depsOf(patterned)).toEqual(depsOf(explicit));
    expect(Array.from(patterned.nbytes)).toEqual(Array.from(explicit.nbytes));
  });

  it("names counts that do not fit, with the path", () => {
    const problems = (tasks: unknown[]) => {
      try {
        validateSpec({ tasks });
        return [];
      } catch (error) {
        return (error as SpecError).issues;
      }
    };
    expect(problems([{ prefix: "a", count: 2 }, { prefix: "b", count: 5, dependsOn: { pattern: "fan-out", on: "a" } }])).toEqual([
      'tasks[1].dependsOn: fan-out of 2 "a" tasks needs a count of a multiple of 2, not 5',
    ]);
    expect(problems([{ prefix: "a", count: 2 }, { prefix: "b", count: 4, dependsOn: { pattern: "fan-out", on: "a", pieces: 3 } }])).toEqual([
      'tasks[1].dependsOn: fan-out of 2 "a" tasks needs a count of 3 × 2, not 4',
    ]);
    expect(problems([{ prefix: "a", count: 5 }, { prefix: "b", count: 2, dependsOn: { pattern: "strided", on: "a" } }])).toEqual([
      'tasks[1].dependsOn: strided needs "a" (5 tasks) to have a multiple of the 2 tasks of "b"',
    ]);
  });
});
