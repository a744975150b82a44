// dask 2022.12.1's active memory manager with its default policy, ReduceReplicas
// (active_memory_manager.py; on by default, every 2 s): a key held by more workers than its
// waiters need loses the extra copies. Waiters are the dependents not yet in memory; those
// processing count once per worker, those not placed yet once each. A copy is never dropped
// from a worker where a waiter is processing, and the one dropped is on the worker storing
// the most (`_find_dropper`, whose memory measure is the heartbeat's "optimistic" one:
// here the scheduler's stored bytes, as the model has no unmanaged memory on that side).
// The scheduler forgets the copy at once and tells the worker (request_remove_replicas).
import type { TaskGraph } from "../graph.js";
import type { ClusterState } from "./cluster.js";
import { TaskStatus } from "./lifecycle.js";

/** Per worker, the tasks whose copy it is to drop, in the order they were planned. */
export type ReplicaDrops = Map<number, number[]>;

const NONE: ReplicaDrops = new Map();

/** One ReduceReplicas pass over the replicated tasks; the caller enacts the drops. O(holders) per drop, not O(workers). */
export function planReplicaDrops(cluster: ClusterState, graph: TaskGraph, status: Uint8Array): ReplicaDrops {
  if (cluster.replicated.size === 0) return NONE;
  const n = cluster.workers.length;
  const memory = new Float64Array(n);
  for (const ws of cluster.workers) memory[ws.index] = ws.nbytes;
  // Python's set order is address order here: a tie of the dropper's key goes to the first.
  const rank = new Int32Array(n);
  cluster.byAddress.forEach((w, i) => (rank[w] = i));
  const pending = new Uint8Array(n);
  const drops: ReplicaDrops = new Map();
  const processingOn = new Set<number>();
  for (const task of cluster.replicated) {
    if (status[task] !== TaskStatus.Memory) continue;
    processingOn.clear();
    let unplaced = 0;
    for (let e = graph.dependentStart[task]!; e < graph.dependentStart[task + 1]!; e++) {
      const dependent = graph.dependents[e]!;
      const s = status[dependent]!;
      if (s === TaskStatus.Processing) processingOn.add(cluster.processingWorker[dependent]!);
      else if (s === TaskStatus.Waiting || s === TaskStatus.Queued || s === TaskStatus.NoWorker) unplaced++;
    }
    const holders = cluster.whoHas(task);
    let dropped = 0;
    for (let excess = holders.length - Math.max(1, processingOn.size + unplaced); excess > 0; excess--) {
      const worker = dropper(cluster, holders, processingOn, pending, dropped, memory, rank);
      if (worker < 0) break;
      pending[worker] = 1;
      dropped++;
      memory[worker] = Math.max(0, memory[worker]! - cluster.taskBytes[task]!);
      const planned = drops.get(worker);
      if (planned === undefined) drops.set(worker, [task]);
      else planned.push(task);
    }
    if (dropped > 0) for (const w of holders) pending[w] = 0;
  }
  return drops;
}

/**
 * `_find_dropper`: the holder to lose a copy, or -1 — never the last copy, never a worker
 * where a waiter is processing, and not the one running holder left when the others that
 * have waiters processing are all paused (its ping-pong guard against RetireWorker).
 * `pending` marks the `dropped` holders already planned to lose theirs.
 */
function dropper(
  cluster: ClusterState,
  holders: readonly number[],
  processingOn: ReadonlySet<number>,
  pending: Uint8Array,
  dropped: number,
  memory: Float64Array,
  rank: Int32Array,
): number {
  if (holders.length - dropped < 2) return -1;
  let best = -1;
  let bestRunning = false;
  let candidates = 0;
  let withWaiters = 0;
  let withWaitersRunning = 0;
  // max() over a set: the largest (not running first, then memory), the first in address order of those.
  for (const w of holders) {
    if (pending[w] === 1) continue;
    const running = cluster.workers[w]!.status === "running";
    if (processingOn.has(w)) {
      withWaiters++;
      if (running) withWaitersRunning++;
      continue;
    }
    candidates++;
    if (best < 0 || (bestRunning && !running) || (bestRunning === running && (memory[w]! > memory[best]! || (memory[w] === memory[best] && rank[w]! < rank[best]!)))) {
      best = w;
      bestRunning = running;
    }
  }
  if (best >= 0 && candidates === 1 && bestRunning && withWaiters > 0 && withWaitersRunning === 0) return -1;
  return best;
}
