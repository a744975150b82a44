// A task and one of its inputs come back from the same transfer. This happens when the
// scheduler asks to compute a key that is being fetched here (a replica it asked for
// earlier: the task becomes resumed(flight->waiting)) and one of the task's inputs is in
// the same GatherDep. The handler recommends an outcome for both; the task's transitions
// then recommend for the input (fetch from released -> waiting, released from a release)
// before the input's own recommendation is taken, over it. dask 2022.12.1 leaves the task
// waiting for a released input, or asserts in flight -> released, in most set orders
// (README, "Deviations of the WorkerState from dask", item 15; docs/state.md).
import { describe, expect, it } from "vitest";
import {
  PauseEvent,
  UnpauseEvent,
  AcquireReplicasEvent,
  ComputeTaskEvent,
  FreeKeysEvent,
  GatherDepSuccessEvent,
  GatherDepBusyEvent,
  GatherDepNetworkFailureEvent,
  GatherDepFailureEvent,
  GatherDep,
  RetryBusyWorkerLater,
  RequestRefreshWhoHasMsg,
  TaskFinishedMsg,
  type Instruction,
  type StateMachineEvent,
  type WorkerState,
} from "../../src/state/index.js";
import { describeState, runStimuli, freshWorkerState, PEER, type Stimulus } from "../../src/testing/index.js";
import { W2, transitionLog, worker } from "./helpers.js";

/** Feeds `events` one by one, validating the whole state after each; returns the last one's instructions. */
function feed(ws: WorkerState, ...events: StateMachineEvent[]): Instruction[] {
  let out: Instruction[] = [];
  for (const event of events) {
    out = ws.handleStimulus(event);
    ws.validateState();
  }
  return out;
}

const states = (ws: WorkerState): Record<string, string> =>
  Object.fromEntries([...ws.tasks.values()].map((ts) => [ts.key, describeState(ts)]).sort());

/** Keys `first` and `second` are fetched from W2 in one GatherDep (paused until both are queued). */
function oneGather(ws: WorkerState, fetchFirst: StateMachineEvent, second: string): void {
  feed(ws, PauseEvent({ stimulusId: "pause" }), fetchFirst);
  feed(ws, AcquireReplicasEvent({ whoHas: { [second]: [W2] }, nbytes: { [second]: 1 }, stimulusId: "acquire" }));
  const out = feed(ws, UnpauseEvent({ stimulusId: "unpause" }));
  expect(out.filter((i) => i.kind === "GatherDep").map((i) => (i as GatherDep).toGather)).toHaveLength(1);
}

const gathered = (ws: WorkerState): string[][] =>
  [...ws.inFlightWorkers.values()].map((keys) => [...keys]);

