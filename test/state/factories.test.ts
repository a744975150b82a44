// CONTRACT §1: every event and instruction is a frozen plain object with `kind`,
// `stimulusId`, the dask field names in camelCase and dask's `.dummy()` defaults.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  AddKeysMsg,
  CancelComputeEvent,
  ComputeTaskEvent,
  DigestMetric,
  Execute,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  FindMissingEvent,
  FreeKeysEvent,
  GatherDep,
  GatherDepBusyEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
  LongRunningMsg,
  PauseEvent,
  RefreshWhoHasEvent,
  ReleaseWorkerDataMsg,
  RemoveReplicasEvent,
  RemoveWorkerEvent,
  RequestRefreshWhoHasMsg,
  RescheduleEvent,
  RescheduleMsg,
  RetryBusyWorkerEvent,
  RetryBusyWorkerLater,
  SecedeEvent,
  StealRequestEvent,
  StealResponseMsg,
  TaskErredMsg,
  TaskFinishedMsg,
  UnpauseEvent,
  UpdateDataEvent,
} from "../../src/state/index.js";

const sid = { stimulusId: "s1" };

function sortedKeys(value: object): string[] {
  return Object.keys(value).sort();
}

describe("event factories fill dask's .dummy() defaults", () => {
  it("ComputeTaskEvent", () => {
    const ev = ComputeTaskEvent({ key: "x", ...sid });
    expect(ev).toMatchObject({
      kind: "ComputeTaskEvent",
      key: "x",
      runId: 0,
      whoHas: {},
      nbytes: {},
      priority: [0],
      resourceRestrictions: {},
      actor: false,
      annotations: {},
      spanId: null,
      duration: 1,
      stimulusId: "s1",
    });
    expect(ev.runSpec).not.toBeNull();
    expect(ev.runSpec).not.toBeUndefined();
    expect(sortedKeys(ev)).toEqual(
      [
        "kind", "key", "runId", "whoHas", "nbytes", "priority", "runSpec", "resourceRestrictions",
        "actor", "annotations", "spanId", "duration", "stimulusId",
      ].sort(),
    );
  });

  it("ComputeTaskEvent derives nbytes = 1 for every key of whoHas when omitted", () => {
    const ev = ComputeTaskEvent({ key: "z", whoHas: { x: ["a:1"], y: ["a:1", "b:1"] }, ...sid });
    expect(ev.nbytes).toEqual({ x: 1, y: 1 });
    const explicit = ComputeTaskEvent({ key: "z", whoHas: { x: ["a:1"] }, nbytes: { x: 42 }, ...sid });
    expect(explicit.nbytes).toEqual({ x: 42 });
  });

  it("ComputeTaskEvent keeps explicit fields", () => {
    const runSpec = { fn: "inc" };
    const ev = ComputeTaskEvent({
      key: "x",
      runId: 7,
      priority: [1, -2],
      runSpec,
      resourceRestrictions: { GPU: 1 },
      actor: true,
      annotations: { a: 1 },
      spanId: "span-1",
      duration: 3,
      ...sid,
    });
    expect(ev).toMatchObject({
      runId: 7,
      priority: [1, -2],
      resourceRestrictions: { GPU: 1 },
      actor: true,
      annotations: { a: 1 },
      spanId: "span-1",
      duration: 3,
    });
    expect(ev.runSpec).toBe(runSpec);
  });

  it("ExecuteSuccessEvent", () => {
    expect(ExecuteSuccessEvent({ key: "x", ...sid })).toEqual({
      kind: "ExecuteSuccessEvent",
      key: "x",
      runId: 1,
      value: null,
      start: 0,
      stop: 1,
      nbytes: 1,
      type: null,
      span: null,
      stimulusId: "s1",
    });
    expect(ExecuteSuccessEvent({ key: "x", value: 123, ...sid }).value).toBe(123);
  });

  it("ExecuteFailureEvent", () => {
    expect(ExecuteFailureEvent({ key: "x", ...sid })).toEqual({
      kind: "ExecuteFailureEvent",
      key: "x",
      runId: 1,
      start: null,
      stop: null,
      exception: null,
      traceback: null,
      exceptionText: "",
      tracebackText: "",
      span: null,
      stimulusId: "s1",
    });
  });

  it("RescheduleEvent", () => {
    expect(RescheduleEvent({ key: "x", ...sid })).toEqual({
      kind: "RescheduleEvent",
      key: "x",
      span: null,
      stimulusId: "s1",
    });
  });

  it("GatherDep*Event", () => {
    expect(GatherDepSuccessEvent({ worker: "w", totalNbytes: 3, data: { x: 1 }, ...sid })).toEqual({
      kind: "GatherDepSuccessEvent",
      worker: "w",
      totalNbytes: 3,
      data: { x: 1 },
      span: null,
      stimulusId: "s1",
    });
    expect(GatherDepBusyEvent({ worker: "w", totalNbytes: 3, ...sid })).toEqual({
      kind: "GatherDepBusyEvent",
      worker: "w",
      totalNbytes: 3,
      span: null,
      stimulusId: "s1",
    });
    expect(GatherDepNetworkFailureEvent({ worker: "w", totalNbytes: 3, ...sid })).toEqual({
      kind: "GatherDepNetworkFailureEvent",
      worker: "w",
      totalNbytes: 3,
      span: null,
      stimulusId: "s1",
    });
    expect(GatherDepFailureEvent({ worker: "w", totalNbytes: 3, ...sid })).toEqual({
      kind: "GatherDepFailureEvent",
      worker: "w",
      totalNbytes: 3,
      exception: null,
      traceback: null,
      exceptionText: "",
      tracebackText: "",
      span: null,
      stimulusId: "s1",
    });
  });

  it("events with plain payloads", () => {
    expect(FreeKeysEvent({ keys: ["a", "b"], ...sid })).toEqual({ kind: "FreeKeysEvent", keys: ["a", "b"], stimulusId: "s1" });
    expect(RemoveReplicasEvent({ keys: ["a"], ...sid })).toEqual({ kind: "RemoveReplicasEvent", keys: ["a"], stimulusId: "s1" });
    expect(AcquireReplicasEvent({ whoHas: { a: ["w"] }, nbytes: { a: 5 }, ...sid })).toEqual({
      kind: "AcquireReplicasEvent",
      whoHas: { a: ["w"] },
      nbytes: { a: 5 },
      stimulusId: "s1",
    });
    expect(RefreshWhoHasEvent({ whoHas: { a: [] }, ...sid })).toEqual({ kind: "RefreshWhoHasEvent", whoHas: { a: [] }, stimulusId: "s1" });
    expect(CancelComputeEvent({ key: "a", ...sid })).toEqual({ kind: "CancelComputeEvent", key: "a", stimulusId: "s1" });
    expect(StealRequestEvent({ key: "a", ...sid })).toEqual({ kind: "StealRequestEvent", key: "a", stimulusId: "s1" });
    expect(SecedeEvent({ key: "a", computeDuration: 2, ...sid })).toEqual({
      kind: "SecedeEvent",
      key: "a",
      computeDuration: 2,
      stimulusId: "s1",
    });
    expect(UpdateDataEvent({ data: { a: 1 }, ...sid })).toEqual({ kind: "UpdateDataEvent", data: { a: 1 }, stimulusId: "s1" });
    expect(RemoveWorkerEvent({ worker: "w", ...sid })).toEqual({ kind: "RemoveWorkerEvent", worker: "w", stimulusId: "s1" });
    expect(RetryBusyWorkerEvent({ worker: "w", ...sid })).toEqual({ kind: "RetryBusyWorkerEvent", worker: "w", stimulusId: "s1" });
    expect(PauseEvent(sid)).toEqual({ kind: "PauseEvent", stimulusId: "s1" });
    expect(UnpauseEvent(sid)).toEqual({ kind: "UnpauseEvent", stimulusId: "s1" });
    expect(FindMissingEvent(sid)).toEqual({ kind: "FindMissingEvent", stimulusId: "s1" });
  });
});

