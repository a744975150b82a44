// The STATE implementation's own checks of its documented deviations from dask
// (docs/state.md) and of implementation details the contract leaves open.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  AddKeysMsg,
  ComputeTaskEvent,
  DigestMetric,
  Execute,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDep,
  GatherDepSuccessEvent,
  PrioritySet,
  RemoveReplicasEvent,
  SharedSlotPrioritySet,
  SlotPrioritySet,
  UpdateDataEvent,
  WorkerState,
  keySplit,
  type DataStore,
} from "../../src/state/index.js";
import type { SpanRecord } from "../../src/spans/index.js";

const W2 = "127.0.0.1:2";

function state(options: ConstructorParameters<typeof WorkerState>[0] = {}): WorkerState {
  return new WorkerState({ address: "127.0.0.1:1", nthreads: 1, ...options });
}

describe("keySplit", () => {
  it.each([
    ["x", "x"],
    ["x-1", "x"],
    ["x-1-2-3", "x"],
    ["('x-2', 1)", "x"],
    ["('z-123', 0)", "z"],
    ["hello-world-1", "hello-world"],
    ["ae05086432ca935f6eba409a8ecd4896", "data"],
    ["<module.submodule.myclass object at 0xdaf372", "myclass"],
    ["x-abcdefab", "x"],
    ["_(x)", "x"],
    ["x-", "x"],
    ["", "Other"],
    ["()", "Other"],
  ])("%j → %j", (key, prefix) => {
    expect(keySplit(key)).toBe(prefix);
  });
});

describe("PrioritySet", () => {
  it("pops by priority, ties oldest first, and a re-added item takes its new rank", () => {
    const items = new Map<string, number[]>([
      ["a", [1]],
      ["b", [1]],
      ["c", [0, 5]],
      ["d", [0]],
    ]);
    const set = new PrioritySet<string>((item) => items.get(item) ?? null);
    for (const item of ["a", "b", "c", "d"]) set.add(item);
    expect(set.sorted()).toEqual(["d", "c", "a", "b"]);
    set.discard("a");
    set.add("a"); // dask's HeapSet would let the stale entry win the tie with b
    expect([...set]).toEqual(["d", "c", "b", "a"]);
    expect(set.pop()).toBe("d");
    expect(() => set.remove("zzz")).toThrow(/not in the set/);
    expect(set.size).toBe(3);
  });
});

/** A deterministic draw in [0, n) (a linear congruential generator). */
function seededRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}

class Slotted {
  _queue: object | null = null;
  _queueSeq = 0;
  constructor(readonly id: number) {}
  toString(): string {
    return `item ${this.id}`;
  }
}