describe("the task t0 (a replica in flight, then computed) and its cancelled input d0 come back in one transfer", () => {
  /**
   * d0 is fetched for t2 and t0 is a replica, both from W2 in one GatherDep; t2 is freed
   * (d0 cancelled in flight); then the scheduler asks to compute t0 with input d0.
   */
  function setup(): WorkerState {
    const ws = worker({ nthreads: 2 });
    oneGather(ws, ComputeTaskEvent({ key: "t2", runId: 1, whoHas: { d0: [W2] }, stimulusId: "compute-t2" }), "t0");
    expect(gathered(ws)).toEqual([["d0", "t0"]]);
    feed(ws, FreeKeysEvent({ keys: ["t2"], stimulusId: "free-t2" }));
    feed(ws, ComputeTaskEvent({ key: "t0", runId: 2, whoHas: { d0: [W2] }, stimulusId: "compute-t0" }));
    expect(states(ws)).toEqual({ d0: "cancelled(flight)", t0: "resumed(flight->waiting)" });
    return ws;
  }
  const base = { worker: W2, totalNbytes: 2 };

  it("busy: t0 waits for d0, which is fetched again (not released under it)", () => {
    const ws = setup();
    const out = feed(ws, GatherDepBusyEvent({ ...base, stimulusId: "busy" }));
    expect(states(ws)).toEqual({ d0: "fetch", t0: "waiting" });
    expect([...ws.tasks.get("t0")!.waitingForData].map((ts) => ts.key)).toEqual(["d0"]);
    expect([...ws.tasks.get("d0")!.whoHas]).toEqual([W2]);
    expect(out).toEqual([
      RetryBusyWorkerLater({ worker: W2, stimulusId: "busy" }),
      RequestRefreshWhoHasMsg({ keys: ["d0", "t0"], stimulusId: "busy" }),
    ]);
    expect(transitionLog(ws, "d0").slice(-2)).toEqual(["cancelled->fetch=released", "released->fetch=fetch"]);
  });

  it("network failure: W2 is gone, d0 is missing and t0 waits for it", () => {
    const ws = setup();
    expect(feed(ws, GatherDepNetworkFailureEvent({ ...base, stimulusId: "net" }))).toEqual([]);
    expect(states(ws)).toEqual({ d0: "missing", t0: "waiting" });
    expect(ws.missingDepFlight.has(ws.tasks.get("d0")!)).toBe(true);
  });

  it("failure (an error other than the network): t0 is computed instead, d0 fetched again", () => {
    const ws = setup();
    const out = feed(ws, GatherDepFailureEvent({ ...base, exceptionText: "cannot deserialize", stimulusId: "fail" }));
    expect(states(ws)).toEqual({ d0: "flight", t0: "waiting" });
    expect(out).toEqual([GatherDep({ worker: W2, toGather: ["d0"], totalNbytes: 1, stimulusId: "fail" })]);
  });

  it("success without t0 (keep 1): t0 waits and d0, whose value came back for nobody, is fetched again", () => {
    const ws = setup();
    const out = feed(ws, GatherDepSuccessEvent({ ...base, data: { d0: "v" }, stimulusId: "partial" }));
    expect(states(ws)).toEqual({ d0: "flight", t0: "waiting" });
    expect(out).toEqual([GatherDep({ worker: W2, toGather: ["d0"], totalNbytes: 1, stimulusId: "partial" })]);
  });

  it.each([
    ["with d0 (keep 3)", { t0: "v", d0: "v" }],
    ["without d0 (keep 2)", { t0: "v" }],
  ])("success %s: t0 arrived, which is its result; d0 is not needed any more", (_name, data) => {
    const ws = setup();
    const out = feed(ws, GatherDepSuccessEvent({ ...base, data, stimulusId: "success" }));
    expect(states(ws)).toEqual({ d0: "released", t0: "memory" });
    expect(out.map((i) => i.kind)).toEqual(["TaskFinishedMsg"]);
    expect((out[0] as TaskFinishedMsg).key).toBe("t0");
  });
});

describe("the task t6 (a replica in flight, computed, then freed) and its input d0 in flight come back in one transfer", () => {
  /** d0 and t6 are replicas from W2 in one GatherDep; t6 is computed with input d0, then freed. */
  function setup(): WorkerState {
    const ws = worker({ nthreads: 2 });
    oneGather(ws, AcquireReplicasEvent({ whoHas: { d0: [W2] }, nbytes: { d0: 1 }, stimulusId: "acquire-d0" }), "t6");
    feed(ws, ComputeTaskEvent({ key: "t6", runId: 1, whoHas: { d0: [W2] }, stimulusId: "compute-t6" }));
    feed(ws, FreeKeysEvent({ keys: ["t6"], stimulusId: "free-t6" }));
    expect(states(ws)).toEqual({ d0: "flight", t6: "cancelled(flight)" });
    return ws;
  }
  const base = { worker: W2, totalNbytes: 2 };

  it.each([
    ["success", GatherDepSuccessEvent({ ...base, data: { d0: "v", t6: "v" }, stimulusId: "done" })],
    ["success without t6", GatherDepSuccessEvent({ ...base, data: { d0: "v" }, stimulusId: "done" })],
    ["success without d0", GatherDepSuccessEvent({ ...base, data: { t6: "v" }, stimulusId: "done" })],
    ["success with neither", GatherDepSuccessEvent({ ...base, data: {}, stimulusId: "done" })],
    ["busy", GatherDepBusyEvent({ ...base, stimulusId: "done" })],
    ["network failure", GatherDepNetworkFailureEvent({ ...base, stimulusId: "done" })],
    ["failure", GatherDepFailureEvent({ ...base, exceptionText: "x", stimulusId: "done" })],
  ])("%s: t6's release releases d0, done in flight, instead of asserting (both forgotten)", (name, event) => {
    const ws = setup();
    const out = feed(ws, event);
    expect(states(ws)).toEqual({});
    const expected: Instruction[] = name === "busy" ? [RetryBusyWorkerLater({ worker: W2, stimulusId: "done" })] : [];
    if (name === "busy") expected.push(RequestRefreshWhoHasMsg({ keys: ["d0", "t6"], stimulusId: "done" }));
    expect(out).toEqual(expected);
    expect(transitionLog(ws, "d0").at(-2)).toBe("flight->released=released");
  });
});

