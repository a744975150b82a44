// The worked example of docs/testing.md ("Finding a bug with random stimuli"): a
// deliberately broken custom `data` store, found by the kit, shrunk, and replayed from the
// printed line. The doc shows the code between the markers and the error it prints; both
// are checked here so that the doc cannot drift from what the kit does.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { DataStore, Key } from "../../src/state/index.js";
import {
  StimulusViolation,
  arbitraryStimuli,
  assertStimuli,
  freshWorkerState,
  runStimuli,
  type Stimulus,
} from "../../src/testing/index.js";
import { violationOf } from "./helpers.js";

// --- begin docs example ---
/** The newest `capacity` values in a fast tier, older ones moved to a slow tier. */
class TwoTierStore implements DataStore {
  readonly fast = new Map<Key, unknown>();
  readonly slow = new Map<Key, unknown>();
  constructor(readonly capacity: number) {}

  has(key: Key): boolean {
    return this.fast.has(key) || this.slow.has(key);
  }
  get(key: Key): unknown {
    return this.fast.has(key) ? this.fast.get(key) : this.slow.get(key);
  }
  set(key: Key, value: unknown): this {
    this.fast.delete(key);
    this.slow.delete(key);
    this.fast.set(key, value);
    for (const [oldest, moved] of this.fast) {
      if (this.fast.size <= this.capacity) break;
      this.fast.delete(oldest);
      this.slow.set(oldest, moved);
    }
    return this;
  }
  delete(key: Key): boolean {
    return this.fast.delete(key); // the bug: a value already moved to the slow tier stays
  }
  get size(): number {
    return this.fast.size + this.slow.size;
  }
  *keys(): IterableIterator<Key> {
    yield* this.fast.keys();
    yield* this.slow.keys();
  }
}

const property = fc.property(arbitraryStimuli(), (stimuli) => {
  runStimuli(freshWorkerState({ data: new TwoTierStore(1) }), stimuli);
});

it("finds the broken store", () => {
  expect(() => assertStimuli(property, { seed: 42 })).toThrow(/data holds unknown key "t0"/);
});
// --- end docs example ---

const REPLAY = { seed: 42, path: "6:3:7:11:11:13:15:17:20:17:20:19:7:7", endOnFailure: true };

const read = (relative: string): string => readFileSync(new URL(relative, import.meta.url), "utf8");

describe("docs/testing.md worked example: a broken data store", () => {
  let failure: StimulusViolation;
  let replayLine = "";
  beforeAll(() => {
    failure = violationOf(() => assertStimuli(property, { seed: 42 }));
    replayLine = failure.message.split("\n").find((line) => line.startsWith("replay: ")) ?? "";
  });

  it("names the invariant, the stimulus, the story of the key and a replay line", () => {
    expect(failure.invariant).toBe('invalid worker state: data holds unknown key "t0"');
    expect(failure.stimulus).toMatch(/^FreeKeysEvent\(keys=\["t0"\]/);
    expect(failure.key).toBe("t0");
    expect(failure.story.map((entry) => entry.slice(0, 3))).toContainEqual(["t0", "executing", "memory"]);
    expect(replayLine).toBe(`replay: assertStimuli(property, { seed: ${REPLAY.seed}, path: "${REPLAY.path}", endOnFailure: true })`);
  });

  it("is shrunk to four stimuli, none of which can be dropped", () => {
    const stimuli = JSON.parse(failure.reproduction?.replace(/^runStimuli\(ws, /, "").replace(/\)$/, "") ?? "[]") as Stimulus[];
    expect(stimuli.map((stimulus) => stimulus.kind)).toEqual(["compute", "execute-done", "scatter", "free"]);
    expect(() => runStimuli(freshWorkerState({ data: new TwoTierStore(1) }), stimuli)).toThrow(StimulusViolation);
    for (let drop = 0; drop < stimuli.length; drop++) {
      const shorter = stimuli.filter((_, i) => i !== drop);
      expect(() => runStimuli(freshWorkerState({ data: new TwoTierStore(1) }), shorter), `without step ${drop + 1}`).not.toThrow();
    }
  });

  it("is not the shortest failing sequence there is (shrinking is greedy), as the doc says", () => {
    const three: Stimulus[] = [
      { kind: "scatter", key: "d0" },
      { kind: "scatter", key: null },
      { kind: "remove-replicas", keys: ["d0"] },
    ];
    expect(() => runStimuli(freshWorkerState({ data: new TwoTierStore(1) }), three)).toThrow(/data holds unknown key "d0"/);
  });

  it("replays from the printed line in one run", () => {
    let runs = 0;
    const counted = fc.property(arbitraryStimuli(), (stimuli) => {
      runs++;
      runStimuli(freshWorkerState({ data: new TwoTierStore(1) }), stimuli);
    });
    const replayed = violationOf(() => assertStimuli(counted, REPLAY));
    expect(runs).toBe(1);
    expect(replayed.message).toBe(failure.message);
  });

  it("docs/testing.md shows exactly this code and this error", () => {
    const source = read("./worked-example.test.ts");
    const begin = "// --- begin docs example ---\n";
    const example = source.slice(source.indexOf(begin) + begin.length, source.indexOf("// --- end docs example ---")).trimEnd();
    const doc = read("../../docs/testing.md");
    expect(doc).toContain("```ts\n" + example + "\n```");
    expect(doc).toContain("```text\n" + failure.message + "\n```");
  });
});
