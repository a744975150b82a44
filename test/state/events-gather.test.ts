// Reference §8: the GatherDep*Events, RemoveWorkerEvent, RetryBusyWorkerEvent,
// RefreshWhoHasEvent, AcquireReplicasEvent and FindMissingEvent.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  AddKeysMsg,
  ComputeTaskEvent,
  FindMissingEvent,
  GatherDep,
  GatherDepBusyEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
  RefreshWhoHasEvent,
  RemoveWorkerEvent,
  RequestRefreshWhoHasMsg,
  RetryBusyWorkerEvent,
  RetryBusyWorkerLater,
  TaskErredMsg,
} from "../../src/state/index.js";
import { match, taskInState } from "../../src/testing/index.js";
import { REMOTE, W2, W3, keysInState, skipFinalValidation, worker } from "./helpers.js";

describe("GatherDepSuccessEvent", () => {
  it("partial answer: present keys to memory, absent keys lose that holder", () => {
    const ws = worker();
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "z", whoHas: { x: [W2], y: [W2] }, nbytes: { x: 3, y: 4 }, stimulusId: "s1" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["y", "x"], totalNbytes: 7, stimulusId: "s1" }),
    ]);
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 7, data: { x: 1, unrelated: 2 }, stimulusId: "s2" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "s2" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("memory");
    expect(ws.tasks.get("y")!.state).toBe("missing");
    expect(ws.tasks.has("unrelated")).toBe(false);
    expect(ws.data.has("unrelated")).toBe(false);
    expect(ws.hasWhat.get(W2)?.has("y") ?? false).toBe(false);
    expect(ws.tasks.get("z")!.state).toBe("waiting");
    expect(ws.handleStimulus(FindMissingEvent({ stimulusId: "find" }))).toEqual([RequestRefreshWhoHasMsg({ keys: ["y"], stimulusId: "find" })]);
  });

  it("transfer counters (test_transfer_incoming_metrics)", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "b", whoHas: { a: [W2] }, nbytes: { a: 7 }, stimulusId: "s1" }));
    expect([ws.transferIncomingBytes, ws.transferIncomingCount, ws.transferIncomingCountTotal]).toEqual([7, 1, 1]);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, data: { a: 123 }, totalNbytes: 7, stimulusId: "s2" }));
    expect([ws.transferIncomingBytes, ws.transferIncomingCount, ws.transferIncomingCountTotal]).toEqual([0, 0, 1]);
    ws.handleStimulus(ComputeTaskEvent({ key: "e", whoHas: { c: [W2], d: [W2] }, nbytes: { c: 11, d: 13 }, stimulusId: "s3" }));
    expect([ws.transferIncomingBytes, ws.transferIncomingCount, ws.transferIncomingCountTotal]).toEqual([24, 1, 2]);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, data: { c: 1, d: 2 }, totalNbytes: 24, stimulusId: "s4" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "h", whoHas: { f: [W2], g: [W3] }, nbytes: { f: 17, g: 19 }, stimulusId: "s5" }));
    expect([ws.transferIncomingBytes, ws.transferIncomingCount, ws.transferIncomingCountTotal]).toEqual([36, 2, 4]);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W3, data: { g: 1 }, totalNbytes: 19, stimulusId: "s6" }));
    expect([ws.transferIncomingBytes, ws.transferIncomingCount, ws.transferIncomingCountTotal]).toEqual([17, 1, 4]);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, data: { f: 1 }, totalNbytes: 17, stimulusId: "s7" }));
    expect([ws.transferIncomingBytes, ws.transferIncomingCount, ws.transferIncomingCountTotal]).toEqual([0, 0, 4]);
    // b took the only thread; e and h wait for it
    expect(ws.tasks.get("h")!.state).toBe("ready");
  });

  it("trusts the event's totalNbytes, even when it disagrees (§18.15)", () => {
    const ws = worker();
    taskInState(ws, "x", "flight", { nbytes: 1 });
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 8, data: { x: 1 }, stimulusId: "s2" }));
    expect(ws.transferIncomingBytes).toBe(-7);
  });
});

