// Reference §12: the cancelled/resumed matrix, cell by cell. Rows are the task's state,
// columns what happens next: the scheduler asks to release / compute / fetch it, or the
// execute/gather coroutine ends well or badly.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  AddKeysMsg,
  ComputeTaskEvent,
  Execute,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  FreeKeysEvent,
  GatherDep,
  GatherDepBusyEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
  LongRunningMsg,
  ReleaseWorkerDataMsg,
  RequestRefreshWhoHasMsg,
  RescheduleEvent,
  RescheduleMsg,
  RetryBusyWorkerLater,
  SecedeEvent,
  TaskErredMsg,
  TaskFinishedMsg,
} from "../../src/state/index.js";
import { describeState, match, taskInState, workerWithRunningTask, type ReachableState } from "../../src/testing/index.js";
import type { WorkerState } from "../../src/state/index.js";
import { W2, W3, track, transitionLog, worker } from "./helpers.js";

function setup(state: ReachableState, options: Parameters<typeof worker>[0] = {}) {
  const ws = worker(options);
  const { ts } = taskInState(ws, "x", state);
  return { ws, ts };
}

const release = (sid = "release") => FreeKeysEvent({ keys: ["x"], stimulusId: sid });
const compute = (sid = "compute") => ComputeTaskEvent({ key: "x", runId: 7, stimulusId: sid });
const fetch = (sid = "fetch") => AcquireReplicasEvent({ whoHas: { x: [W3] }, nbytes: { x: 1 }, stimulusId: sid });

function gone(ws: WorkerState): void {
  expect(ws.tasks.has("x")).toBe(false);
  expect(ws.executing.size + ws.longRunning.size + ws.inFlightTasks.size).toBe(0);
}

describe("row executing / long-running", () => {
  it.each(["executing", "long-running"] as const)("%s: asked to compute again → no-op, run id updated", (state) => {
    const { ws, ts } = setup(state);
    expect(ws.handleStimulus(compute())).toEqual([]);
    expect(ts.state).toBe(state);
    expect(ts.runId).toBe(7);
  });

  it.each(["executing", "long-running"] as const)("%s: asked to fetch → cancelled → resumed(%s->fetch)", (state) => {
    const { ws, ts } = setup(state);
    expect(ws.handleStimulus(fetch())).toEqual([]);
    expect(describeState(ts)).toBe(`resumed(${state}->fetch)`);
    expect(String(ts)).toBe(`<TaskState 'x' resumed(${state}->fetch)>`);
    expect(transitionLog(ws, "x").slice(-3)).toEqual([
      `${state}->released=cancelled`,
      "cancelled->fetch=resumed",
      `${state}->fetch=resumed`,
    ]);
    // still occupies its slot; nothing is gathered while the execution is outstanding
    expect((state === "executing" ? ws.executing : ws.longRunning).has(ts)).toBe(true);
    expect(ws.inFlightWorkers.size).toBe(0);
  });
});

describe("row flight", () => {
  it("asked to compute → cancelled → resumed(flight->waiting)", () => {
    const { ws, ts } = setup("flight");
    expect(ws.handleStimulus(compute())).toEqual([]);
    expect(describeState(ts)).toBe("resumed(flight->waiting)");
    expect(transitionLog(ws, "x").slice(-3)).toEqual(["flight->released=cancelled", "cancelled->waiting=resumed", "flight->waiting=resumed"]);
    expect(ws.inFlightTasks.has(ts)).toBe(true);
    expect(ws.executing.size).toBe(0);
  });

  it("asked to fetch → no-op", () => {
    const { ws, ts } = setup("flight");
    expect(ws.handleStimulus(fetch())).toEqual([]);
    expect(ts.state).toBe("flight");
    expect(ts.comingFrom).toBe(W2);
    // acquire-replicas replaces who_has with the scheduler's latest view
    expect([...ts.whoHas]).toEqual([W3]);
  });

  it("gather fails without data from the only holder → missing", () => {
    const { ws, ts } = setup("flight");
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: {}, stimulusId: "g" }))).toEqual([]);
    expect(ts.state).toBe("missing");
  });

  it("gather busy → fetch again, retry later, ask the scheduler who else has it", () => {
    const { ws, ts } = setup("flight");
    expect(ws.handleStimulus(GatherDepBusyEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" }))).toEqual([
      RetryBusyWorkerLater({ worker: W2, stimulusId: "g" }),
      RequestRefreshWhoHasMsg({ keys: ["x"], stimulusId: "g" }),
    ]);
    expect(ts.state).toBe("fetch");
    expect(ws.busyWorkers.has(W2)).toBe(true);
  });

  it("gather network failure → the peer is dropped, missing", () => {
    const { ws, ts } = setup("flight");
    expect(ws.handleStimulus(GatherDepNetworkFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" }))).toEqual([]);
    expect(ts.state).toBe("missing");
    expect(ws.hasWhat.has(W2)).toBe(false);
  });
});