describe("instruction factories", () => {
  it("Execute, GatherDep, RetryBusyWorkerLater", () => {
    expect(Execute({ key: "x", ...sid })).toEqual({ kind: "Execute", key: "x", stimulusId: "s1" });
    expect(GatherDep({ worker: "w", toGather: ["a", "b"], totalNbytes: 2, ...sid })).toEqual({
      kind: "GatherDep",
      worker: "w",
      toGather: ["a", "b"],
      totalNbytes: 2,
      stimulusId: "s1",
    });
    expect(RetryBusyWorkerLater({ worker: "w", ...sid })).toEqual({ kind: "RetryBusyWorkerLater", worker: "w", stimulusId: "s1" });
  });

  it("DigestMetric only carries `outcome` when given", () => {
    const plain = DigestMetric({ name: ["execute", "inc", "thread-cpu", "seconds"], value: 1.5, ...sid });
    expect(plain).toEqual({ kind: "DigestMetric", name: ["execute", "inc", "thread-cpu", "seconds"], value: 1.5, stimulusId: "s1" });
    expect("outcome" in plain).toBe(false);
    const withOutcome = DigestMetric({ name: ["gather-dep", "network", "seconds"], value: 2, outcome: "busy", ...sid });
    expect(withOutcome.outcome).toBe("busy");
    expect(DigestMetric({ name: ["a", "seconds"], value: 1, outcome: undefined, ...sid })).not.toHaveProperty("outcome");
  });

  it("every scheduler message carries its op", () => {
    const messages = [
      [TaskFinishedMsg({ key: "x", runId: 1, nbytes: 8, ...sid }), "task-finished"],
      [TaskErredMsg({ key: "x", runId: 1, ...sid }), "task-erred"],
      [ReleaseWorkerDataMsg({ key: "x", ...sid }), "release-worker-data"],
      [RescheduleMsg({ key: "x", ...sid }), "reschedule"],
      [LongRunningMsg({ key: "x", runId: 1, computeDuration: null, ...sid }), "long-running"],
      [AddKeysMsg({ keys: ["x"], ...sid }), "add-keys"],
      [RequestRefreshWhoHasMsg({ keys: ["x"], ...sid }), "request-refresh-who-has"],
      [StealResponseMsg({ key: "x", state: null, ...sid }), "steal-response"],
    ] as const;
    for (const [message, op] of messages) {
      expect(message.op).toBe(op);
      expect(message.stimulusId).toBe("s1");
    }
  });

  it("message fields follow the contract", () => {
    expect(sortedKeys(TaskFinishedMsg({ key: "x", ...sid }))).toEqual(
      ["kind", "op", "key", "runId", "nbytes", "type", "typename", "metadata", "thread", "startstops", "stimulusId"].sort(),
    );
    expect(sortedKeys(TaskErredMsg({ key: "x", ...sid }))).toEqual(
      [
        "kind", "op", "key", "runId", "exception", "traceback", "exceptionText", "tracebackText", "thread",
        "startstops", "stimulusId",
      ].sort(),
    );
    expect(LongRunningMsg({ key: "x", runId: 3, computeDuration: 1.5, ...sid })).toEqual({
      kind: "LongRunningMsg",
      op: "long-running",
      key: "x",
      runId: 3,
      computeDuration: 1.5,
      stimulusId: "s1",
    });
    expect(StealResponseMsg({ key: "x", state: "ready", ...sid })).toEqual({
      kind: "StealResponseMsg",
      op: "steal-response",
      key: "x",
      state: "ready",
      stimulusId: "s1",
    });
    expect(AddKeysMsg({ keys: ["x"], ...sid })).toEqual({ kind: "AddKeysMsg", op: "add-keys", keys: ["x"], stimulusId: "s1" });
  });
});

