// Reference §10: `_ensure_communicating` — which peer is asked for what, in what order,
// and when transfers are throttled.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  AddKeysMsg,
  ComputeTaskEvent,
  FreeKeysEvent,
  GatherDep,
  GatherDepBusyEvent,
  GatherDepSuccessEvent,
  PauseEvent,
  RetryBusyWorkerEvent,
  UnpauseEvent,
} from "../../src/state/index.js";
import { freshWorkerState, match, type WorkerStateOptions } from "../../src/testing/index.js";
import { REMOTE, W2, W3, W4, keysInState, track, worker } from "./helpers.js";

const MiB = 2 ** 20;

describe("peer order and batching", () => {
  it("priority first, then local peers, then peers with more queued tasks (test_gather_priority)", () => {
    const ws = worker({ transferIncomingCountLimit: 3 });
    const [r2, l2, r3, r4, r7] = ["127.0.0.2:1", "127.0.0.1:2", "127.0.0.3:1", "127.0.0.4:1", "127.0.0.7:1"];
    const instructions = ws.handleStimulus(
      PauseEvent({ stimulusId: "pause" }),
      AcquireReplicasEvent({
        whoHas: { x1: [r2, l2], x2: [r2], x3: [r3], x4: [r3], x5: [r4], x8: [r7] },
        nbytes: { x1: 4 * MiB, x2: 4 * MiB, x3: 4 * MiB, x4: 4 * MiB, x5: 4 * MiB, x8: 4 * MiB },
        stimulusId: "compute1",
      }),
      // a higher-priority task, even if scheduled later, is fetched first
      ComputeTaskEvent({ key: "z", whoHas: { y: [r7] }, priority: [0], stimulusId: "compute2" }),
      UnpauseEvent({ stimulusId: "unpause" }),
    );
    expect(instructions).toEqual([
      // highest-priority task first; lower-priority tasks of the same peer join its message
      GatherDep({ worker: r7, toGather: ["y", "x8"], totalNbytes: 1 + 4 * MiB, stimulusId: "unpause" }),
      // then local peers
      GatherDep({ worker: l2, toGather: ["x1"], totalNbytes: 4 * MiB, stimulusId: "unpause" }),
      // then remote peers with the most queued tasks (r2 lost x1 to l2)
      // (equal priorities: heap insertion order, i.e. the LIFO order of the fetch transitions)
      GatherDep({ worker: r3, toGather: ["x4", "x3"], totalNbytes: 8 * MiB, stimulusId: "unpause" }),
    ]);
    // count limit 3 bites because more than 10 MB are in flight
    expect(ws.transferIncomingBytes).toBe(1 + 16 * MiB);
    expect(ws.transferIncomingCount).toBe(3);
    expect(ws.transferIncomingCountTotal).toBe(3);
    expect(keysInState(ws, "fetch")).toEqual(["x2", "x5"]);
  });

  describe.each([1, 2])("test_aggregate_gather_deps with %i peer(s)", (peers) => {
    it.each([
      [10e6, 3],
      [20e6, 2],
      [30e6, 1],
      [60e6, 1],
    ])("nbytes %d → %i per GatherDep (50 MB message limit)", (nbytes, perPeer) => {
      const ws = worker({ transferMessageBytesLimit: 50e6 });
      const addresses = Array.from({ length: peers }, (_, i) => `127.0.0.1:${2 + i}`);
      const whoHas: Record<string, string[]> = {};
      const sizes: Record<string, number> = {};
      for (let i = 0; i < 3 * peers; i++) {
        whoHas[`x${i}`] = [addresses[Math.floor(i / 3)]!];
        sizes[`x${i}`] = nbytes;
      }
      const instructions = ws.handleStimulus(AcquireReplicasEvent({ whoHas, nbytes: sizes, stimulusId: "s1" }));
      expect(instructions).toEqual(addresses.map((worker) => match(GatherDep, { worker, stimulusId: "s1" })));
      for (const instruction of instructions) {
        expect(instruction.kind === "GatherDep" && instruction.toGather.length).toBe(perPeer);
      }
      expect(ws.inFlightTasks.size).toBe(perPeer * peers);
      expect(ws.transferIncomingBytes).toBe(nbytes * perPeer * peers);
      expect(ws.transferIncomingCount).toBe(peers);
      expect(ws.transferIncomingCountTotal).toBe(peers);
    });
  });

  it("one GatherDep per peer for all fetches of a stimulus (#6497)", () => {
    const ws = worker();
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "z", whoHas: { a: [W2], b: [W2], c: [W2], d: [W3], e: [W3] }, stimulusId: "s1" }),
      ),
    ).toEqual([
      // equal priorities: the fetch recommendations drained last-in-first-out queued e, d, c, b, a
      GatherDep({ worker: W2, toGather: ["c", "b", "a"], totalNbytes: 3, stimulusId: "s1" }),
      GatherDep({ worker: W3, toGather: ["e", "d"], totalNbytes: 2, stimulusId: "s1" }),
    ]);
  });

  it("keys of one message are ordered by priority", () => {
    const ws = worker();
    ws.handleStimulus(PauseEvent({ stimulusId: "pause" }));
    ws.handleStimulus(
      ComputeTaskEvent({ key: "c1", priority: [3], whoHas: { d1: [W2] }, stimulusId: "s1" }),
      ComputeTaskEvent({ key: "c2", priority: [1], whoHas: { d2: [W2] }, stimulusId: "s2" }),
      ComputeTaskEvent({ key: "c3", priority: [2], whoHas: { d3: [W2] }, stimulusId: "s3" }),
    );
    expect(ws.handleStimulus(UnpauseEvent({ stimulusId: "unpause" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["d2", "d3", "d1"], totalNbytes: 3, stimulusId: "unpause" }),
    ]);
  });

  it("a local peer wins over a remote one with more tasks at equal priority", () => {
    const ws = worker();
    expect(ws.handleStimulus(AcquireReplicasEvent({ whoHas: { a: [REMOTE], b: [REMOTE], c: [W2] }, stimulusId: "s1" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["c"], totalNbytes: 1, stimulusId: "s1" }),
      GatherDep({ worker: REMOTE, toGather: ["b", "a"], totalNbytes: 2, stimulusId: "s1" }),
    ]);
  });

  it("a remote peer holding the most urgent task goes first", () => {
    const ws = worker();
    expect(
      ws.handleStimulus(
        PauseEvent({ stimulusId: "pause" }),
        AcquireReplicasEvent({ whoHas: { a: [W2] }, stimulusId: "s1" }),
        ComputeTaskEvent({ key: "z", priority: [0], whoHas: { b: [REMOTE] }, stimulusId: "s2" }),
        UnpauseEvent({ stimulusId: "unpause" }),
      ),
    ).toEqual([
      GatherDep({ worker: REMOTE, toGather: ["b"], totalNbytes: 1, stimulusId: "unpause" }),
      GatherDep({ worker: W2, toGather: ["a"], totalNbytes: 1, stimulusId: "unpause" }),
    ]);
  });

  it("a peer with an outstanding gather is not asked again until it answers", () => {
    const ws = worker();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "s1" }));
    expect(ws.handleStimulus(AcquireReplicasEvent({ whoHas: { y: [W2] }, stimulusId: "s2" }))).toEqual([]);
    expect(ws.tasks.get("y")!.state).toBe("fetch");
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "s3" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "s3" }),
      GatherDep({ worker: W2, toGather: ["y"], totalNbytes: 1, stimulusId: "s3" }),
    ]);
  });

  it("busy peers are skipped until retried", () => {
    const ws = worker();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "s1" }), GatherDepBusyEvent({ worker: W2, totalNbytes: 1, stimulusId: "busy" }));
    expect(ws.handleStimulus(AcquireReplicasEvent({ whoHas: { y: [W2] }, stimulusId: "s2" }))).toEqual([]);
    expect(ws.handleStimulus(RetryBusyWorkerEvent({ worker: W2, stimulusId: "retry" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["x", "y"], totalNbytes: 2, stimulusId: "retry" }),
    ]);
  });

  it("ties between peers are broken deterministically (deviation from dask's seeded RNG)", () => {
    const run = () => {
      const ws = track(freshWorkerState());
      return ws.handleStimulus(
        AcquireReplicasEvent({ whoHas: { a: [W4], b: [W2], c: [W3], d: [W2, W3, W4] }, stimulusId: "s1" }),
      );
    };
    const first = run();
    expect(first).toHaveLength(3);
    expect(run()).toEqual(first);
  });

  it("a forgotten task recreated while queued is fetched as the new object (test_forget_data_needed, §18.10)", () => {
    const ws = worker();
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "s1" }), GatherDepBusyEvent({ worker: W2, totalNbytes: 1, stimulusId: "busy" }));
    const old = ws.tasks.get("x")!;
    ws.handleStimulus(FreeKeysEvent({ keys: ["x"], stimulusId: "free" }));
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W2] }, stimulusId: "s2" }));
    const recreated = ws.tasks.get("x")!;
    expect(recreated).not.toBe(old);
    expect(ws.handleStimulus(RetryBusyWorkerEvent({ worker: W2, stimulusId: "retry" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["x"], totalNbytes: 1, stimulusId: "retry" }),
    ]);
    expect(recreated.state).toBe("flight");
    expect(old.state).toBe("forgotten");
  });
});