describe("row cancelled(executing) / cancelled(long-running)", () => {
  const rows = ["executing", "long-running"] as const;

  it.each(rows)("cancelled(%s): asked to release → no-op", (state) => {
    const { ws, ts } = setup(`cancelled(${state})`);
    expect(ws.handleStimulus(release("again"))).toEqual([]);
    expect(describeState(ts)).toBe(`cancelled(${state})`);
    expect(transitionLog(ws, "x").at(-1)).toBe("cancelled->released=cancelled");
  });

  it("cancelled(executing): asked to compute → executing again, nothing sent", () => {
    const { ws, ts } = setup("cancelled(executing)");
    expect(ws.handleStimulus(compute())).toEqual([]);
    expect(ts.state).toBe("executing");
    expect(ts.previous).toBeNull();
    expect(ws.executing.has(ts)).toBe(true);
    // the execution that was already running now counts again
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "x", runId: 7, stimulusId: "done" }))).toEqual([
      match(TaskFinishedMsg, { key: "x", runId: 7, stimulusId: "done" }),
    ]);
  });

  it("cancelled(long-running): asked to compute → long-running and LongRunningMsg in arrears (duration null)", () => {
    const { ws, ts } = setup("cancelled(long-running)");
    expect(ws.handleStimulus(compute())).toEqual([
      LongRunningMsg({ key: "x", runId: 7, computeDuration: null, stimulusId: "compute" }),
    ]);
    expect(ts.state).toBe("long-running");
    expect(ws.longRunning.has(ts)).toBe(true);
  });

  it.each(rows)("cancelled(%s): asked to fetch → resumed(%s->fetch)", (state) => {
    const { ws, ts } = setup(`cancelled(${state})`);
    expect(ws.handleStimulus(fetch())).toEqual([]);
    expect(describeState(ts)).toBe(`resumed(${state}->fetch)`);
  });

  it.each(rows)("cancelled(%s): execution succeeds → result discarded, forgotten, nothing sent", (state) => {
    const { ws, ts } = setup(`cancelled(${state})`);
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "x", value: 1, stimulusId: "done" }))).toEqual([]);
    gone(ws);
    expect(ts.state).toBe("forgotten");
    expect(ws.data.size).toBe(0);
    expect(ws.executedCount).toBe(1);
    expect(transitionLog(ws, "x").slice(-2)).toEqual(["cancelled->memory=released", "released->forgotten=forgotten"]);
  });

  it.each(rows)("cancelled(%s): execution fails → discarded, nothing sent", (state) => {
    const { ws } = setup(`cancelled(${state})`);
    expect(ws.handleStimulus(ExecuteFailureEvent({ key: "x", stimulusId: "done" }))).toEqual([]);
    gone(ws);
  });

  it.each(rows)("cancelled(%s): execution rescheduled → discarded, nothing sent", (state) => {
    const { ws } = setup(`cancelled(${state})`);
    expect(ws.handleStimulus(RescheduleEvent({ key: "x", stimulusId: "done" }))).toEqual([]);
    gone(ws);
  });
});

