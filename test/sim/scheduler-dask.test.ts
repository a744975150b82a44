// The dask policy against placements one can work out by hand from scheduler.md §4–§7, and
// dask's own test_steal.py::test_balance table.
import { describe, expect, it } from "vitest";
import { SCHEDULER_POLICIES, type PolicyFactory, type SchedulerPolicy } from "../../src/sim/scheduler/index.js";
import { AddKeysMsg } from "../../src/state/index.js";
import { graphOf, harness, withDepthFirstOrder } from "./scheduler-harness.js";

describe("dask placement: worker_objective", () => {
  // Depth-first priorities (withDepthFirstOrder: dask.order would rank b-0 first). a-0 (A bytes) lands on w0, b-0 (10 bytes) on w1; four x tasks need a-0, so they go to its
  // only holder w0, whose occupancy becomes 4 × 0.5 s (unknown prefix). join-0 needs both:
  // w0 starts it after 2 s of backlog, w1 after moving A bytes at 100 MB/s.
  function joinPlacement(aBytes: number): number {
    const graph = withDepthFirstOrder(
      graphOf([
        ["a-0", []],
        ["b-0", []],
        ["x-0", ["a-0"]],
        ["x-1", ["a-0"]],
        ["x-2", ["a-0"]],
        ["x-3", ["a-0"]],
        ["join-0", ["a-0", "b-0"]],
      ]),
    );
    const h = harness(graph, 2);
    h.scheduler.start();
    const [w0, w1] = h.flush().map(h.computes);
    expect([w0!.map((e) => e.key), w1!.map((e) => e.key)]).toEqual([["a-0"], ["b-0"]]);
    h.finish(0, w0![0]!, aBytes);
    expect(h.keysOf(h.flush())).toEqual([["x-0", "x-1", "x-2", "x-3"], []]);
    expect(h.scheduler.cluster.workers[0]!.occupancy).toBe(2);
    h.finish(1, w1![0]!, 10);
    return h.flush().findIndex((events) => h.computes(events).some((e) => e.key === "join-0"));
  }

  it("picks the less occupied worker when moving the bytes is cheap", () => {
    expect(joinPlacement(100e6)).toBe(1); // 1 s of transfer < 2 s of backlog
  });

  it("stays with the holder of the bytes when moving them costs more than the backlog", () => {
    expect(joinPlacement(300e6)).toBe(0); // 3 s of transfer > 2 s of backlog
  });

  it("sends a task whose dependencies are all on one worker there, however busy (one candidate)", () => {
    const graph = graphOf([["a-0", []], ...Array.from({ length: 6 }, (_, i): [string, string[]] => [`x-${i}`, ["a-0"]])]);
    const h = harness(graph, 3);
    h.scheduler.start();
    h.finish(0, h.computes(h.flush()[0]!)[0]!, 1);
    expect(h.keysOf(h.flush())).toEqual([["x-0", "x-1", "x-2", "x-3", "x-4", "x-5"], [], []]);
  });

  it("learns a prefix's duration from its first completion and counts it in occupancy", () => {
    // Two workers: a group of three is not root-ish (3 ≤ 2 × 2 threads), so all go to a-0's holder.
    const graph = graphOf([["a-0", []], ["x-0", ["a-0"]], ["x-1", ["a-0"]], ["x-2", ["a-0"]]]);
    const h = harness(graph, 2);
    h.scheduler.start();
    h.finish(0, h.computes(h.flush()[0]!)[0]!, 1, [0, 1]);
    const xs = h.computes(h.flush()[0]!);
    const cluster = h.scheduler.cluster;
    expect(cluster.workers[0]!.occupancy).toBe(1.5); // three x tasks of unknown duration
    h.finish(0, xs[0]!, 1, [1, 1.2]);
    expect(cluster.durationAverage(cluster.prefixOf(h.id("x-0")))).toBeCloseTo(0.2, 12);
    expect(cluster.workers[0]!.occupancy).toBeCloseTo(0.4, 12); // two left at 0.2 s each
    h.finish(0, xs[1]!, 1, [1.2, 1.6]);
    expect(cluster.durationAverage(cluster.prefixOf(h.id("x-0")))).toBeCloseTo(0.3, 12); // EMA 0.5 × 0.4 + 0.5 × 0.2
  });
});