describe("throttling", () => {
  function throttled(options: WorkerStateOptions) {
    return worker({ transferIncomingCountLimit: 100, ...options });
  }

  it("the count limit applies once 10 MB are in flight (test_throttle_incoming_transfers_on_count_limit)", () => {
    const ws = throttled({ transferIncomingCountLimit: 1 });
    ws.handleStimulus(ComputeTaskEvent({ key: "c", whoHas: { a: [W2], b: [W3] }, nbytes: { a: 10e6, b: 10e6 }, stimulusId: "s1" }));
    const [inFlight] = keysInState(ws, "flight");
    const [queued] = keysInState(ws, "fetch");
    expect(inFlight).toBeDefined();
    expect(queued).toBeDefined();
    expect(ws.transferIncomingBytes).toBe(10e6);
    const holder = inFlight === "a" ? W2 : W3;
    ws.handleStimulus(GatherDepSuccessEvent({ worker: holder, data: { [inFlight!]: 1 }, totalNbytes: 10e6, stimulusId: "s2" }));
    expect(ws.tasks.get(inFlight!)!.state).toBe("memory");
    expect(ws.tasks.get(queued!)!.state).toBe("flight");
    expect(ws.transferIncomingBytes).toBe(10e6);
  });

  it("below 10 MB in flight the count limit does not apply (test_do_not_throttle_connections_while_below_threshold)", () => {
    const ws = throttled({ transferIncomingCountLimit: 1, transferIncomingBytesLimit: 200 });
    ws.handleStimulus(ComputeTaskEvent({ key: "b", whoHas: { a: [W2] }, nbytes: { a: 1 }, stimulusId: "s1" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "d", whoHas: { c: [W3] }, nbytes: { c: 1 }, stimulusId: "s2" }));
    ws.handleStimulus(ComputeTaskEvent({ key: "f", whoHas: { e: [W4] }, nbytes: { e: 100 }, stimulusId: "s3" }));
    expect(keysInState(ws, "flight")).toEqual(["a", "c", "e"]);
    expect(ws.transferIncomingBytes).toBe(102);
  });

  it("the bytes limit applies regardless of the threshold (test_throttle_on_transfer_bytes_regardless_of_threshold)", () => {
    const ws = throttled({ transferIncomingCountLimit: 1, transferIncomingBytesLimit: 100 });
    ws.handleStimulus(ComputeTaskEvent({ key: "b", whoHas: { a: [W2] }, nbytes: { a: 1 }, stimulusId: "s1" }));
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "d", whoHas: { c: [W3] }, nbytes: { c: 100 }, stimulusId: "s2" }))).toEqual([]);
    expect(ws.tasks.get("c")!.state).toBe("fetch");
    expect(ws.transferIncomingBytes).toBe(1);
  });

  it("the bytes limit caps one peer's message (test_throttling_incoming_transfer_on_transfer_bytes_same_worker)", () => {
    const ws = throttled({ transferIncomingBytesLimit: 250 });
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "d", whoHas: { a: [W2], b: [W2], c: [W2] }, nbytes: { a: 100, b: 100, c: 100 }, stimulusId: "s1" }),
      ),
    ).toEqual([GatherDep({ worker: W2, toGather: ["c", "b"], totalNbytes: 200, stimulusId: "s1" })]);
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, data: { b: 1, c: 2 }, totalNbytes: 200, stimulusId: "s2" }))).toEqual([
      // memory recommendations made in toGather order, drained last-in-first-out
      AddKeysMsg({ keys: ["b"], stimulusId: "s2" }),
      AddKeysMsg({ keys: ["c"], stimulusId: "s2" }),
      GatherDep({ worker: W2, toGather: ["a"], totalNbytes: 100, stimulusId: "s2" }),
    ]);
  });

  it("the bytes limit holds back other peers (…_on_transfer_bytes_different_workers)", () => {
    const ws = throttled({ transferIncomingBytesLimit: 150 });
    ws.handleStimulus(ComputeTaskEvent({ key: "c", whoHas: { a: [W2], b: [W3] }, nbytes: { a: 100, b: 100 }, stimulusId: "s1" }));
    const [inFlight] = keysInState(ws, "flight");
    const [queued] = keysInState(ws, "fetch");
    expect(ws.transferIncomingBytes).toBe(100);
    ws.handleStimulus(
      GatherDepSuccessEvent({ worker: inFlight === "a" ? W2 : W3, data: { [inFlight!]: 1 }, totalNbytes: 100, stimulusId: "s2" }),
    );
    expect(ws.tasks.get(queued!)!.state).toBe("flight");
  });

  it("with nothing in flight, the first task goes even if it exceeds every limit (test_throttling_does_not_affect_first_transfer)", () => {
    const ws = throttled({ transferIncomingBytesLimit: 100, transferMessageBytesLimit: 100 });
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "c", whoHas: { a: [W2] }, nbytes: { a: 200 }, stimulusId: "s1" }))).toEqual([
      GatherDep({ worker: W2, toGather: ["a"], totalNbytes: 200, stimulusId: "s1" }),
    ]);
  });

  it("the first task of each message ignores the message limit, not the bytes limit (…_on_different_worker)", () => {
    const ws = throttled({ transferIncomingBytesLimit: 600, transferMessageBytesLimit: 100 });
    ws.handleStimulus(ComputeTaskEvent({ key: "c", whoHas: { a: [W2], b: [W3] }, nbytes: { a: 200, b: 200 }, stimulusId: "s1" }));
    expect(keysInState(ws, "flight")).toEqual(["a", "b"]);

    const tight = throttled({ transferIncomingBytesLimit: 300, transferMessageBytesLimit: 100 });
    tight.handleStimulus(ComputeTaskEvent({ key: "c", whoHas: { a: [W2], b: [W3] }, nbytes: { a: 200, b: 200 }, stimulusId: "s1" }));
    expect(keysInState(tight, "flight")).toHaveLength(1);
  });

  it("the message limit stops adding to one peer's message", () => {
    const ws = worker({ transferMessageBytesLimit: 100 });
    expect(
      ws.handleStimulus(
        ComputeTaskEvent({ key: "z", whoHas: { a: [W2], b: [W2], c: [W2] }, nbytes: { a: 60, b: 30, c: 30 }, stimulusId: "s1" }),
      ),
      // queued c, b, a (LIFO); c + b = 60 leaves 40 < 60 for a
    ).toEqual([GatherDep({ worker: W2, toGather: ["c", "b"], totalNbytes: 60, stimulusId: "s1" })]);
  });

  it("a top task that does not fit stops all gathering in that call, even from other peers (§18.16)", () => {
    const ws = worker({ transferIncomingBytesLimit: 100 });
    ws.handleStimulus(AcquireReplicasEvent({ whoHas: { x: [W4] }, nbytes: { x: 10 }, stimulusId: "s1" }));
    expect(ws.handleStimulus(ComputeTaskEvent({ key: "pa", priority: [0], whoHas: { a: [W2] }, nbytes: { a: 200 }, stimulusId: "s2" }))).toEqual([]);
    expect(ws.handleStimulus(AcquireReplicasEvent({ whoHas: { b: [W3] }, nbytes: { b: 5 }, stimulusId: "s3" }))).toEqual([]);
    expect(keysInState(ws, "fetch")).toEqual(["a", "b"]);
    // once the transfer in flight returns, the big task goes alone (progress guarantee)
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W4, totalNbytes: 10, data: { x: 1 }, stimulusId: "s4" }))).toEqual([
      AddKeysMsg({ keys: ["x"], stimulusId: "s4" }),
      GatherDep({ worker: W2, toGather: ["a"], totalNbytes: 200, stimulusId: "s4" }),
    ]);
  });
});
