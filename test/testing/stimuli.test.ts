// arbitraryStimuli: its options (weights, exclusions, the key/peer universe, lengths),
// the shape of what it generates (plain JSON data), and its errors.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_STIMULUS_WEIGHTS,
  STIMULUS_KINDS,
  arbitraryStimuli,
  defaultPeer,
  freshWorkerState,
  runStimuli,
  stimuliUniverse,
  type Stimulus,
  type StimulusKind,
} from "../../src/testing/index.js";

function sample(options: Parameters<typeof arbitraryStimuli>[0], numRuns = 100): Stimulus[][] {
  return fc.sample(arbitraryStimuli(options), { numRuns, seed: 7 });
}

/** Every key and peer a step names. */
function namesOf(stimulus: Stimulus): { keys: string[]; peers: string[] } {
  switch (stimulus.kind) {
    case "compute":
      return { keys: [stimulus.key, ...stimulus.inputs.map((r) => r.key)], peers: stimulus.inputs.flatMap((r) => r.holders) };
    case "acquire":
      return { keys: stimulus.replicas.map((r) => r.key), peers: stimulus.replicas.flatMap((r) => r.holders) };
    case "refresh-who-has":
      return { keys: stimulus.whoHas.map((w) => w.key), peers: stimulus.whoHas.flatMap((w) => w.holders) };
    case "execute-done":
    case "steal":
    case "cancel":
      return { keys: [stimulus.key], peers: [] };
    case "scatter":
      return { keys: stimulus.key === null ? [] : [stimulus.key], peers: [] };
    case "free":
    case "remove-replicas":
      return { keys: [...stimulus.keys], peers: [] };
    case "gather-done":
    case "retry-busy":
    case "remove-worker":
      return { keys: [], peers: [stimulus.peer] };
    case "pause":
    case "find-missing":
      return { keys: [], peers: [] };
  }
}

describe("arbitraryStimuli", () => {
  it("generates every kind by default, as plain JSON data", () => {
    const sequences = sample({});
    const kinds = new Set(sequences.flat().map((s) => s.kind));
    expect([...kinds].sort()).toEqual([...STIMULUS_KINDS].sort());
    for (const sequence of sequences) expect(JSON.parse(JSON.stringify(sequence))).toEqual(sequence);
  });

  it("uses the default universe: t0…t7, d0…d5, two peers on our host and one elsewhere", () => {
    const universe = stimuliUniverse();
    expect(universe.taskKeys).toEqual(["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"]);
    expect(universe.dataKeys).toEqual(["d0", "d1", "d2", "d3", "d4", "d5"]);
    expect(universe.peers).toEqual(["127.0.0.1:2", "127.0.0.1:3", "10.0.0.9:1"]);
    expect([3, 4, 5].map(defaultPeer)).toEqual(["127.0.0.1:4", "127.0.0.1:5", "10.0.0.10:1"]);
    expect(Object.values(DEFAULT_STIMULUS_WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it("excludes kinds, and weight 0 is the same", () => {
    const excluded: StimulusKind[] = ["compute", "scatter", "pause"];
    for (const options of [{ exclude: excluded }, { weights: { compute: 0, scatter: 0, pause: 0 } }]) {
      const kinds = new Set(sample(options).flat().map((s) => s.kind));
      for (const kind of excluded) expect(kinds.has(kind), kind).toBe(false);
      expect(kinds.size).toBe(STIMULUS_KINDS.length - excluded.length);
    }
  });

  it("weights the kinds", () => {
    const only = Object.fromEntries(STIMULUS_KINDS.map((kind) => [kind, kind === "steal" ? 1 : 0]));
    expect(new Set(sample({ weights: only }).flat().map((s) => s.kind))).toEqual(new Set(["steal"]));
    const steps = sample({ weights: { free: 1000 } }, 50).flat();
    expect(steps.filter((s) => s.kind === "free").length).toBeGreaterThan(steps.length * 0.8);
  });

  it("names only the keys and peers it was given, prototype-named keys included", () => {
    const options = { taskKeys: ["__proto__", "constructor"], dataKeys: ["toString"], peers: ["10.1.1.1:5", "10.1.1.2:5"] };
    const sequences = sample(options);
    for (const stimulus of sequences.flat()) {
      const { keys, peers } = namesOf(stimulus);
      for (const key of keys) expect([...options.taskKeys, ...options.dataKeys]).toContain(key);
      for (const peer of peers) expect(options.peers).toContain(peer);
    }
    // and the state machine takes them as ordinary keys
    for (const sequence of sequences.slice(0, 30)) runStimuli(freshWorkerState({ nthreads: 2 }), sequence);
  });

  it("keeps task keys out of inputs and data keys out of computes", () => {
    for (const stimulus of sample({}).flat()) {
      if (stimulus.kind !== "compute") continue;
      expect(stimulus.key).toMatch(/^t/);
      for (const input of stimulus.inputs) expect(input.key).toMatch(/^d/);
    }
  });

  it("respects the length bounds", () => {
    const lengths = sample({ minLength: 3, maxLength: 5 }).map((sequence) => sequence.length);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(3);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(5);
    expect(new Set(lengths).size).toBeGreaterThan(1);
  });

  it("rejects bad options with a RangeError naming them", () => {
    expect(() => arbitraryStimuli({ exclude: ["nope" as StimulusKind] })).toThrow(/unknown stimulus kind "nope" in exclude/);
    expect(() => arbitraryStimuli({ weights: { nope: 1 } as never })).toThrow(/unknown stimulus kind "nope" in weights/);
    expect(() => arbitraryStimuli({ weights: { free: -1 } })).toThrow(/weights\.free/);
    expect(() => arbitraryStimuli({ exclude: STIMULUS_KINDS })).toThrow(/every stimulus kind is excluded/);
    expect(() => arbitraryStimuli({ taskKeys: ["a"], dataKeys: ["a"] })).toThrow(/overlap: \["a"\]/);
    expect(() => arbitraryStimuli({ peers: [] })).toThrow(/peers must be a non-empty list/);
    expect(() => arbitraryStimuli({ peers: ["p", "p"] })).toThrow(/distinct/);
    expect(() => arbitraryStimuli({ taskKeys: 0 })).toThrow(/taskKeys must be a positive integer/);
    expect(() => arbitraryStimuli({ sizes: [Number.NaN] })).toThrow(/sizes/);
    expect(() => arbitraryStimuli({ minLength: 5, maxLength: 2 })).toThrow(/minLength/);
  });
});