describe("row cancelled(flight)", () => {
  it("asked to release → no-op", () => {
    const { ws, ts } = setup("cancelled(flight)");
    expect(ws.handleStimulus(release("again"))).toEqual([]);
    expect(describeState(ts)).toBe("cancelled(flight)");
  });

  it("asked to compute → resumed(flight->waiting)", () => {
    const { ws, ts } = setup("cancelled(flight)");
    expect(ws.handleStimulus(compute())).toEqual([]);
    expect(describeState(ts)).toBe("resumed(flight->waiting)");
  });

  it("asked to fetch → back to flight, the cancellation is forgotten", () => {
    const { ws, ts } = setup("cancelled(flight)");
    expect(ws.handleStimulus(fetch())).toEqual([]);
    expect(ts.state).toBe("flight");
    expect(ts.previous).toBeNull();
    expect(ts.comingFrom).toBe(W2);
    // and the outstanding gather now lands normally
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "g" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "g" }),
    ]);
  });

  it("gather succeeds → data discarded, forgotten", () => {
    const { ws } = setup("cancelled(flight)");
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "g" }))).toEqual([]);
    gone(ws);
    expect(ws.data.size).toBe(0);
    expect(ws.transferIncomingBytes).toBe(0);
  });

  it("gather without the key → forgotten", () => {
    const { ws } = setup("cancelled(flight)");
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: {}, stimulusId: "g" }))).toEqual([]);
    gone(ws);
  });

  it("gather busy → forgotten (the retry and who-has request are still sent)", () => {
    const { ws } = setup("cancelled(flight)");
    expect(ws.handleStimulus(GatherDepBusyEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" }))).toEqual([
      RetryBusyWorkerLater({ worker: W2, stimulusId: "g" }),
      RequestRefreshWhoHasMsg({ keys: ["x"], stimulusId: "g" }),
    ]);
    gone(ws);
  });

  it("gather network failure → forgotten", () => {
    const { ws } = setup("cancelled(flight)");
    expect(ws.handleStimulus(GatherDepNetworkFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" }))).toEqual([]);
    gone(ws);
  });

  it("gather failure → forgotten, no TaskErredMsg", () => {
    const { ws } = setup("cancelled(flight)");
    expect(ws.handleStimulus(GatherDepFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" }))).toEqual([]);
    gone(ws);
  });
});

describe("row resumed(executing->fetch) / resumed(long-running->fetch)", () => {
  const rows = ["executing", "long-running"] as const;

  it.each(rows)("resumed(%s->fetch): asked to release → cancelled(%s)", (state) => {
    const { ws, ts } = setup(`resumed(${state}->fetch)`);
    expect(ws.handleStimulus(release("again"))).toEqual([]);
    expect(describeState(ts)).toBe(`cancelled(${state})`);
    expect(ts.next).toBeNull();
  });

  it("resumed(executing->fetch): asked to compute → executing, nothing sent", () => {
    const { ws, ts } = setup("resumed(executing->fetch)");
    expect(ws.handleStimulus(compute())).toEqual([]);
    expect(ts.state).toBe("executing");
    expect(ts.next).toBeNull();
    expect(transitionLog(ws, "x").slice(-3)).toEqual([
      "resumed->released=cancelled",
      "cancelled->waiting=executing",
      "resumed->waiting=executing",
    ]);
  });

  it("resumed(long-running->fetch): asked to compute → long-running + LongRunningMsg", () => {
    const { ws, ts } = setup("resumed(long-running->fetch)");
    expect(ws.handleStimulus(compute())).toEqual([
      LongRunningMsg({ key: "x", runId: 7, computeDuration: null, stimulusId: "compute" }),
    ]);
    expect(ts.state).toBe("long-running");
  });

  it.each(rows)("resumed(%s->fetch): asked to fetch → no-op", (state) => {
    const { ws, ts } = setup(`resumed(${state}->fetch)`);
    expect(ws.handleStimulus(fetch())).toEqual([]);
    expect(describeState(ts)).toBe(`resumed(${state}->fetch)`);
  });

  it.each(rows)("resumed(%s->fetch): execution succeeds → memory + AddKeysMsg (spoofed fetch)", (state) => {
    const { ws, ts } = setup(`resumed(${state}->fetch)`);
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "x", value: 3, nbytes: 4, stimulusId: "done" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "done" }),
    ]);
    expect(ts.state).toBe("memory");
    expect(ws.data.get("x")).toBe(3);
    expect(ws.executing.size + ws.longRunning.size).toBe(0);
  });

  it.each(rows)("resumed(%s->fetch): execution fails → silently released → fetched from the peer", (state) => {
    const { ws, ts } = setup(`resumed(${state}->fetch)`);
    expect(ws.handleStimulus(ExecuteFailureEvent({ key: "x", stimulusId: "done" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "done" }),
    ]);
    expect(ts.state).toBe("flight");
    expect(transitionLog(ws, "x").slice(-3)).toEqual(["resumed->error=released", "released->fetch=fetch", "fetch->flight=flight"]);
  });

  it.each(rows)("resumed(%s->fetch): execution rescheduled → fetched from the peer, no RescheduleMsg", (state) => {
    const { ws, ts } = setup(`resumed(${state}->fetch)`);
    const instructions = ws.handleStimulus(RescheduleEvent({ key: "x", stimulusId: "done" }));
    expect(instructions).toEqual([GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "done" })]);
    expect(instructions).not.toContainEqual(RescheduleMsg({ key: "x", stimulusId: "done" }));
    expect(ts.state).toBe("flight");
  });
});