describe("immutability and plain data", () => {
  const samples = () => [
    ComputeTaskEvent({ key: "x", whoHas: { y: ["w"] }, priority: [0, 1], resourceRestrictions: { R: 1 }, ...sid }),
    AcquireReplicasEvent({ whoHas: { a: ["w"] }, nbytes: { a: 5 }, ...sid }),
    FreeKeysEvent({ keys: ["a"], ...sid }),
    GatherDep({ worker: "w", toGather: ["a"], totalNbytes: 1, ...sid }),
    AddKeysMsg({ keys: ["x"], ...sid }),
    RequestRefreshWhoHasMsg({ keys: ["x"], ...sid }),
    DigestMetric({ name: ["a", "seconds"], value: 1, ...sid }),
  ];

  it("objects and their structural containers are frozen", () => {
    for (const sample of samples()) {
      expect(Object.isFrozen(sample), sample.kind).toBe(true);
      for (const [field, value] of Object.entries(sample)) {
        if (field === "runSpec") continue; // opaque payload, belongs to the caller
        if (typeof value === "object" && value !== null) expect(Object.isFrozen(value), `${sample.kind}.${field}`).toBe(true);
      }
    }
    const ev = ComputeTaskEvent({ key: "x", whoHas: { y: ["w"] }, ...sid });
    expect(Object.isFrozen(ev.whoHas.y)).toBe(true);
    expect(() => {
      (ev as { key: string }).key = "other";
    }).toThrow(TypeError);
  });

  it("events and instructions survive a JSON round trip", () => {
    for (const sample of samples()) {
      if (sample.kind === "ComputeTaskEvent") continue; // runSpec marker is opaque
      expect(JSON.parse(JSON.stringify(sample))).toEqual(sample);
    }
  });

  it("factories do not share state between calls", () => {
    const a = ComputeTaskEvent({ key: "x", ...sid });
    const b = ComputeTaskEvent({ key: "x", ...sid });
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
  });
});

