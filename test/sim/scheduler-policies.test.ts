// The other built-in policies, the registry and option parsing, user policy modules, and what
// happens when a policy misbehaves.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  NO_WORKER,
  PolicyError,
  PolicySelectionError,
  SCHEDULER_POLICY_NAMES,
  blevelPlan,
  bottomLevels,
  loadPolicy,
  resolvePolicy,
  SCHEDULER_POLICIES,
  type PolicyFactory,
} from "../../src/sim/scheduler/index.js";
import { graphOf, harness } from "./scheduler-harness.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const independent = (n: number): Array<[string, string[]]> => Array.from({ length: n }, (_, i) => [`t-${i}`, []]);

describe("the policy registry", () => {
  it("lists the built-in policies in order, dask first, each with a description", () => {
    expect(SCHEDULER_POLICY_NAMES).toEqual(["dask", "locality", "random", "round-robin", "blevel"]);
    for (const name of SCHEDULER_POLICY_NAMES) expect(SCHEDULER_POLICIES[name].description).toMatch(/\w{4}/);
  });

  it("parses NAME:key=value options, types them and fills defaults", () => {
    expect(resolvePolicy().name).toBe("dask");
    expect({ ...resolvePolicy("dask:stealing=false").options }).toEqual({ stealing: false, "stealing-interval": 0.1, amm: true, "amm-interval": 2 });
    expect({ ...resolvePolicy("dask:worker-saturation=inf,stealing-interval=1").options }).toEqual({
      stealing: true,
      "stealing-interval": 1,
      "worker-saturation": Infinity,
      amm: true,
      "amm-interval": 2,
    });
    expect({ ...resolvePolicy({ name: "dask", options: { stealing: false } }).options }).toMatchObject({ stealing: false });
  });

  it("names the problem of a bad selection in one line", () => {
    const problem = (selection: Parameters<typeof resolvePolicy>[0]) => () => resolvePolicy(selection);
    expect(problem("nope")).toThrow(/^unknown scheduler policy "nope" \(known: dask, locality, random, round-robin, blevel, or a path/);
    expect(problem("__proto__")).toThrow(PolicySelectionError);
    expect(problem("dask:stealing=maybe")).toThrow(/option stealing: expected true or false, got "maybe"/);
    expect(problem("dask:speed=1")).toThrow(/has no option "speed" \(options: stealing, stealing-interval, worker-saturation, amm, amm-interval\)/);
    expect(problem("random:x=1")).toThrow(/has no option "x" \(it takes none\)/);
    expect(problem("dask:stealing")).toThrow(/expected key=value, got "stealing"/);
    expect(problem("dask:stealing-interval=0")).toThrow(/expected a positive number/);
    expect(problem("./mine.ts")).toThrow(/load it with loadPolicy first/);
  });
});

describe("baseline policies", () => {
  it("round-robin: ready tasks to the running workers in turn, nothing queued", () => {
    const h = harness(graphOf(independent(7)), 3, 1, { policy: "round-robin" });
    h.scheduler.start();
    expect(h.keysOf(h.flush())).toEqual([
      ["t-0", "t-3", "t-6"],
      ["t-1", "t-4"],
      ["t-2", "t-5"],
    ]);
    h.scheduler.setPaused(1, true);
    expect(h.scheduler.statusName(h.id("t-6"))).toBe("processing");
  });

  it("random: the same seed gives the same placements, another seed others", () => {
    const placements = (seed: number) => {
      const h = harness(graphOf(independent(40)), 4, 1, { policy: "random", seed });
      h.scheduler.start();
      return h.keysOf(h.flush());
    };
    expect(placements(3)).toEqual(placements(3));
    expect(placements(4)).not.toEqual(placements(3));
    expect(placements(3).every((keys) => keys.length > 0)).toBe(true);
  });

  it("locality: root-ish tasks always queue and are released after any stimulus, best first", () => {
    const h = harness(graphOf(independent(10)), 2, 1, { policy: "locality" });
    h.scheduler.start();
    expect(h.keysOf(h.flush())).toEqual([["t-0", "t-2"], ["t-1", "t-3"]]);
    h.scheduler.handleMessage(1, { kind: "RescheduleMsg", op: "reschedule", key: "t-1", stimulusId: "r" } as never);
    // t-1 comes back to the queue (its group is root-ish) and the same stimulus releases it again.
    expect(h.keysOf(h.flush())).toEqual([[], ["t-1"]]);
  });

  it("locality: the worker holding most dependency bytes, whatever its load", () => {
    const graph = graphOf([
      ["big-0", [], 1000],
      ["small-0", [], 10],
      ["join-0", ["big-0", "small-0"]],
    ]);
    const h = harness(graph, 2, 1, { policy: "locality" });
    h.scheduler.start();
    const [w0, w1] = h.flush().map(h.computes);
    h.finish(0, w0![0]!, 1000);
    h.finish(1, w1![0]!, 10);
    expect(h.keysOf(h.flush())).toEqual([["join-0"], []]);
  });
});

describe("blevel: static list scheduling", () => {
  // a-0 (2 s) → b-0 (1 s); c-0 (1 s) alone; outputs of 100 MB (1 s at the 100 MB/s estimate).
  const graph = graphOf([
    ["a-0", [], 100e6, 2],
    ["b-0", ["a-0"], 100e6, 1],
    ["c-0", [], 100e6, 1],
  ]);

  it("ranks by bottom level: duration plus the longest transfer + duration chain below", () => {
    const h = harness(graph, 2, 1, { policy: "blevel" });
    expect([...bottomLevels(h.scheduler.cluster)]).toEqual([2 + 1 + 1, 1, 1]);
  });

  it("plans each task where it finishes first, highest bottom level first", () => {
    const h = harness(graph, 2, 1, { policy: "blevel" });
    // a-0 → w0 (ends 2); b-0 on w0 ends 3 (on w1: 2 + 1 s transfer + 1 = 4); c-0 → w1 (ends 1).
    expect([...blevelPlan(h.scheduler.cluster)]).toEqual([0, 0, 1]);
    h.scheduler.start();
    expect(h.keysOf(h.flush())).toEqual([["a-0"], ["c-0"]]);
  });
});

describe("user policies", () => {
  it("loads a module whose default export is a factory, with typed options", async () => {
    const resolved = await loadPolicy("./examples/earliest-start-policy.ts:transfer-weight=2,label=x,flag=true", repo);
    expect(resolved.name).toBe("./examples/earliest-start-policy.ts");
    expect({ ...resolved.options }).toEqual({ "transfer-weight": 2, label: "x", flag: true });
    const h = harness(graphOf(independent(4)), 2, 1, { policy: resolved });
    h.scheduler.start();
    expect(h.keysOf(h.flush()).map((keys) => keys.length)).toEqual([2, 2]);
  });

  it("refuses a module that is missing or has no factory, naming it", async () => {
    await expect(loadPolicy("./examples/missing-policy.ts", repo)).rejects.toThrow(/missing-policy\.ts: no such file/);
    await expect(loadPolicy("./package.json.mjs", repo)).rejects.toThrow(PolicySelectionError);
    await expect(loadPolicy("./src/sim/units.ts", repo)).rejects.toThrow(/its default export must be a policy factory, \(context\) => policy; got no default export/);
  });
});

describe("a policy that misbehaves stops the run, naming the policy, the call and the task", () => {
  const run = (create: PolicyFactory) => ({ h: harness(graphOf(independent(3)), 2, 1, { policy: { name: "mine", create } }) });

  it("answering a worker that does not exist", () => {
    const { h } = run(() => ({ decideWorker: () => 7 }));
    expect(() => h.scheduler.start()).toThrow(
      'scheduler policy "mine": decideWorker(task "t-0", "ready"): returned 7, which is not a worker id (0–1), QUEUE (-2) or NO_WORKER (-1)',
    );
    expect(h.scheduler.failure).toBeInstanceOf(PolicyError);
    // Nothing of the half-done stimulus reaches a worker, and nothing more happens.
    expect(h.flush()).toEqual([[], []]);
  });

  it("answering a paused worker", () => {
    const { h } = run(() => ({ decideWorker: () => 1 }));
    h.scheduler.setPaused(1, true);
    expect(() => h.scheduler.start()).toThrow(/decideWorker\(task "t-0", "ready"\): returned worker 1 \(w1\), which is paused/);
  });

  it("throwing", () => {
    const { h } = run(() => ({
      decideWorker: () => {
        throw new RangeError("no idea");
      },
    }));
    expect(() => h.scheduler.start()).toThrow('scheduler policy "mine": decideWorker(task "t-0", "ready"): threw RangeError: no idea');
  });

  it("failing in its factory", () => {
    expect(() => run(() => {
      throw new Error("bad config");
    })).toThrow('scheduler policy "mine": creating the policy: threw bad config');
    expect(() => run(() => ({}) as never)).toThrow(/must return an object with a decideWorker/);
  });

  it("offering a task that is not queued", () => {
    const { h } = run(() => ({ decideWorker: () => 0, releaseQueued: () => [0] }));
    h.scheduler.start();
    expect(() => h.finish(0, h.computes(h.flush()[0]!)[0]!)).not.toThrow(); // queue empty: not asked
    const queued = run((context) => ({
      decideWorker: (task, origin) => (origin === "ready" && task === 0 && context.cluster.assignments === 0 ? -2 : 0),
      releaseQueued: () => [2],
    }));
    expect(() => queued.h.scheduler.start()).toThrow(/releaseQueued\("start"\): it offered task "t-2", which is not queued/);
  });

  it("answering NO_WORKER is not an error: the task waits for a running worker", () => {
    const { h } = run(() => ({ decideWorker: () => NO_WORKER }));
    h.scheduler.start();
    expect(h.scheduler.statusName(0)).toBe("no-worker");
    expect(h.scheduler.failure).toBeNull();
  });
});

describe("dependents a finished task makes ready", () => {
  it("are placed best priority first, as dask's _add_to_memory and _transitions do, not in id order", () => {
    // r's dependents in id order t-9, t-10, t-2; dask.order ranks them by their keys as Python strings.
    const graph = graphOf([["r", []], ["t-9", ["r"]], ["t-10", ["r"]], ["t-2", ["r"]]]);
    const ids = ["t-9", "t-10", "t-2"].map((k) => graph.idOf(k)!);
    const byPriority = [...ids].sort((a, b) => graph.order[a]! - graph.order[b]!).map((i) => graph.keys[i]);
    expect(byPriority).not.toEqual(["t-9", "t-10", "t-2"]);
    // round-robin hands ready tasks to the workers in turn: the order it is asked in shows.
    const h = harness(graph, 3, 1, { policy: "round-robin" });
    h.scheduler.start();
    const [root] = h.computes(h.flush()[0]!);
    h.finish(0, root!);
    const placed = h.keysOf(h.flush());
    // The round-robin's turn went on from worker 1 after r; so the first placed goes to worker 1.
    expect([placed[1]![0], placed[2]![0], placed[0]![0]]).toEqual(byPriority);
  });
});