describe("dask placement: a placed join's fetch counts on its worker until add-keys", () => {
  // Depth-first priorities, as above. The shuffle's joins (issue 15): the split-holder w0 is busy, so join-0 goes to w1 and w1's
  // occupancy gains join-0 (unknown prefix: 0.5 s) plus the 50 MB it must fetch (0.5 s at the
  // 100 MB/s estimate) until the worker's add-keys says the bytes landed (scheduler.md §4). a-0
  // on w0 feeds four x tasks (50 MB each; four is not root-ish on 2 threads, so all go to a-0's
  // holder); b-0 (10 MB) on w1; join-i needs x-i and b-0.
  function secondJoinPlacement(fetchLanded: boolean): [number, number] {
    const xs = Array.from({ length: 4 }, (_, i): [string, string[]] => [`x-${i}`, ["a-0"]]);
    const graph = withDepthFirstOrder(graphOf([["a-0", []], ["b-0", []], ...xs, ["join-0", ["x-0", "b-0"]], ["join-1", ["x-1", "b-0"]]]));
    const h = harness(graph, 2);
    h.scheduler.start();
    const [a, b] = h.flush().map((events) => h.computes(events)[0]!);
    h.finish(0, a!);
    h.finish(1, b!, 10e6);
    const computes = h.computes(h.flush()[0]!);
    // Placed best priority first (the depth-first ranks: x-2 and x-3 are sinks before join-0's subtree).
    expect(computes.map((e) => e.key)).toEqual(["x-2", "x-3", "x-0", "x-1"]);
    const x = ["x-0", "x-1"].map((key) => computes.find((e) => e.key === key));
    const where = (key: string): number => h.flush().findIndex((events) => h.computes(events).some((e) => e.key === key));
    const workers = h.scheduler.cluster.workers;
    // x learns 0.5 s: w0 has 3 × 0.5 = 1.5 s left and lacks b-0 (0.1 s); w1 lacks x-0 (0.5 s).
    h.finish(0, x[0]!, 50e6, [0, 0.5]);
    const first = where("join-0");
    expect(workers[1]!.occupancy).toBe(1); // join-0's 0.5 s + 50 MB / 100 MB/s still to fetch
    if (fetchLanded) {
      h.scheduler.handleMessage(1, AddKeysMsg({ keys: ["x-0"], stimulusId: "fetched" }));
      expect(workers[1]!.occupancy).toBe(0.5);
    }
    // w0: 2 × 0.5 + 0.1 = 1.1 s; w1: 1 s (in flight) or 0.5 s (landed), + 0.5 s for x-1.
    h.finish(0, x[1]!, 50e6, [0.5, 1]);
    return [first, where("join-1")];
  }

  it("sends the next join to the busy holder while the idle worker's fetch is in flight", () => {
    expect(secondJoinPlacement(false)).toEqual([1, 0]); // 1.1 s < 1.5 s
  });

  it("sends it to the idle worker once that fetch has landed", () => {
    expect(secondJoinPlacement(true)).toEqual([1, 1]); // 1.0 s < 1.1 s
  });
});