describe("GatherDepBusyEvent / RetryBusyWorkerEvent", () => {
  it("busy sole holder: retry later and ask who else has the key; retry fetches again", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    expect(ws.handleStimulus(GatherDepBusyEvent({ worker: W2, totalNbytes: 1, stimulusId: "busy" }))).toEqual([
      RetryBusyWorkerLater({ worker: W2, stimulusId: "busy" }),
      RequestRefreshWhoHasMsg({ keys: ["x"], stimulusId: "busy" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("fetch");
    expect([...ws.busyWorkers]).toEqual([W2]);
    expect([...ws.tasks.get("x")!.whoHas]).toEqual([W2]);
    expect(ws.handleStimulus(RetryBusyWorkerEvent({ worker: W2, stimulusId: "retry" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "retry" }),
    ]);
    expect(ws.busyWorkers.size).toBe(0);
  });

  it("busy holder with an alternative: the other holder is tried at once, no who-has request", () => {
    const ws = worker();
    expect(ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [REMOTE, W2] }, stimulusId: "s1" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" }),
    ]);
    expect(ws.handleStimulus(GatherDepBusyEvent({ worker: W2, totalNbytes: 1, stimulusId: "busy" }))).toEqual([
      RetryBusyWorkerLater({ worker: W2, stimulusId: "busy" }),
      GatherDep({ worker: REMOTE, toGather: ["x"], totalNbytes: 1, stimulusId: "busy" }),
    ]);
  });

  it("retrying a peer that is no longer needed sends nothing", () => {
    const ws = worker();
    expect(ws.handleStimulus(RetryBusyWorkerEvent({ worker: W2, stimulusId: "retry" }))).toEqual([]);
  });
});

describe("GatherDepNetworkFailureEvent / RemoveWorkerEvent", () => {
  it("network failure: the in-flight and queued tasks held only by that peer go missing (test_fetch_to_missing_on_network_failure)", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { y: [W2], z: [W2, W3] }, stimulusId: "s2" }));
    expect(ws.tasks.get("y")!.state).toBe("fetch");
    expect(ws.tasks.get("z")!.state).toBe("flight");
    expect(ws.handleStimulus(GatherDepNetworkFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "fail" }))).toEqual([]);
    expect(keysInState(ws, "missing")).toEqual(["x", "y"]);
    expect(ws.hasWhat.has(W2)).toBe(false);
    expect(ws.dataNeeded.has(W2)).toBe(false);
    expect([...ws.tasks.get("z")!.whoHas]).toEqual([W3]);
    expect(ws.transferIncomingCount).toBe(1);
  });

  it("network failure with another holder re-fetches from it", () => {
    const ws = worker();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [REMOTE, W2] }, stimulusId: "s1" }));
    expect(ws.handleStimulus(GatherDepNetworkFailureEvent({ worker: W2, totalNbytes: 1, stimulusId: "fail" }))).toEqual([
      GatherDep({ worker: REMOTE, toGather: ["x"], totalNbytes: 1, stimulusId: "fail" }),
    ]);
  });

  it("remove-worker: queued tasks held only there go missing; the in-flight one stays in flight", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { y: [W2] }, stimulusId: "s2" }));
    expect(ws.handleStimulus(RemoveWorkerEvent({ worker: W2, stimulusId: "remove" }))).toEqual([]);
    expect(ws.tasks.get("x")!.state).toBe("flight");
    expect(ws.tasks.get("x")!.whoHas.size).toBe(0);
    expect(ws.tasks.get("y")!.state).toBe("missing");
    expect(ws.hasWhat.has(W2)).toBe(false);
    // the outstanding gather still lands
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "g" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "g" }),
    ]);
  });
});

describe("GatherDepFailureEvent", () => {
  it("errs the tasks; dependents stay waiting (test_gather_dep_failure, #6705)", () => {
    const ws = worker();
    const instructions = ws.handleStimulus(
      ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, stimulusId: "s1" }),
      GatherDepFailureEvent({ worker: W2, totalNbytes: 1, exceptionText: "boom", stimulusId: "s2" }),
    );
    expect(instructions).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" }),
      match(TaskErredMsg, { key: "x", exceptionText: "boom", stimulusId: "s2" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("error");
    expect(ws.tasks.get("y")!.state).toBe("waiting");
    expect([ws.transferIncomingBytes, ws.transferIncomingCount, ws.transferIncomingCountTotal]).toEqual([0, 0, 1]);
    skipFinalValidation(ws, "dask #6705: a waiting task with an erred dependency is invalid");
  });
});

