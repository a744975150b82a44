// The dask policy's active memory manager (dask 2022.12.1 ReduceReplicas, every 2 s), against
// drops worked out by hand from active_memory_manager.py: ndrop = holders − max(1, waiters,
// those processing counted once per worker), never from a worker where a waiter is processing,
// otherwise from the holder storing the most.
import { describe, expect, it } from "vitest";
import { NO_WORKER, type PolicyFactory } from "../../src/sim/scheduler/index.js";
import { AddKeysMsg, type RemoveReplicasEvent, type StateMachineEvent } from "../../src/state/index.js";
import { graphOf, harness, withDepthFirstOrder } from "./scheduler-harness.js";

const removals = (events: StateMachineEvent[][]): string[][] =>
  events.map((e) => e.filter((x): x is RemoveReplicasEvent => x.kind === "RemoveReplicasEvent").flatMap((x) => [...x.keys]));

describe("dask active memory manager: ReduceReplicas", () => {
  // Depth-first priorities (a-0 before c-0; dask.order would rank c-0 first), so that
  // a-0 runs on w0 (60 B) and w1 reports a copy (add-keys, as after a fetch); c-0 (1000 B) runs
  // on w1. x-0 needs a-0 only, so it goes to a-0's holder w0; y-0 needs a-0 and c-0.
  function replicated(policy = "dask") {
    const graph = withDepthFirstOrder(graphOf([["a-0", []], ["c-0", []], ["x-0", ["a-0"]], ["y-0", ["a-0", "c-0"]]]));
    const h = harness(graph, 2, 1, { clock: true, policy });
    h.scheduler.start();
    const [w0, w1] = h.flush().map(h.computes);
    expect([w0!.map((e) => e.key), w1!.map((e) => e.key)]).toEqual([["a-0"], ["c-0"]]);
    h.finish(0, w0![0]!, 60);
    const x = h.computes(h.flush()[0]!);
    expect(x.map((e) => e.key)).toEqual(["x-0"]);
    h.scheduler.handleMessage(1, AddKeysMsg({ keys: ["a-0"], stimulusId: "fetched" }));
    expect(h.scheduler.cluster.whoHas(h.id("a-0"))).toEqual([0, 1]);
    return { h, x: x[0]!, c: w1![0]! };
  }

  it("keeps both copies while a waiter processes on one worker and another is not placed (two waiters)", () => {
    const { h } = replicated();
    h.advance(2);
    expect(removals(h.flush())).toEqual([[], []]);
    expect(h.scheduler.cluster.whoHas(h.id("a-0"))).toEqual([0, 1]);
  });

  it("drops the copy on the worker storing the most once one unplaced waiter is left", () => {
    const { h, x } = replicated();
    h.finish(0, x, 100); // w0 now stores a-0 + x-0 = 160 B, w1 a-0 = 60 B (c-0 still running)
    h.flush();
    h.advance(2);
    expect(removals(h.flush())).toEqual([["a-0"], []]);
    expect(h.scheduler.cluster.whoHas(h.id("a-0"))).toEqual([1]);
  });

  it("never drops the copy where a waiter is processing, even from the worker storing less", () => {
    const { h, x, c } = replicated();
    h.finish(1, c, 1000); // y-0 is ready: both hold a-0, w1 holds c-0 (1000 B), so y-0 goes to w1
    const y = h.computes(h.flush()[1]!);
    expect(y.map((e) => e.key)).toEqual(["y-0"]);
    h.advance(2); // waiters x-0 on w0 and y-0 on w1: two workers, two copies kept
    expect(removals(h.flush())).toEqual([[], []]);
    h.finish(0, x, 100); // the only waiter left, y-0, processes on w1: w0's copy goes, though w0 stores less
    h.flush();
    h.advance(4);
    expect(removals(h.flush())).toEqual([["a-0"], []]);
    expect(h.scheduler.cluster.whoHas(h.id("a-0"))).toEqual([1]);
  });

  it("amm=false, and policies other than dask, keep every copy", () => {
    for (const policy of ["dask:amm=false", "locality"]) {
      const { h, x } = replicated(policy);
      h.finish(0, x, 100);
      h.flush();
      h.advance(2);
      expect(removals(h.flush())).toEqual([[], []]);
      expect(h.scheduler.cluster.whoHas(h.id("a-0"))).toEqual([0, 1]);
    }
  });

  it("runs every amm-interval seconds", () => {
    const { h, x } = replicated("dask:amm-interval=0.5");
    h.finish(0, x, 100);
    h.flush();
    h.advance(0.5);
    expect(removals(h.flush())).toEqual([["a-0"], []]);
  });

  it("a policy's reduceReplicasInterval that is not a number of seconds > 0 is its error, named", () => {
    const graph = graphOf([["a-0", []]]);
    for (const interval of [0, -1, Number.NaN]) {
      const create: PolicyFactory = () => ({ decideWorker: () => NO_WORKER, reduceReplicasInterval: interval });
      expect(() => harness(graph, 1, 1, { clock: true, policy: { name: "mine", create } })).toThrow(
        /scheduler policy "mine": reduceReplicasInterval: .* is not a number of seconds > 0/,
      );
    }
  });
});