describe("dask placement: root-ish queuing", () => {
  const roots = (n: number): Array<[string, string[]]> => Array.from({ length: n }, (_, i) => [`map-${i}`, []]);

  it("fills ceil(1.1 × nthreads) slots per worker, then releases one task per freed slot", () => {
    const h = harness(graphOf(roots(20)), 2, 2);
    h.scheduler.start();
    const first = h.flush().map(h.computes);
    expect(first.map((events) => events.map((e) => e.key))).toEqual([
      ["map-0", "map-10", "map-12"],
      ["map-1", "map-11", "map-13"],
    ]); // dask.order ranks independent roots by key, as Python compares strings: map-0, map-1, map-10, …
    expect(h.scheduler.statusName(h.id("map-6"))).toBe("queued");
    h.finish(1, first[1]![0]!);
    expect(h.keysOf(h.flush())).toEqual([[], ["map-14"]]);
    h.finish(0, first[0]![0]!);
    h.finish(0, first[0]![1]!);
    expect(h.keysOf(h.flush())).toEqual([["map-15", "map-16"], []]);
  });

  it("pops the queue only after the stimuli dask pops it after", () => {
    // y-0 first: the depth-first priority then ranks map-0, y-0, map-1, map-2, …
    const graph = graphOf([["y-0", ["map-0"]], ...roots(10)]);
    const h = harness(graph, 1);
    h.scheduler.start();
    const [m0, m1] = h.computes(h.flush()[0]!);
    expect([m0!.key, m1!.key]).toEqual(["map-0", "map-1"]);
    // A slot opens (map-1 is taken back by the worker) but reschedule is not a popping stimulus.
    h.scheduler.handleMessage(0, { kind: "RescheduleMsg", op: "reschedule", key: "map-1", stimulusId: "r" } as never);
    expect(h.keysOf(h.flush())).toEqual([["map-1"]]); // placed again, by decide_worker, not from the queue
    h.scheduler.handleMessage(0, AddKeysMsg({ keys: ["map-0"], stimulusId: "s" }));
    expect(h.keysOf(h.flush())).toEqual([[]]);
  });

  it("places a finished root's dependent before releasing the next root", () => {
    const graph = graphOf([["y-0", ["map-0"]], ...roots(10)]);
    const h = harness(graph, 1);
    h.scheduler.start();
    const [m0] = h.computes(h.flush()[0]!);
    h.finish(0, m0!);
    expect(h.keysOf(h.flush())).toEqual([["y-0"]]); // y-0 took the freed slot: nothing released
  });

  it("places a batch of released tasks worst first (peekn into a LIFO dict)", () => {
    const h = harness(graphOf(roots(10)), 2);
    h.scheduler.start();
    const [a, b] = h.flush().map(h.computes);
    expect([a!.map((e) => e.key), b!.map((e) => e.key)]).toEqual([["map-0", "map-2"], ["map-1", "map-3"]]);
    h.scheduler.setPaused(1, true);
    h.finish(1, b![0]!);
    h.finish(1, b![1]!);
    expect(h.keysOf(h.flush())).toEqual([[], []]);
    h.scheduler.setPaused(1, false);
    expect(h.keysOf(h.flush())).toEqual([[], ["map-5", "map-4"]]);
  });

  it("does not treat a group that depends on itself as root-ish (a chain stays on its holder)", () => {
    const chain: Array<[string, string[]]> = Array.from({ length: 30 }, (_, i) => [`chain-${i}`, i === 0 ? [] : [`chain-${i - 1}`]]);
    const h = harness(graphOf(chain), 4);
    h.scheduler.start();
    let events = h.flush();
    for (let i = 0; i < 30; i++) {
      const holder = events.findIndex((e) => h.computes(e).length > 0);
      expect(holder).toBe(0);
      h.finish(holder, h.computes(events[holder]!)[0]!);
      events = h.flush();
    }
    expect(h.scheduler.done).toBe(true);
  });
});

/** The dask policy, except that tasks listed in `pins` go where the test says (like `workers=`). */
function pinned(pins: Map<number, number>): PolicyFactory {
  return (context) => {
    const inner: SchedulerPolicy = SCHEDULER_POLICIES.dask.create(context);
    return {
      decideWorker: (task, origin) => pins.get(task) ?? inner.decideWorker(task, origin),
      releaseQueued: (stimulus, queue) => inner.releaseQueued!(stimulus, queue),
      balance: () => inner.balance!(),
      balanceInterval: inner.balanceInterval!,
      onProcessing: (task, worker) => inner.onProcessing!(task, worker),
      onLeftProcessing: (task, worker, exit) => inner.onLeftProcessing!(task, worker, exit),
      onLongRunning: (task, worker) => inner.onLongRunning!(task, worker),
      onWorkerStatus: (worker, status) => inner.onWorkerStatus!(worker, status),
      onStealEnded: (task, victim, thief, outcome) => inner.onStealEnded!(task, victim, thief, outcome),
    };
  };
}

/**
 * test_steal.py::assert_balanced: on 1-thread workers, worker w runs tasks whose inputs take
 * inp[w][j] seconds to move (0: no input), 1 s each (default-task-durations); the first task of
 * each worker is executing, the rest wait. Up to 10 balance() rounds, every request answered
 * by the worker's state, then the tasks on each worker as `int(transfer seconds)`.
 */