describe("row resumed(flight->waiting)", () => {
  it("asked to release → cancelled(flight)", () => {
    const { ws, ts } = setup("resumed(flight->waiting)");
    expect(ws.handleStimulus(release("again"))).toEqual([]);
    expect(describeState(ts)).toBe("cancelled(flight)");
  });

  it("asked to compute → cancelled → resumed again", () => {
    const { ws, ts } = setup("resumed(flight->waiting)");
    expect(ws.handleStimulus(compute("compute-2"))).toEqual([]);
    expect(describeState(ts)).toBe("resumed(flight->waiting)");
    expect(transitionLog(ws, "x").slice(-3)).toEqual(["resumed->released=cancelled", "cancelled->waiting=resumed", "resumed->waiting=resumed"]);
  });

  it("asked to fetch → flight", () => {
    const { ws, ts } = setup("resumed(flight->waiting)");
    expect(ws.handleStimulus(fetch())).toEqual([]);
    expect(ts.state).toBe("flight");
    expect(ts.previous).toBeNull();
    expect(ts.next).toBeNull();
  });

  it("gather succeeds → memory + TaskFinishedMsg (spoofed execution) with the task's run id", () => {
    const ws = worker();
    taskInState(ws, "x", "cancelled(flight)");
    ws.handleStimulus(compute());
    const ts = ws.tasks.get("x")!;
    expect(describeState(ts)).toBe("resumed(flight->waiting)");
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 5 }, stimulusId: "g" }))).toEqual([
      match(TaskFinishedMsg, { key: "x", runId: 7, stimulusId: "g" }),
    ]);
    expect(ts.state).toBe("memory");
  });

  it.each([
    ["no data", () => GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: {}, stimulusId: "g" })],
    ["network failure", () => GatherDepNetworkFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" })],
    ["failure", () => GatherDepFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" })],
  ] as const)("gather %s → silently released → computed here", (_label, event) => {
    const { ws, ts } = setup("resumed(flight->waiting)");
    const instructions = ws.handleStimulus(event());
    expect(instructions).toEqual([Execute({ key: "x", stimulusId: "g" })]);
    expect(instructions.some((i) => i.kind === "TaskErredMsg")).toBe(false);
    expect(ts.state).toBe("executing");
  });

  it("gather busy → computed here; the who-has request is still sent (reference §18.13)", () => {
    const { ws, ts } = setup("resumed(flight->waiting)");
    expect(ws.handleStimulus(GatherDepBusyEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" }))).toEqual([
      RetryBusyWorkerLater({ worker: W2, stimulusId: "g" }),
      RequestRefreshWhoHasMsg({ keys: ["x"], stimulusId: "g" }),
      Execute({ key: "x", stimulusId: "g" }),
    ]);
    expect(ts.state).toBe("executing");
  });
});

