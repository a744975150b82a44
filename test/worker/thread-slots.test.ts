// Thread slots are 0…nthreads-1, always (issue 12, item 1): a finishing task's slot is free
// for the task its done event starts, while its TaskFinishedMsg still reports that slot.
import { describe, expect, it } from "vitest";
import type { SpanRecord } from "../../src/spans/index.js";
import { ComputeTaskEvent, FreeKeysEvent, SecedeEvent, type TaskFinishedMsg } from "../../src/state/index.js";
import { makeCluster } from "./helpers.js";

const A = "127.0.0.1:1";

const model = (seconds: number) => ({ durations: { "thread-cpu": seconds }, outputBytes: 10 });

function setup(nthreads: number) {
  const records: SpanRecord[] = [];
  const cluster = makeCluster([A], { worker: { nthreads, onSpanRecord: (r) => records.push(r) } });
  const executeRecords = () => records.filter((r) => r.name[0] === "execute" && r.attributes["key"] !== undefined);
  return { ...cluster, ...cluster.workers[0]!, executeRecords };
}

/** Slot of each task from its root's `thread` attribute, by key. */
function slotsByKey(records: readonly SpanRecord[]): Map<string, unknown> {
  return new Map(records.map((r) => [r.attributes["key"] as string, r.attributes["thread"]]));
}

describe("thread slots", () => {
  it("a 1-thread worker runs a queue of tasks all on slot 0", async () => {
    const { clock, worker, outbox, errors, executeRecords } = setup(1);
    // both ready at once: the second starts while the first's done event is handled
    worker.handleStimulus(
      ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: model(1), priority: [0] }),
      ComputeTaskEvent({ key: "a-2", stimulusId: "c2", runSpec: model(1), priority: [1] }),
      ComputeTaskEvent({ key: "a-3", stimulusId: "c3", runSpec: model(1), priority: [2] }),
    );
    const seen: number[] = [];
    await clock.runUntilIdle({ onStep: () => void seen.push(...worker.threads.values()) });
    expect(errors).toEqual([]);
    const finished = outbox.filter((m): m is TaskFinishedMsg => m.kind === "TaskFinishedMsg");
    expect(finished.map((m) => [m.key, m.thread])).toEqual([
      ["a-1", 0],
      ["a-2", 0],
      ["a-3", 0],
    ]);
    expect([...slotsByKey(executeRecords())]).toEqual([
      ["a-1", 0],
      ["a-2", 0],
      ["a-3", 0],
    ]);
    expect(seen.every((slot) => slot === 0)).toBe(true);
    expect(worker.threads.size).toBe(0);
  });

  it("a 2-thread worker uses slots 0 and 1 only, and each TaskFinishedMsg reports its task's slot", async () => {
    const { clock, worker, outbox, errors, executeRecords } = setup(2);
    const durations = [3, 1, 1, 2, 1, 1, 2];
    worker.handleStimulus(
      ...durations.map((seconds, i) => ComputeTaskEvent({ key: `t-${i}`, stimulusId: `c${i}`, runSpec: model(seconds), priority: [i] })),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    const slots = slotsByKey(executeRecords());
    expect(slots.size).toBe(durations.length);
    for (const slot of slots.values()) expect([0, 1]).toContain(slot);
    const finished = outbox.filter((m): m is TaskFinishedMsg => m.kind === "TaskFinishedMsg");
    expect(finished).toHaveLength(durations.length);
    for (const message of finished) expect(message.thread).toBe(slots.get(message.key));
    // no slot runs two tasks at once
    const bySlot = new Map<unknown, Array<[number, number]>>();
    for (const r of executeRecords()) {
      const intervals = bySlot.get(r.attributes["thread"]) ?? [];
      intervals.push([r.startTime, r.endTime]);
      bySlot.set(r.attributes["thread"], intervals);
    }
    for (const intervals of bySlot.values()) {
      intervals.sort((x, y) => x[0] - y[0]);
      for (let i = 1; i < intervals.length; i++) expect(intervals[i]![0]).toBeGreaterThanOrEqual(intervals[i - 1]![1]);
    }
  });

  it("a task cancelled while it runs gives its slot back", async () => {
    const { clock, worker, errors, executeRecords } = setup(1);
    worker.handleStimulus(ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: model(2) }));
    await clock.run({ until: 1 });
    // released mid-run: the state forgets the key (and its thread entry) when the result comes back
    worker.handleStimulus(FreeKeysEvent({ keys: ["a-1"], stimulusId: "free" }));
    await clock.runUntilIdle();
    worker.handleStimulus(ComputeTaskEvent({ key: "b-1", stimulusId: "c2", runSpec: model(1) }));
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect([...slotsByKey(executeRecords())]).toEqual([
      ["a-1", 0],
      ["b-1", 0],
    ]);
    expect(worker.threads.size).toBe(0);
  });

  it("a seceded task leaves its slot to the task started in its place, and still reports the slot it ran on", async () => {
    const { clock, worker, outbox, errors, executeRecords } = setup(1);
    worker.handleStimulus(ComputeTaskEvent({ key: "long-1", stimulusId: "c1", runSpec: model(3) }));
    await clock.run({ until: 1 });
    // like dask's secede(): the thread leaves the pool, and a new task may run in its place
    worker.handleStimulus(
      SecedeEvent({ key: "long-1", computeDuration: 1, stimulusId: "secede" }),
      ComputeTaskEvent({ key: "short-1", stimulusId: "c2", runSpec: model(1) }),
      ComputeTaskEvent({ key: "short-2", stimulusId: "c3", runSpec: model(1) }),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect([...slotsByKey(executeRecords())].sort()).toEqual([
      ["long-1", 0],
      ["short-1", 0],
      ["short-2", 0],
    ]);
    const finished = outbox.filter((m): m is TaskFinishedMsg => m.kind === "TaskFinishedMsg");
    expect(finished.map((m) => [m.key, m.thread]).sort()).toEqual([
      ["long-1", 0],
      ["short-1", 0],
      ["short-2", 0],
    ]);
    expect(worker.threads.size).toBe(0);
  });
});