function balanced(inp: number[][], answer: (worker: number, key: string, state: string) => string = (_w, _k, state) => state, seed = 1) {
  const tasks: Array<[string, string[], number?]> = [];
  const pinsByKey = new Map<string, number>();
  let counter = 0;
  inp.forEach((times, w) => {
    for (const t of [...times].sort((a, b) => b - a)) {
      const i = counter++;
      const key = `${Math.trunc(t)}-${i}`;
      if (t > 0) {
        tasks.push([`data-${i}`, [], t * 100e6]);
        pinsByKey.set(`data-${i}`, w);
        tasks.push([key, [`data-${i}`]]);
      } else {
        tasks.push([key, []]);
      }
      pinsByKey.set(key, w);
    }
  });
  const graph = graphOf(tasks);
  const pins = new Map([...pinsByKey].map(([key, w]) => [graph.idOf(key)!, w]));
  const h = harness(graph, inp.length, 1, { clock: true, seed, policy: { name: "pinned-dask", create: pinned(pins) } });
  const cluster = h.scheduler.cluster;
  for (let p = 0; p < cluster.prefixNames.length; p++) if (/^\d$/.test(cluster.prefixNames[p]!)) cluster.addDuration(p, "compute", 0, 1);
  // The workers: one thread each, taken by the first task submitted to it (the best priority);
  // a stolen task starts on its thief if that thread is free, else waits ("ready").
  const state = new Map<string, string>();
  const executing = new Set<number>();
  const first = new Set<string>();
  for (const [key, w] of pinsByKey) if (!key.startsWith("data-") && ![...first].some((k) => pinsByKey.get(k) === w)) first.add(key);
  for (const key of first) executing.add(pinsByKey.get(key)!);
  const deliver = (events: ReturnType<typeof h.flush>): void => {
    events.forEach((inbox, w) => {
      for (const compute of h.computes(inbox)) {
        if (compute.key.startsWith("data-")) {
          h.finish(w, compute, graph.nbytes[graph.idOf(compute.key)!]);
        } else if (first.has(compute.key)) {
          state.set(compute.key, "executing");
        } else if (!executing.has(w)) {
          executing.add(w);
          state.set(compute.key, "executing");
        } else {
          state.set(compute.key, "ready");
        }
      }
      for (const request of h.stealRequests(inbox)) {
        const answered = answer(w, request.key, state.get(request.key) ?? "released");
        if (answered === "ready" || answered === "waiting") state.delete(request.key);
        h.answerSteal(w, request, answered);
      }
    });
  };
  h.scheduler.start();
  for (let events = h.flush(); events.some((e) => e.length > 0); events = h.flush()) deliver(events);
  const result = (): number[][] =>
    cluster.workers
      .map((ws) => [...ws.processing].map((task) => Number(graph.keys[task]!.split("-")[0])).sort((a, b) => b - a))
      .sort(compareLists);
  const rounds: number[][][] = [];
  for (let round = 1; round <= 10; round++) {
    h.advance(round * 0.1);
    for (let events = h.flush(); events.some((e) => e.length > 0); events = h.flush()) deliver(events);
    rounds.push(result());
  }
  return { result: result(), rounds, steals: h.scheduler.steals, h };
}

function compareLists(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return b[i]! - a[i]!;
  return b.length - a.length;
}

const sorted = (lists: number[][]): number[][] => lists.map((l) => [...l].sort((a, b) => b - a)).sort(compareLists);

describe("dask work stealing: test_steal.py::test_balance", () => {
  const table: Array<[string, number[][], number[][]]> = [
    ["don't move unnecessarily", [[1], []], [[1], []]],
    ["balance", [[0, 0], []], [[0], [0]]],
    ["balance even if results in even", [[0.1, 0.1], []], [[0], [0]]],
    ["don't over balance", [[0, 0, 0], []], [[0, 0], [0]]],
    ["move from larger", [[0, 0], [0, 0, 0], []], [[0, 0], [0, 0], [0]]],
    ["move to smaller", [[0, 0, 0], [0], []], [[0, 0], [0], [0]]],
    ["choose easier first", [[0, 1], []], [[1], [0]]],
    ["spread evenly", [[0, 0, 0, 0], [], []], [[0, 0], [0], [0]]],
    ["move easier", [[1, 0, 2, 0], [], []], [[2, 1], [0], [0]]],
    ["be willing to move costly items", [[1, 1, 1], []], [[1, 1], [1]]],
    ["but don't move too many", [[1, 1, 1, 1], []], [[1, 1, 1], [1]]],
    ["no one clearly saturated", [[0, 0], [0, 0], [0, 0], []], [[0, 0], [0, 0], [0], [0]]],
    ["balance multiple saturated workers", [[4, 2, 2, 2, 2, 1, 1], [4, 2, 1, 1], [], [], []], [[4, 2, 2, 2], [4, 2, 1, 1], [2], [1], [1]]],
  ];
  for (const [name, inp, expected] of table) {
    it(name, () => {
      const { rounds } = balanced(inp);
      // dask's test stops at the first round that matches; later rounds must not undo it either.
      expect(rounds.some((r) => JSON.stringify(r) === JSON.stringify(sorted(expected)))).toBe(true);
      expect(rounds.at(-1)).toEqual(sorted(expected));
    });
  }
});