describe("public entry point", () => {
  it("re-exports the factories and errors from the package root", async () => {
    // Imported lazily: the root pulls in every subsystem, and this file should test the
    // factories even while another subsystem is broken.
    const spanwork: Record<string, unknown> = await import("../../src/index.js");
    for (const name of [
      "ComputeTaskEvent", "ExecuteSuccessEvent", "ExecuteFailureEvent", "RescheduleEvent", "GatherDepSuccessEvent",
      "GatherDepBusyEvent", "GatherDepNetworkFailureEvent", "GatherDepFailureEvent", "FreeKeysEvent",
      "RemoveReplicasEvent", "AcquireReplicasEvent", "RefreshWhoHasEvent", "CancelComputeEvent", "StealRequestEvent",
      "SecedeEvent", "UpdateDataEvent", "RemoveWorkerEvent", "RetryBusyWorkerEvent", "PauseEvent", "UnpauseEvent",
      "FindMissingEvent", "Execute", "GatherDep", "RetryBusyWorkerLater", "DigestMetric", "TaskFinishedMsg",
      "TaskErredMsg", "ReleaseWorkerDataMsg", "RescheduleMsg", "LongRunningMsg", "AddKeysMsg",
      "RequestRefreshWhoHasMsg", "StealResponseMsg", "WorkerState", "InvalidTransition",
      "TransitionCounterMaxExceeded", "InvalidTaskState", "RecommendationsConflict", "keySplit",
    ]) {
      expect(typeof spanwork[name], name).toBe("function");
    }
  });

  it("factory names equal their kind", () => {
    const factories = [ComputeTaskEvent, ExecuteSuccessEvent, FreeKeysEvent, Execute, GatherDep, TaskFinishedMsg, StealResponseMsg];
    for (const factory of factories) expect(factory.name).toMatch(/^[A-Z]/);
    expect(Execute.name).toBe("Execute");
    expect(ComputeTaskEvent.name).toBe("ComputeTaskEvent");
  });
});
