// planReplicaDrops (dask 2022.12.1's ReduceReplicas and _find_dropper) on a ClusterState set by
// hand: which holder loses a copy when memory ties (the first in address order, as dask's max()
// over a set keeps its first), paused holders before running ones, the ping-pong guard, and never
// the last copy — worked out from active_memory_manager.py.
import { describe, expect, it } from "vitest";
import { ClusterState, TaskStatus } from "../../src/sim/scheduler/index.js";
import { planReplicaDrops } from "../../src/sim/scheduler/reduce-replicas.js";
import { graphOf } from "./scheduler-harness.js";

// Addresses whose order is not the workers' index order: w1 < w10 < w2 < w3.
const ADDRESSES = ["w10", "w2", "w1", "w3"];

/** `k-0` (100 B) in memory on `holders`, with `dependents` dependents, each waiting or processing on a worker. */
function state(holders: number[], dependents: Array<number | "waiting"> = [], extra: Array<[worker: number, bytes: number]> = []) {
  const graph = graphOf([["k-0", [], 100], ...dependents.map((_, i): [string, string[]] => [`d-${i}`, ["k-0"]]), ...extra.map((_, i): [string, string[], number] => [`e-${i}`, [], extra[i]![1]])]);
  const cluster = new ClusterState(graph, ADDRESSES.map((address) => ({ address, nthreads: 1 })));
  const status = new Uint8Array(graph.size).fill(TaskStatus.Waiting);
  const k = graph.idOf("k-0")!;
  status[k] = TaskStatus.Memory;
  for (const w of holders) cluster.addReplica(k, w);
  dependents.forEach((where, i) => {
    const id = graph.idOf(`d-${i}`)!;
    if (where === "waiting") return;
    status[id] = TaskStatus.Processing;
    cluster.processingWorker[id] = where;
  });
  extra.forEach(([w], i) => {
    const id = graph.idOf(`e-${i}`)!;
    status[id] = TaskStatus.Memory;
    cluster.addReplica(id, w);
  });
  const drops = (): Array<[number, string[]]> => [...planReplicaDrops(cluster, graph, status)].map(([w, tasks]) => [w, tasks.map((t) => graph.keys[t]!)]);
  return { cluster, drops };
}

describe("planReplicaDrops", () => {
  it("drops every copy but one when nothing waits; on a tie of memory, from the holders first in address order", () => {
    // All four store 100 B: the first pick is w1 (index 2), then w10 (0), then w2 (1); w3 keeps it.
    expect(state([0, 1, 2, 3]).drops()).toEqual([[2, ["k-0"]], [0, ["k-0"]], [1, ["k-0"]]]);
  });

  it("takes the holder storing the most, whatever its address", () => {
    expect(state([0, 1, 2, 3], [], [[3, 500]]).drops()).toEqual([[3, ["k-0"]], [2, ["k-0"]], [0, ["k-0"]]]);
  });

  it("drops from a paused holder before a running one storing more", () => {
    const { cluster, drops } = state([0, 1], [], [[0, 500]]);
    cluster.setStatus(1, "paused");
    expect(drops()).toEqual([[1, ["k-0"]]]);
  });

  it("keeps a copy per waiter, never where one processes, and counts those on one worker once", () => {
    // Two waiters processing on w10 (index 0): one worker, so one copy is kept — w10's.
    expect(state([0, 1, 2], [0, 0]).drops()).toEqual([[2, ["k-0"]], [1, ["k-0"]]]);
    // One processing on w2, one not placed: two copies kept, w2's among them.
    expect(state([0, 1, 2], [1, "waiting"], [[1, 900]]).drops()).toEqual([[2, ["k-0"]]]);
  });

  it("keeps the last running holder's copy while the holders with waiters processing are all paused (the ping-pong guard)", () => {
    const paused = state([0, 1], [0]);
    paused.cluster.setStatus(0, "paused");
    expect(paused.drops()).toEqual([]);
    // With the waiter's holder running, the other copy goes.
    expect(state([0, 1], [0]).drops()).toEqual([[1, ["k-0"]]]);
  });
});