describe.each([
  ["PrioritySet", (priorityOf: (item: Slotted) => number[] | null) => new PrioritySet<Slotted>(priorityOf)],
  ["SlotPrioritySet", (priorityOf: (item: Slotted) => number[] | null) => new SlotPrioritySet<Slotted>(priorityOf)],
])("%s against a sorted-list model", (_name, makeSet) => {
  it("agrees on pop order under random add/discard/pop, with items moving between two sets", () => {
    const random = seededRandom(12345);
    const items = Array.from({ length: 200 }, (_, i) => new Slotted(i));
    const priorities = new Map<Slotted, number[]>();
    const priorityOf = (item: Slotted): number[] | null => priorities.get(item) ?? null;
    // Two sets, like ready and constrained: an item is in at most one of them.
    const sets = [makeSet(priorityOf), makeSet(priorityOf)];
    type Entry = { item: Slotted; priority: number[]; seq: number };
    const models: Entry[][] = [[], []];
    let seq = 0;
    const compare = (a: number[], b: number[]): number => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
      return a.length - b.length;
    };
    const byRank = (a: Entry, b: Entry): number => compare(a.priority, b.priority) || a.seq - b.seq;
    for (let step = 0; step < 8000; step++) {
      const op = random(10);
      const item = items[random(items.length)] as Slotted;
      const which = random(2);
      const set = sets[which]!;
      if (op < 5) {
        if (!sets[0]!.has(item) && !sets[1]!.has(item)) {
          const priority = Array.from({ length: 1 + random(3) }, () => random(4));
          priorities.set(item, priority);
          set.add(item);
          models[which]!.push({ item, priority, seq: seq++ });
        }
      } else if (op < 8) {
        expect(set.discard(item)).toBe(models[which]!.some((e) => e.item === item));
        models[which] = models[which]!.filter((e) => e.item !== item);
      } else {
        models[which]!.sort(byRank);
        expect(set.pop()).toBe(models[which]!.shift()?.item);
      }
      for (const w of [0, 1]) {
        expect(sets[w]!.size).toBe(models[w]!.length);
        expect(sets[w]!.peek()).toBe([...models[w]!].sort(byRank)[0]?.item);
      }
    }
    for (const w of [0, 1]) {
      models[w]!.sort(byRank);
      expect(sets[w]!.sorted()).toEqual(models[w]!.map((e) => e.item));
      sets[w]!.clear();
      expect(sets[w]!.size).toBe(0);
    }
    // After clear() every item can join either set again.
    for (const item of items) sets[item.id % 2]!.add(item);
    expect(sets[0]!.size + sets[1]!.size).toBe(items.length);
  });

  it("stays exact when it empties over and over (a chain's ready queue reuses its arrays)", () => {
    // Rising priorities keep every entry in the sorted run; the queue empties every few
    // steps, for more than the 1024 slots an emptied run keeps.
    const items = Array.from({ length: 4 }, (_, i) => new Slotted(i));
    const priorities = new Map<Slotted, number[]>();
    const set = makeSet((item) => priorities.get(item) ?? null);
    let next = 0;
    let popped = 0;
    for (let round = 0; round < 3000; round++) {
      const batch = items.slice(0, 1 + (round % items.length));
      for (const item of batch) {
        priorities.set(item, [0, next++]);
        set.add(item);
      }
      expect(set.sorted()).toEqual(batch);
      if (round % 3 === 0) {
        for (const item of [...batch].reverse()) expect(set.discard(item)).toBe(true);
      } else {
        for (const item of batch) expect(set.pop()).toBe(item);
        popped += batch.length;
      }
      expect(set.size).toBe(0);
      expect(set.peek()).toBeUndefined();
      expect(set.pop()).toBeUndefined();
      expect([...set]).toEqual([]);
    }
    expect(popped).toBeGreaterThan(2000);
  });
});

describe("SlotPrioritySet", () => {
  it("refuses an item that another slot queue holds, and keeps its own state intact", () => {
    const a = new SlotPrioritySet<Slotted>(() => [0]);
    const b = new SlotPrioritySet<Slotted>(() => [0]);
    const item = new Slotted(1);
    a.add(item);
    expect(() => b.add(item)).toThrow(/item 1 is already in another queue/);
    expect(b.size).toBe(0);
    expect(a.has(item) && !b.has(item)).toBe(true);
    expect(b.discard(item)).toBe(false);
    expect(a.pop()).toBe(item);
    b.add(item);
    expect(b.has(item)).toBe(true);
  });
});

describe("logs", () => {
  it("are bounded rings whose entries end with the stimulus id and sequence number", () => {
    const ws = state({ logLength: 3 });
    ws.handleStimulus(UpdateDataEvent({ data: { a: 1 }, stimulusId: "s1" }));
    ws.handleStimulus(UpdateDataEvent({ data: { b: 2 }, stimulusId: "s2" }));
    expect(ws.log).toHaveLength(3);
    expect(ws.log.at(-1)).toEqual(["b", "released", "memory", "memory", {}, "s2", 2]);
    expect(ws.stimulusLog.map((ev) => ev.stimulusId)).toEqual(["s1", "s2"]);
    // bulky payloads are stripped from the stimulus log
    expect(ws.stimulusLog[0]).toMatchObject({ kind: "UpdateDataEvent", data: { a: null } });
  });
});