describe("secede while cancelled or resumed (reference §7 cancelled/resumed → long-running, §18.12)", () => {
  it("frees the thread for the next task and sends nothing until re-computed", () => {
    const ws = worker();
    const { ts } = taskInState(ws, "x", "cancelled(executing)");
    ws.handleStimulus(ComputeTaskEvent({ key: "y", stimulusId: "y" }));
    expect(ws.tasks.get("y")!.state).toBe("ready");
    expect(ws.handleStimulus(SecedeEvent({ key: "x", computeDuration: 3, stimulusId: "secede" }))).toEqual([
      Execute({ key: "y", stimulusId: "secede" }),
    ]);
    expect(describeState(ts)).toBe("cancelled(long-running)");
    expect(ws.longRunning.has(ts)).toBe(true);
    expect(ws.executing.has(ts)).toBe(false);
    // the long-running message goes out (again) only when the scheduler wants it back
    expect(ws.handleStimulus(compute())).toEqual([LongRunningMsg({ key: "x", runId: 7, computeDuration: null, stimulusId: "compute" })]);
  });

  it("resumed(executing->fetch) seceding becomes resumed(long-running->fetch)", () => {
    const { ws, ts } = setup("resumed(executing->fetch)");
    expect(ws.handleStimulus(SecedeEvent({ key: "x", computeDuration: 3, stimulusId: "secede" }))).toEqual([]);
    expect(describeState(ts)).toBe("resumed(long-running->fetch)");
  });

  it("the same task can send LongRunningMsg twice (seceded before and after cancellation)", () => {
    const ws = worker();
    const sent = [
      ...ws.handleStimulus(ComputeTaskEvent({ key: "x", runId: 1, stimulusId: "c1" })),
      ...ws.handleStimulus(SecedeEvent({ key: "x", computeDuration: 1, stimulusId: "secede" })),
      ...ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" })),
      ...ws.handleStimulus(ComputeTaskEvent({ key: "x", runId: 2, stimulusId: "c2" })),
    ].filter((i) => i.kind === "LongRunningMsg");
    expect(sent).toEqual([
      LongRunningMsg({ key: "x", runId: 1, computeDuration: 1, stimulusId: "secede" }),
      LongRunningMsg({ key: "x", runId: 2, computeDuration: null, stimulusId: "c2" }),
    ]);
  });
});

describe("resources across cancellation (reference §11, §18.11)", () => {
  it.each(["executing", "long-running"] as const)(
    "a %s task keeps its resources while cancelled/resumed and releases them when done",
    (state) => {
      const ws = worker({ resources: { R: 1 } });
      ws.handleStimulus(ComputeTaskEvent({ key: "x", resourceRestrictions: { R: 1 }, stimulusId: "compute" }));
      if (state === "long-running") ws.handleStimulus(SecedeEvent({ key: "x", computeDuration: 1, stimulusId: "secede" }));
      ws.handleStimulus(release());
      expect(ws.availableResources).toEqual({ R: 0 });
      expect(ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "y" }))).toEqual([]);
      expect(ws.tasks.get("x")!.state).toBe("resumed");
      expect(ws.availableResources).toEqual({ R: 0 });
      ws.handleStimulus(ExecuteSuccessEvent({ key: "x", stimulusId: "done" }));
      expect(ws.availableResources).toEqual({ R: 1 });
    },
  );

  it("re-computing a cancelled task with other restrictions keeps the acquired ones (test_resumed_with_different_resources)", () => {
    const ws = worker({ resources: { R: 1, S: 1 } });
    ws.handleStimulus(ComputeTaskEvent({ key: "x", resourceRestrictions: { R: 1 }, stimulusId: "compute" }), release());
    ws.handleStimulus(ComputeTaskEvent({ key: "x", resourceRestrictions: { S: 1 }, stimulusId: "compute-2" }));
    const x = ws.tasks.get("x")!;
    expect(x.state).toBe("executing");
    expect(x.resourceRestrictions).toEqual({ R: 1 });
    expect(ws.availableResources).toEqual({ R: 0, S: 1 });
    ws.handleStimulus(ExecuteSuccessEvent({ key: "x", stimulusId: "done" }));
    expect(ws.availableResources).toEqual({ R: 1, S: 1 });
  });
});