describe("a resumed input of a released task is left alone, as dask's PROCESSING says", () => {
  /** d and x are replicas from W2 in one GatherDep; d is computed (resumed), then x with input d; x is freed. */
  function setup(): WorkerState {
    const ws = worker({ nthreads: 2 });
    oneGather(ws, AcquireReplicasEvent({ whoHas: { d: [W2] }, nbytes: { d: 1 }, stimulusId: "acquire-d" }), "x");
    feed(ws, ComputeTaskEvent({ key: "d", runId: 1, stimulusId: "compute-d" }));
    feed(ws, ComputeTaskEvent({ key: "x", runId: 2, whoHas: { d: [W2] }, stimulusId: "compute-x" }));
    feed(ws, FreeKeysEvent({ keys: ["x"], stimulusId: "free-x" }));
    expect(states(ws)).toEqual({ d: "resumed(flight->waiting)", x: "cancelled(flight)" });
    return ws;
  }

  it("success: d, which the scheduler asked for, ends in memory and is reported finished", () => {
    const ws = setup();
    const out = feed(ws, GatherDepSuccessEvent({ worker: W2, totalNbytes: 2, data: { d: "v", x: "v" }, stimulusId: "done" }));
    expect(states(ws)).toEqual({ d: "memory" });
    expect(out.map((i) => i.kind)).toEqual(["TaskFinishedMsg"]);
  });

  it("busy: d is computed (it was asked for), x forgotten", () => {
    const ws = setup();
    feed(ws, GatherDepBusyEvent({ worker: W2, totalNbytes: 2, stimulusId: "done" }));
    expect(states(ws)).toEqual({ d: "executing" });
  });

  it("freeing x while the transfer is outstanding leaves d resumed (dask 2022.12.1 does the same)", () => {
    const ws = worker({ nthreads: 2 });
    oneGather(ws, AcquireReplicasEvent({ whoHas: { d: [W2] }, nbytes: { d: 1 }, stimulusId: "acquire-d" }), "x");
    feed(ws, ComputeTaskEvent({ key: "d", runId: 1, stimulusId: "compute-d" }));
    feed(ws, ComputeTaskEvent({ key: "x", runId: 2, whoHas: { d: [W2] }, stimulusId: "compute-x" }));
    expect(states(ws)).toEqual({ d: "resumed(flight->waiting)", x: "resumed(flight->waiting)" });
    feed(ws, FreeKeysEvent({ keys: ["x"], stimulusId: "free-x" }));
    expect(describeState(ws.tasks.get("d")!)).toBe("resumed(flight->waiting)");
  });
});

describe("the kit's pinned sequence (found by runStimuli) runs clean, drained, with every check", () => {
  const compute = (key: string, input: string): Stimulus => ({
    kind: "compute",
    key,
    inputs: [{ key: input, holders: [PEER], nbytes: 1 }],
    priority: 0,
    restricted: false,
  });
  const sequence = (outcome: "busy" | "partial" | "failure" | "network-failure" | "success", keep: number): Stimulus[] => [
    { kind: "pause", paused: true },
    compute("t2", "d0"),
    { kind: "acquire", replicas: [{ key: "t0", holders: [PEER], nbytes: 1 }] },
    { kind: "pause", paused: false },
    { kind: "free", keys: ["t2"] },
    compute("t0", "d0"),
    { kind: "gather-done", peer: PEER, outcome, keep },
  ];

  it.each([
    ["busy", 0],
    ["busy", 1],
    ["partial", 0],
    ["partial", 1],
    ["partial", 2],
    ["partial", 3],
    ["failure", 0],
    ["network-failure", 0],
    ["success", 0],
  ] as const)("%s (keep %d)", (outcome, keep) => {
    const run = runStimuli(freshWorkerState({ nthreads: 2, transferIncomingCountLimit: 2 }), sequence(outcome, keep));
    expect(run.skipped).toBe(0);
    expect(run.applied).toBe(7);
  });

  it("and the variant with d0 in flight (not cancelled) and t6 freed", () => {
    const stimuli: Stimulus[] = [
      { kind: "acquire", replicas: [{ key: "d0", holders: [PEER], nbytes: 1 }] },
      { kind: "gather-done", peer: PEER, outcome: "busy", keep: 0 },
      { kind: "acquire", replicas: [{ key: "t6", holders: [PEER], nbytes: 1 }] },
      { kind: "retry-busy", peer: PEER },
      compute("t6", "d0"),
      { kind: "free", keys: ["t6"] },
    ];
    const run = runStimuli(freshWorkerState({ nthreads: 2, transferIncomingCountLimit: 2 }), stimuli);
    expect(run.skipped).toBe(0);
  });
});