describe("AcquireReplicasEvent / RefreshWhoHasEvent / FindMissingEvent", () => {
  it("acquire-replicas uses priority [1] and does not refetch a key in memory", () => {
    const ws = worker();
    const { ts: m } = taskInState(ws, "m", "memory");
    const nbytesInMemory = m.nbytes;
    expect(ws.handleStimulus(AcquireReplicasEvent({ whoHas: { m: [W2], x: [W2] }, nbytes: { m: 5, x: 6 }, stimulusId: "s1" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 6, stimulusId: "s1" }),
    ]);
    expect(ws.tasks.get("x")!.priority).toEqual([1]);
    expect(ws.tasks.get("m")!.state).toBe("memory");
    expect(m.nbytes).toBe(nbytesInMemory);
  });

  it("a new replica while all holders are in flight is fetched at once (test_new_replica_while_all_workers_in_flight)", () => {
    const ws = worker();
    const instructions = ws.handleStimulus(
      AcquireReplicasEvent({ whoHas: { x: [W2] }, nbytes: { x: 1 }, stimulusId: "s1" }),
      AcquireReplicasEvent({ whoHas: { y: [W2] }, nbytes: { y: 1 }, stimulusId: "s2" }),
      AcquireReplicasEvent({ whoHas: { y: [W2, W3] }, nbytes: { y: 1 }, stimulusId: "s3" }),
    );
    expect(instructions).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "s1" }),
      GatherDep({ worker: W3, toGather: ["y"], totalNbytes: 1, stimulusId: "s3" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("flight");
    expect(ws.tasks.get("y")!.state).toBe("flight");
  });

  it("refresh-who-has: missing → fetch, fetch → missing, unknown keys ignored (test_fetch_to_missing_on_refresh_who_has)", () => {
    const ws = worker();
    taskInState(ws, "x", "fetch");
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { y: [W2] }, stimulusId: "s2" }));
    expect(ws.tasks.get("y")!.state).toBe("fetch");
    expect(ws.handleStimulus(RefreshWhoHasEvent({ whoHas: { x: [], y: [W3], unknown: [W3] }, stimulusId: "refresh" }))).toEqual([
      GatherDep({ worker: W3, toGather: ["y"], totalNbytes: 1, stimulusId: "refresh" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("missing");
    expect(ws.tasks.get("y")!.state).toBe("flight");
    expect([...ws.tasks.get("y")!.whoHas]).toEqual([W3]);
    expect(ws.tasks.has("unknown")).toBe(false);
  });

  it("a replica lost while queued is not requested from that peer (test_lose_replica_during_fetch)", () => {
    const ws = worker();
    ws.handleStimulus(
      AcquireReplicasEvent({ whoHas: { a: [W2] }, stimulusId: "s1" }),
      AcquireReplicasEvent({ whoHas: { b: [W3] }, stimulusId: "s2" }),
      AcquireReplicasEvent({ whoHas: { x: [W2, W3] }, stimulusId: "s3" }),
    );
    expect(ws.tasks.get("x")!.state).toBe("fetch");
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W3] }, stimulusId: "s4" }));
    expect(ws.dataNeeded.get(W2)?.size ?? 0).toBe(0);
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { a: 1 }, stimulusId: "g2" }))).toEqual([
      AddKeysMsg({ keys: ["a"], stimulusId: "g2" }),
    ]);
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W3, totalNbytes: 1, data: { b: 1 }, stimulusId: "g3" }))).toEqual([
      AddKeysMsg({ keys: ["b"], stimulusId: "g3" }),
      GatherDep({ worker: W3, toGather: ["x"], totalNbytes: 1, stimulusId: "g3" }),
    ]);
  });

  it("find-missing asks for every missing key and is not kept in the stimulus log", () => {
    const ws = worker();
    taskInState(ws, "x", "missing");
    taskInState(ws, "y", "missing", { peer: W3 });
    const logged = [...ws.stimulusLog].length;
    expect(ws.handleStimulus(FindMissingEvent({ stimulusId: "find" }))).toEqual([
      RequestRefreshWhoHasMsg({ keys: ["x", "y"], stimulusId: "find" }),
    ]);
    expect([...ws.stimulusLog].length).toBe(logged);
  });

  it("find-missing without missing tasks sends nothing", () => {
    const ws = worker();
    expect(ws.handleStimulus(FindMissingEvent({ stimulusId: "find" }))).toEqual([]);
  });
});