describe("at most one coroutine per key", () => {
  it("a cancelled execution is not restarted by a new compute-task; its result is used", () => {
    const ws = worker();
    const instructions = [
      ...ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "c1" })),
      ...ws.handleStimulus(release()),
      ...ws.handleStimulus(compute("c2")),
    ];
    expect(instructions.filter((i) => i.kind === "Execute")).toEqual([Execute({ key: "x", stimulusId: "c1" })]);
  });

  it("a cancelled gather is not reissued by a new fetch request", () => {
    const ws = worker();
    taskInState(ws, "x", "cancelled(flight)");
    const instructions = ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "again" }));
    expect(instructions.filter((i) => i.kind === "GatherDep")).toEqual([]);
  });

  it("failure of a resumed(flight->waiting) task is never reported as TaskErredMsg", () => {
    const { ws } = setup("resumed(flight->waiting)");
    const instructions = ws.handleStimulus(GatherDepFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "g" }));
    expect(instructions).not.toContainEqual(match(TaskErredMsg, {}));
  });
});

describe("whole-sequence scenarios (dask test_cancelled_state)", () => {
  const W = W2;

  it("flight → cancelled → flight: one gather only (test_workerstate_flight_to_flight)", () => {
    const ws = worker();
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s1" }),
        FreeKeysEvent({ keys: ["y", "x"], stimulusId: "s2" }),
        ComputeTaskEvent({ key: "z", whoHas: { x: [W] }, stimulusId: "s3" }),
      ),
    ).toEqual([GatherDep({ worker: W, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" })]);
    expect(ws.tasks.get("x")!.state).toBe("flight");
  });

  it.each(["executing", "long-running"] as const)(
    "%s: a cancelled task that finishes serves the dependent that wanted it fetched (…_executing_skips_fetch_on_success)",
    (state) => {
      const { ws } = workerWithRunningTask({ state });
      track(ws);
      expect(
        ws.handleStimulus(
          FreeKeysEvent({ keys: ["x"], stimulusId: "s1" }),
          ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s2" }),
          ExecuteSuccessEvent({ key: "x", value: 123, stimulusId: "s3" }),
        ),
      ).toEqual([AddKeysMsg({ keys: ["x"], stimulusId: "s3" }), Execute({ key: "y", stimulusId: "s3" })]);
      expect(ws.tasks.get("x")!.state).toBe("memory");
    },
  );

  it.each(["executing", "long-running"] as const)(
    "%s: a cancelled task that fails is fetched instead (…_executing_failure_to_fetch)",
    (state) => {
      const { ws } = workerWithRunningTask({ state });
      track(ws);
      expect(
        ws.handleStimulus(
          FreeKeysEvent({ keys: ["x"], stimulusId: "s1" }),
          ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s2" }),
          ExecuteFailureEvent({ key: "x", stimulusId: "s3" }),
        ),
      ).toEqual([GatherDep({ worker: W, toGather: ["x"], totalNbytes: 1, stimulusId: "s3" })]);
      expect(ws.tasks.get("x")!.state).toBe("flight");
    },
  );

  it("a cancelled transfer that lands serves the compute request (…_flight_skips_executing_on_success)", () => {
    const ws = worker();
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s1" }),
        FreeKeysEvent({ keys: ["y", "x"], stimulusId: "s2" }),
        ComputeTaskEvent({ key: "x", stimulusId: "s3" }),
        GatherDepSuccessEvent({ worker: W, totalNbytes: 1, data: { x: 123 }, stimulusId: "s4" }),
      ),
    ).toEqual([
      GatherDep({ worker: W, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" }),
      match(TaskFinishedMsg, { key: "x", stimulusId: "s4" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("memory");
  });

  it("a cancelled transfer that fails is computed instead (…_flight_failure_to_executing)", () => {
    const ws = worker();
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s1" }),
        FreeKeysEvent({ keys: ["y", "x"], stimulusId: "s2" }),
        ComputeTaskEvent({ key: "x", stimulusId: "s3" }),
        GatherDepFailureEvent({ worker: W, totalNbytes: 1, stimulusId: "s4" }),
      ),
    ).toEqual([
      GatherDep({ worker: W, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" }),
      Execute({ key: "x", stimulusId: "s4" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("executing");
  });

  it.each(["executing", "long-running"] as const)(
    "%s: resumed → cancelled → back to running (…_resumed_fetch_to_cancelled_to_executing)",
    (state) => {
      const { ws, ts } = workerWithRunningTask({ state });
      track(ws);
      const instructions = ws.handleStimulus(
        FreeKeysEvent({ keys: ["x"], stimulusId: "s1" }),
        ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s2" }),
        FreeKeysEvent({ keys: ["y", "x"], stimulusId: "s3" }),
        ComputeTaskEvent({ key: "x", resourceRestrictions: { R: 1 }, stimulusId: "s4" }),
      );
      expect(instructions).toEqual(
        state === "executing" ? [] : [LongRunningMsg({ key: "x", runId: 0, computeDuration: null, stimulusId: "s4" })],
      );
      expect(ws.tasks.get("x")).toBe(ts);
      expect(ts.state).toBe(state);
    },
  );

  it("resumed(flight->waiting) → cancelled → fetched again (…_resumed_waiting_to_flight)", () => {
    const ws = worker({ resources: { R: 1 } });
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s1" }),
        FreeKeysEvent({ keys: ["y", "x"], stimulusId: "s2" }),
        ComputeTaskEvent({ key: "x", resourceRestrictions: { R: 1 }, stimulusId: "s3" }),
        FreeKeysEvent({ keys: ["x"], stimulusId: "s4" }),
        ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s5" }),
      ),
    ).toEqual([GatherDep({ worker: W, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" })]);
    expect(ws.tasks.get("x")!.state).toBe("flight");
  });

  it.each([false, true])("cancel an executing task with an in-memory dependency (release dependency: %s)", (releaseDependency) => {
    const ws = worker();
    ws.handleStimulus(
      ComputeTaskEvent({ key: "x", stimulusId: "s1" }),
      ExecuteSuccessEvent({ key: "x", stimulusId: "s2" }),
      ComputeTaskEvent({ key: "y", whoHas: { x: [W] }, stimulusId: "s3" }),
    );
    expect(ws.tasks.get("y")!.state).toBe("executing");
    ws.handleStimulus(FreeKeysEvent({ keys: ["y"], stimulusId: "s4" }));
    expect(ws.tasks.get("y")!.state).toBe("cancelled");
    if (releaseDependency) {
      expect(ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "s5" }))).toEqual([
        ReleaseWorkerDataMsg({ key: "x", stimulusId: "s5" }),
      ]);
      expect(ws.tasks.get("x")!.state).toBe("released");
    }
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "y", stimulusId: "s6" }))).toEqual([]);
    expect(ws.tasks.has("y")).toBe(false);
    expect(ws.tasks.has("x")).toBe(!releaseDependency);
  });
});