describe("a data store that throws on set", () => {
  it("turns the write into an error and a TaskErredMsg, leaving nothing in memory", () => {
    const backing = new Map<string, unknown>();
    const data: DataStore = {
      has: (key) => backing.has(key),
      get: (key) => backing.get(key),
      set: () => {
        throw new Error("cannot pickle");
      },
      delete: (key) => backing.delete(key),
      get size() {
        return backing.size;
      },
      keys: () => backing.keys(),
    };
    const ws = state({ data });
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s1" }));
    const out = ws.handleStimulus(ExecuteSuccessEvent({ key: "x", runId: 0, value: 42, stimulusId: "s2" }));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ kind: "TaskErredMsg", key: "x", runId: 0, exceptionText: "Error: cannot pickle", stimulusId: "s2" });
    expect(ws.tasks.get("x")?.state).toBe("error");
    expect(ws.nbytes).toBe(0);
    ws.validateState();
  });
});

describe("DigestMetric placement", () => {
  it("follows the handler's own instructions and precedes the transitions' ones", () => {
    const span: SpanRecord = Object.freeze({
      name: ["execute", "x"],
      startTime: 0,
      endTime: 2,
      attributes: {},
      metrics: {},
      children: [],
    });
    const ws = state({ nthreads: 1 });
    ws.handleStimulus(ComputeTaskEvent({ key: "x", priority: [0], stimulusId: "s1" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "y", priority: [1], stimulusId: "s2" }));
    const out = ws.handleStimulus(ExecuteSuccessEvent({ key: "x", runId: 0, value: 1, span, stimulusId: "done" }));
    expect(out.map((i) => i.kind)).toEqual(["DigestMetric", "TaskFinishedMsg", "Execute"]);
    expect(out[0]).toEqual(DigestMetric({ name: ["execute", "x", "other", "seconds"], value: 2, stimulusId: "done" }));
    expect(out[1]).toMatchObject({ kind: "TaskFinishedMsg", key: "x", runId: 0, stimulusId: "done" });
    expect(out[2]).toEqual(Execute({ key: "y", stimulusId: "done" }));
  });
});

describe("avoided dask bugs", () => {
  it("§18.1: error → waiting with a released dependency recomputes instead of raising RecommendationsConflict", () => {
    const ws = state();
    // x depends on d (fetched), then fails; d is freed meanwhile and stays released
    ws.handleStimulus(ComputeTaskEvent({ key: "x", whoHas: { d: [W2] }, stimulusId: "s1" }));
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { d: "v" }, stimulusId: "s2" }));
    ws.handleStimulus(ExecuteFailureEvent({ key: "x", runId: 0, stimulusId: "s3" }));
    ws.handleStimulus(FreeKeysEvent({ keys: ["d"], stimulusId: "s4" }));
    expect(ws.tasks.get("d")?.state).toBe("released");
    const out = ws.handleStimulus(ComputeTaskEvent({ key: "x", whoHas: { d: [W2] }, stimulusId: "retry" }));
    expect(out).toEqual([GatherDep({ worker: W2, toGather: ["d"], totalNbytes: 1, stimulusId: "retry" })]);
    expect(ws.tasks.get("x")?.state).toBe("waiting");
    ws.validateState();
  });

  it("§18.5: a gather result for a key scattered and forgotten meanwhile is ignored, not a crash", () => {
    const ws = state();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { d: [W2] }, nbytes: { d: 1 }, stimulusId: "s1" }));
    expect(ws.tasks.get("d")?.state).toBe("flight");
    ws.handleStimulus(UpdateDataEvent({ data: { d: "scattered" }, stimulusId: "scatter" }));
    expect(ws.tasks.get("d")?.state).toBe("memory");
    ws.handleStimulus(FreeKeysEvent({ keys: ["d"], stimulusId: "free" }));
    expect(ws.tasks.has("d")).toBe(false);
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { d: "late" }, stimulusId: "late" }))).toEqual([]);
    expect(ws.inFlightWorkers.size).toBe(0);
    expect(ws.transferIncomingBytes).toBe(0);
    ws.validateState();
  });

  it("a scattered value wins over a gather still in flight, whose answer is discarded", () => {
    const ws = state();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", whoHas: { d: [W2] }, stimulusId: "s1" }));
    ws.handleStimulus(UpdateDataEvent({ data: { d: "scattered" }, stimulusId: "scatter" }));
    ws.validateState();
    const out = ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { d: "late" }, stimulusId: "late" }));
    expect(out).not.toContainEqual(AddKeysMsg({ keys: ["d"], stimulusId: "late" }));
    expect(ws.data.get("d")).toBe("scattered");
    ws.validateState();
  });

  it("§17.5: dataNeeded never keeps empty heaps and hasWhat never keeps empty sets", () => {
    const ws = state();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { d: [W2], e: [W2] }, nbytes: { d: 1, e: 1 }, stimulusId: "s1" }));
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 2, data: { d: 1, e: 2 }, stimulusId: "s2" }));
    ws.handleStimulus(FreeKeysEvent({ keys: ["d", "e"], stimulusId: "s3" }));
    expect(ws.dataNeeded.size).toBe(0);
    expect(ws.hasWhat.size).toBe(0);
    expect(ws.tasks.size).toBe(0);
  });
});