describe("dask work stealing: the transaction", () => {
  it("idle workers steal from a saturated one; its executing task is refused when asked for", () => {
    for (let seed = 1; seed <= 8; seed++) {
      const { result, steals, h } = balanced([[0, 0, 0, 0], [], []], undefined, seed);
      expect(result).toEqual([[0, 0], [0], [0]]);
      const keys = (outcome: string) => steals.events.filter((e) => e.outcome === outcome).map((e) => h.scheduler.cluster.graph.keys[e.task]);
      expect(keys("rejected")).toEqual(keys("rejected").length === 0 ? [] : ["0-0"]); // 0-0 holds the thread
      expect(keys("confirmed")).toHaveLength(2);
      expect(steals.counts.requested).toBe(steals.counts.confirmed + steals.counts.rejected);
    }
  });

  it("tries a victim's tasks in a seeded arbitrary order (Python's hash order), not in the order they were assigned", () => {
    // In assignment order the victim's oldest task, the one its thread is executing, would be
    // asked for first on every seed, and refused.
    const firstAsked = (seed: number): string[] => {
      const { steals, h } = balanced([[0, 0, 0, 0, 0, 0], [], []], undefined, seed);
      return steals.events.map((e) => h.scheduler.cluster.graph.keys[e.task]!);
    };
    const orders = Array.from({ length: 12 }, (_, i) => firstAsked(i + 1));
    expect(new Set(orders.map((keys) => keys[0])).size).toBeGreaterThan(2);
    expect(orders.filter((keys) => keys[0] === "0-0").length).toBeLessThan(6);
    expect(firstAsked(3)).toEqual(orders[2]); // fixed for a seed
  });

  it("a steal of a task that already started is rejected, and the task stays for good", () => {
    // The victim answers "executing" for 0-1 (as if its thread had picked it up meanwhile).
    const { result, steals, h } = balanced([[0, 0, 0], []], (_w, key, state) => (key === "0-1" ? "executing" : state));
    const asked = steals.events.filter((e) => e.task === h.id("0-1"));
    expect(asked.map((e) => e.outcome)).toEqual(["rejected"]); // asked once, never again
    expect(h.scheduler.workerOf(h.id("0-1"))).toBe(0);
    expect(h.scheduler.workerOf(h.id("0-2"))).toBe(1);
    expect(result).toEqual([[0, 0], [0]]);
  });

  it("a task the victim no longer knows is placed again (rescheduled)", () => {
    let answers = 0;
    const { steals, h } = balanced([[0, 0], []], (_w, _key, state) => (answers++ === 0 ? "released" : state));
    const outcomes = steals.events.map((e) => e.outcome);
    expect(outcomes[0]).toBe("rescheduled");
    expect(outcomes.at(-1)).toBe("confirmed");
    expect(h.scheduler.workerOf(steals.events[0]!.task)).toBe(0); // placed again (on its pin, w0)
    expect(h.scheduler.workerOf(h.id("0-1"))).toBe(1); // 0-0 holds w0's thread: 0-1 is the one that moves
    const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
    expect(steals.counts).toEqual({ requested: outcomes.length, confirmed: 1, rejected: count("rejected"), rescheduled: 1, aborted: count("aborted") });
    expect(steals.unanswered).toBe(0);
  });

  it("balance never runs while nothing is processing (the clock can go idle)", () => {
    const graph = graphOf([["a-0", []]]);
    const h = harness(graph, 2, 1, { clock: true });
    h.scheduler.start();
    const [a] = h.computes(h.flush()[0]!);
    h.advance(0.35);
    h.finish(0, a!);
    h.advance(5);
    expect(h.pendingTimers()).toBe(0);
    expect(h.scheduler.done).toBe(true);
  });

  it("stealing=false turns it off", () => {
    const graph = graphOf([["0-0", []], ["0-1", []], ["0-2", []]]);
    const h = harness(graph, 2, 1, { clock: true, policy: "dask:stealing=false" });
    expect(h.scheduler.policyOptions).toMatchObject({ stealing: false });
    h.scheduler.start();
    h.flush();
    h.advance(1);
    expect(h.scheduler.steals.counts.requested).toBe(0);
  });
});
