// Which queued fetches become GatherDep instructions (dask's `_ensure_communicating`,
// `_select_workers_for_gather`, `_select_keys_for_gather`).
import type { StateCore } from "../core.js";
import { addressHasHost } from "../address.js";
import { GatherDep, type Instruction } from "../instructions.js";
import { comparePriority } from "../priority-entries.js";
import type { PrioritySet } from "../priority-set.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { forEachLink } from "../links.js";
import type { TaskState } from "../task-state.js";
import type { Key, Priority } from "../events.js";

export function shouldThrottleIncomingTransfers(core: StateCore): boolean {
  const reachedCountLimit = core.transferIncomingCount >= core.transferIncomingCountLimit;
  const reachedThrottleThreshold = core.transferIncomingBytes >= core.transferIncomingBytesThrottleThreshold;
  const reachedBytesLimit = core.transferIncomingBytes >= core.transferIncomingBytesLimit;
  return (reachedCountLimit && reachedThrottleThreshold) || reachedBytesLimit;
}

/**
 * At most one GatherDep per idle, non-busy peer, peers ordered by their most urgent task,
 * local before remote, then by how many tasks they could serve. Stops at the first peer
 * for which nothing fits, and as soon as transfers are throttled.
 */
export function ensureCommunicating(
  core: StateCore,
  recs: RecommendationStack,
  out: Instruction[],
  stimulusId: string,
): void {
  if (!core.running || core.idleQueuedPeers === 0) return;
  if (shouldThrottleIncomingTransfers(core)) return;

  // Runs after every stimulus while anything is queued, and usually finds every peer in
  // flight: the peer queue is built only for a real candidate. Iterating the keys allocates
  // nothing (optimised code); `forEach` with a closure allocated 56 bytes per call and
  // iterating entries 512 (8 peers, measured).
  let queue: PeerQueue | null = null;
  for (const worker of core.dataNeeded.keys()) {
    if (!core.isFree(worker)) continue;
    const tasks = core.dataNeeded.get(worker) as PrioritySet<TaskState>;
    (queue ??= new PeerQueue()).push({
      priority: (tasks.peek() as TaskState).priority ?? [],
      isRemote: core.host === null || !addressHasHost(worker, core.host),
      ntasks: tasks.size,
      worker,
      tasks,
    });
  }
  if (queue === null) return;

  for (;;) {
    const peer = queue.pop();
    if (peer === undefined) return;
    const { worker, tasks } = peer;
    // Lazily re-sort: an earlier peer may have taken replicated tasks from this heap.
    if (tasks.size === 0) continue;
    if (tasks.size !== peer.ntasks) {
      queue.push({ ...peer, priority: (tasks.peek() as TaskState).priority ?? [], ntasks: tasks.size });
      continue;
    }
    const [toGather, messageNbytes] = selectKeysForGather(core, tasks);
    if (toGather.length === 0) return;

    const keys: Key[] = new Array(toGather.length);
    for (let i = 0; i < toGather.length; i++) keys[i] = (toGather[i] as TaskState).key;
    core.logEntry(["gather-dependencies", worker, keys, stimulusId, core.stimulusSeq]);
    const flight = Rec.flight(worker);
    for (let i = 0; i < toGather.length; i++) recs.add(toGather[i] as TaskState, flight);
    out.push(GatherDep({ worker, toGather: keys, totalNbytes: messageNbytes, stimulusId }));
    core.setInFlight(worker, toGather);
    core.transferIncomingCountTotal++;
    core.transferIncomingBytes += messageNbytes;
    if (shouldThrottleIncomingTransfers(core)) return;
  }
}

/** Take tasks from the top of `available` while they fit the transfer limits. */
function selectKeysForGather(core: StateCore, available: PrioritySet<TaskState>): [TaskState[], number] {
  const toGather: TaskState[] = [];
  let messageNbytes = 0;
  for (;;) {
    const ts = available.peek();
    if (ts === undefined) break;
    if (taskExceedsTransferLimits(core, ts, messageNbytes)) break;
    // Taking it from every holder's heap also pops it from `available`.
    forEachLink(ts._whoHas, discardFromDataNeeded, core, ts);
    available.discard(ts);
    toGather.push(ts);
    messageNbytes += ts.getNbytes();
  }
  return [toGather, messageNbytes];
}

function discardFromDataNeeded(worker: string, core: StateCore, ts: TaskState): void {
  core.discardFromDataNeeded(worker, ts);
}

function taskExceedsTransferLimits(core: StateCore, ts: TaskState, messageNbytes: number): boolean {
  // With nothing else in flight the most urgent task goes regardless of size (progress).
  if (core.transferIncomingBytes === 0 && messageNbytes === 0) return false;
  let allowance = core.transferIncomingBytesLimit - core.transferIncomingBytes;
  // The first task of a message ignores the per-message limit (progress again).
  if (messageNbytes !== 0) allowance = Math.min(allowance, core.transferMessageBytesLimit) - messageNbytes;
  return ts.getNbytes() > allowance;
}

interface PeerCandidate {
  readonly priority: Priority;
  readonly isRemote: boolean;
  readonly ntasks: number;
  readonly worker: string;
  readonly tasks: PrioritySet<TaskState>;
}

/**
 * dask orders peers by (top priority, is_remote, -ntasks, random draw, address); the
 * random draw is dropped, so ties fall to the address (deterministic).
 */
function comparePeers(a: PeerCandidate, b: PeerCandidate): number {
  return (
    comparePriority(a.priority, b.priority) ||
    Number(a.isRemote) - Number(b.isRemote) ||
    b.ntasks - a.ntasks ||
    (a.worker < b.worker ? -1 : a.worker > b.worker ? 1 : 0)
  );
}

/** A small binary min-heap of peers. */
class PeerQueue {
  private readonly heap: PeerCandidate[] = [];

  push(peer: PeerCandidate): void {
    const heap = this.heap;
    heap.push(peer);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (comparePeers(heap[i] as PeerCandidate, heap[parent] as PeerCandidate) >= 0) break;
      [heap[i], heap[parent]] = [heap[parent] as PeerCandidate, heap[i] as PeerCandidate];
      i = parent;
    }
  }

  pop(): PeerCandidate | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0] as PeerCandidate;
    const last = heap.pop() as PeerCandidate;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child =
          right < heap.length && comparePeers(heap[right] as PeerCandidate, heap[left] as PeerCandidate) < 0 ? right : left;
        if (comparePeers(heap[child] as PeerCandidate, heap[i] as PeerCandidate) >= 0) break;
        [heap[i], heap[child]] = [heap[child] as PeerCandidate, heap[i] as PeerCandidate];
        i = child;
      }
    }
    return top;
  }
}