describe("a rejected event", () => {
  it("leaves no pending recommendation behind for the next stimulus", () => {
    const ws = state({ nthreads: 1 });
    ws.handleStimulus(UpdateDataEvent({ data: { a: 1, b: 2 }, stimulusId: "s1" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "x", whoHas: { a: [W2] }, stimulusId: "s2" }));
    expect(ws.tasks.get("x")?.state).toBe("executing");
    // b can go, a cannot (its dependent is executing): the handler throws after queuing b
    expect(() => ws.handleStimulus(RemoveReplicasEvent({ keys: ["b", "a"], stimulusId: "rr" }))).toThrow(/Cannot remove replica of "a"/);
    expect(ws.tasks.get("b")?.state).toBe("memory");
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "x", runId: 0, value: 3, stimulusId: "s3" }))).toEqual([
      expect.objectContaining({ kind: "TaskFinishedMsg", key: "x" }),
    ]);
    expect(ws.tasks.get("b")?.state).toBe("memory");
    ws.validateState();
  });
});

describe("SharedSlotPrioritySet", () => {
  it("agrees with a model when items sit in several sets at once, and frees the slot for a SlotPrioritySet", () => {
    const random = seededRandom(777);
    const items = Array.from({ length: 60 }, (_, i) => new Slotted(i));
    const priorities = new Map<Slotted, number[]>(items.map((item) => [item, [random(5), item.id]]));
    const priorityOf = (item: Slotted): number[] | null => priorities.get(item) ?? null;
    const heaps = [0, 1, 2].map(() => new SharedSlotPrioritySet<Slotted>(priorityOf));
    const models = heaps.map(() => new Set<Slotted>());
    const exclusive = new SlotPrioritySet<Slotted>(priorityOf);
    const rank = (a: Slotted, b: Slotted): number => {
      const [x, y] = [priorityOf(a)!, priorityOf(b)!];
      return (x[0]! - y[0]!) || (x[1]! - y[1]!);
    };
    for (let step = 0; step < 6000; step++) {
      const h = random(3);
      const item = items[random(items.length)]!;
      const op = random(10);
      if (op < 5) {
        heaps[h]!.add(item);
        models[h]!.add(item);
      } else if (op < 8) {
        expect(heaps[h]!.discard(item)).toBe(models[h]!.delete(item));
      } else if (op < 9) {
        const top = [...models[h]!].sort(rank)[0];
        expect(heaps[h]!.pop()).toBe(top);
        if (top !== undefined) models[h]!.delete(top);
      } else {
        heaps[h]!.clear();
        models[h]!.clear();
      }
      for (let i = 0; i < 3; i++) {
        expect(heaps[i]!.size).toBe(models[i]!.size);
        expect(heaps[i]!.has(item)).toBe(models[i]!.has(item));
      }
      // An item in none of the shared sets can always join an exclusive slot queue.
      if (models.every((model) => !model.has(item))) {
        exclusive.add(item);
        expect(exclusive.pop()).toBe(item);
      }
    }
    for (let i = 0; i < 3; i++) expect(heaps[i]!.sorted()).toEqual([...models[i]!].sort(rank));
  });
});
