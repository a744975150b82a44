import { describe, expect, it } from "vitest";
import { AddKeysMsg, RequestRefreshWhoHasMsg, TaskErredMsg, TaskFinishedMsg } from "../../src/state/index.js";
import { graphOf, harness } from "./scheduler-harness.js";

describe("Scheduler", () => {
  it("queues root-ish tasks beyond ceil(1.1 × threads) per worker, in priority order", () => {
    const tasks: Array<[string, string[]]> = Array.from({ length: 20 }, (_, i) => [`map-${i}`, []]);
    const { scheduler, flush, computes, finish } = harness(graphOf(tasks), 2, 2);
    scheduler.start();
    const first = flush().map(computes);
    expect(first.map((events) => events.map((e) => e.key))).toEqual([
      ["map-0", "map-10", "map-12"],
      ["map-1", "map-11", "map-13"],
    ]); // dask.order ranks independent roots by key, as Python compares strings: map-0, map-1, map-10, …
    finish(1, first[1]![0]!);
    const second = flush().map(computes);
    expect(second.map((events) => events.map((e) => e.key))).toEqual([[], ["map-14"]]);
  });

  it("sends a task to the worker holding most of its dependency bytes", () => {
    const graph = graphOf([
      ["big-0", [], 1000],
      ["small-0", [], 10],
      ["join-0", ["big-0", "small-0"]],
    ]);
    const { scheduler, flush, computes, finish } = harness(graph, 2);
    scheduler.start();
    const roots = flush().map(computes);
    // Not root-ish (groups of one): least loaded first, so big-0 → w0, small-0 → w1.
    expect(roots.map((events) => events.map((e) => e.key))).toEqual([["big-0"], ["small-0"]]);
    finish(0, roots[0]![0]!, 1000);
    finish(1, roots[1]![0]!, 10);
    const join = flush().map(computes);
    expect(join[1]).toEqual([]);
    expect(join[0]!.map((e) => [e.key, e.whoHas, e.nbytes])).toEqual([
      ["join-0", { "big-0": ["w0"], "small-0": ["w1"] }, { "big-0": 1000, "small-0": 10 }],
    ]);
  });

  it("frees a key once no dependent needs it and keeps the outputs", () => {
    const graph = graphOf([
      ["a-0", []],
      ["b-0", ["a-0"]],
      ["c-0", ["b-0"]],
    ]);
    const { scheduler, flush, computes, finish } = harness(graph, 1);
    scheduler.start();
    finish(0, computes(flush()[0]!)[0]!);
    const b = computes(flush()[0]!)[0]!;
    expect(b.key).toBe("b-0");
    finish(0, b);
    const afterB = flush()[0]!;
    expect(afterB.map((e) => e.kind)).toEqual(["FreeKeysEvent", "ComputeTaskEvent"]);
    expect(afterB[0]).toMatchObject({ keys: ["a-0"] });
    finish(0, computes(afterB)[0]!);
    expect(flush()[0]).toMatchObject([{ kind: "FreeKeysEvent", keys: ["b-0"] }]);
    expect(scheduler.done).toBe(true);
    expect([0, 1, 2].map((id) => scheduler.statusName(id))).toEqual(["released", "released", "memory"]);
  });

  it("errs the dependents of an erred task", () => {
    const graph = graphOf([
      ["a-0", []],
      ["b-0", ["a-0"]],
      ["c-0", ["b-0"]],
      ["d-0", []],
    ]);
    const { scheduler, flush, computes } = harness(graph, 1);
    scheduler.start();
    const [a, d] = computes(flush()[0]!);
    scheduler.handleMessage(0, TaskErredMsg({ key: a!.key, runId: a!.runId, exceptionText: "boom", stimulusId: "s" }));
    expect(scheduler.erred).toBe(3);
    expect(scheduler.unfinished).toBe(1);
    expect(scheduler.exceptionText.get(2)).toBe("dependency a-0 erred");
    scheduler.handleMessage(0, TaskFinishedMsg({ key: d!.key, runId: d!.runId, nbytes: 1, stimulusId: "s" }));
    expect(scheduler.done).toBe(true);
  });

  it("recomputes data lost with a dead worker and takes back the tasks that needed it", () => {
    const graph = graphOf([
      ["a-0", []],
      ["b-0", []],
      ["c-0", ["a-0", "b-0"]],
    ]);
    const { scheduler, flush, computes, finish } = harness(graph, 2);
    scheduler.start();
    const [w0, w1] = flush().map(computes);
    finish(0, w0![0]!, 10); // a-0 on w0
    finish(1, w1![0]!, 1000); // b-0 on w1
    const c = computes(flush()[1]!)[0]!;
    expect(c.key).toBe("c-0");
    scheduler.removeWorker(0);
    const after = flush();
    expect(after[0]).toEqual([]);
    // w1 learns that w0 is gone, drops c-0, and recomputes a-0 itself (the only worker left).
    expect(after[1]!.map((e) => e.kind)).toEqual(["RemoveWorkerEvent", "FreeKeysEvent", "ComputeTaskEvent"]);
    expect(after[1]![1]).toMatchObject({ keys: ["c-0"] });
    const again = computes(after[1]!)[0]!;
    expect(again.key).toBe("a-0");
    finish(1, again, 10);
    const c2 = computes(flush()[1]!)[0]!;
    expect([c2.key, c2.whoHas]).toEqual(["c-0", { "a-0": ["w1"], "b-0": ["w1"] }]);
    // A late answer to the first attempt is stale and ignored.
    finish(1, c, 1);
    expect(scheduler.statusName(2)).toBe("processing");
    finish(1, c2, 1);
    expect(scheduler.done).toBe(true);
  });

  it("errs a task whose workers keep dying under it (allowed-failures)", () => {
    const graph = graphOf([["a-0", []]]);
    const workers = 5;
    const { scheduler, flush, computes } = harness(graph, workers);
    scheduler.start();
    for (let death = 0; death < 4; death++) {
      const inbox = flush();
      const holder = inbox.findIndex((events) => computes(events).length > 0);
      scheduler.removeWorker(holder);
    }
    expect(scheduler.statusName(0)).toBe("erred");
    expect(scheduler.exceptionText.get(0)).toMatch(/^KilledWorker/);
  });

  it("answers refresh-who-has and rejects replicas it does not want", () => {
    const graph = graphOf([
      ["a-0", []],
      ["b-0", ["a-0"]],
    ]);
    const { scheduler, flush, computes, finish } = harness(graph, 2);
    scheduler.start();
    const a = computes(flush()[0]!)[0]!;
    finish(0, a);
    flush();
    scheduler.handleMessage(1, RequestRefreshWhoHasMsg({ keys: ["a-0", "nope"], stimulusId: "s" }));
    expect(flush()[1]).toMatchObject([{ kind: "RefreshWhoHasEvent", whoHas: { "a-0": ["w0"], nope: [] } }]);
    scheduler.handleMessage(1, AddKeysMsg({ keys: ["a-0"], stimulusId: "s" }));
    scheduler.handleMessage(1, RequestRefreshWhoHasMsg({ keys: ["a-0"], stimulusId: "s" }));
    expect(flush()[1]).toMatchObject([{ kind: "RefreshWhoHasEvent", whoHas: { "a-0": ["w0", "w1"] } }]);
  });
});
