// The floor under the state benchmark: what any implementation of W1, W2 and W3 must do in
// JavaScript, with no state machine. `FloorEngine` is driven by the same driver with the
// same events as the real WorkerState (bench/state-workloads.ts) and answers with the same
// frozen instructions, built by the same factories, in the same order (test/state/
// bench-floor.test.ts compares the two traces instruction by instruction): a TaskState per
// key in a `tasks` Map and a value per key in a `data` Map; a FIFO of fetches per peer and
// the peer order and message batching of dask's `_ensure_communicating`; a ready queue by
// priority, four threads. It makes no transitions, recommendations, log entries or checks,
// keeps no dependency sets (a counter and one dependent per task are enough here) and
// handles only what the three workloads send (anything else throws): the distance between
// it and the real run is the state machine's own cost.
import {
  AddKeysMsg,
  Execute,
  GatherDep,
  ReleaseWorkerDataMsg,
  TaskFinishedMsg,
  TaskState,
  comparePriority,
  type Instruction,
  type Key,
  type StateMachineEvent,
} from "../src/state/index.js";

export interface FloorLimits {
  readonly nthreads: number;
  readonly transferMessageBytesLimit: number;
  readonly transferIncomingBytesLimit: number;
  readonly transferIncomingCountLimit: number;
}

/** dask's hard-coded `transfer_incoming_bytes_throttle_threshold`. */
const THROTTLE_THRESHOLD = 10_000_000;
const NO_METADATA: Readonly<Record<string, never>> = Object.freeze(Object.create(null) as Record<string, never>);

/** A task with the floor's own bookkeeping: how many inputs it still waits for, and who waits for it. */
class FloorTask extends TaskState {
  missing = 0;
  dependent: FloorTask | null = null;
}

/** The fetches queued for one peer, in arrival order (which is priority order here). */
interface PeerQueue {
  readonly worker: string;
  readonly tasks: FloorTask[];
  head: number;
  inFlight: readonly Key[] | null;
}

export class FloorEngine {
  readonly tasks = new Map<Key, FloorTask>();
  readonly data = new Map<Key, unknown>();
  executingCount = 0;
  private readonly limits: FloorLimits;
  private readonly peers = new Map<string, PeerQueue>();
  /** Peers with queued fetches, in the order they were first needed. */
  private readonly peerList: PeerQueue[] = [];
  private incomingBytes = 0;
  private incomingCount = 0;
  private generation = 0;
  /** A binary heap of ready tasks by priority (ties: first ready first). */
  private readonly ready: FloorTask[] = [];
  private readySeq = 0;
  private readonly readySeqs: number[] = [];

  constructor(limits: FloorLimits) {
    this.limits = limits;
  }

  handleStimulus(event: StateMachineEvent): Instruction[] {
    const out: Instruction[] = [];
    switch (event.kind) {
      case "ComputeTaskEvent": {
        let ts = this.tasks.get(event.key);
        if (ts === undefined) {
          ts = new FloorTask(event.key);
          this.tasks.set(event.key, ts);
        }
        const schedulerPriority = event.priority;
        const n = schedulerPriority.length;
        const priority: number[] = new Array(n + 1);
        for (let i = 0; i < n; i++) priority[i] = schedulerPriority[i] as number;
        priority[n] = this.generation--;
        ts.priority = priority;
        ts.runId = event.runId;
        ts.state = "waiting";
        let fetched: FloorTask[] | null = null;
        for (const depKey in event.nbytes) {
          const held = this.tasks.get(depKey);
          if (held !== undefined) {
            if (held.state !== "memory") throw new Error(`floor: dependency ${depKey} shared while ${held.state}`);
            continue;
          }
          const holders = event.whoHas[depKey] as readonly string[];
          if (holders.length !== 1) throw new Error(`floor: ${depKey} must have one holder`);
          const dep = new FloorTask(depKey);
          dep.priority = priority;
          dep.nbytes = event.nbytes[depKey] as number;
          dep.dependent = ts;
          dep.comingFrom = holders[0] as string;
          this.tasks.set(depKey, dep);
          (fetched ??= []).push(dep);
        }
        if (fetched !== null) {
          ts.missing = fetched.length;
          // dask recommends the fetches last-in-first-out.
          for (let i = fetched.length - 1; i >= 0; i--) this.queueFetch(fetched[i] as FloorTask);
        }
        if (ts.missing === 0) this.makeReady(ts, out, event.stimulusId);
        break;
      }
      case "GatherDepSuccessEvent": {
        const peer = this.peers.get(event.worker) as PeerQueue;
        const keys = peer.inFlight as readonly Key[];
        peer.inFlight = null;
        this.incomingCount--;
        this.incomingBytes -= event.totalNbytes;
        // The values are stored last key first (the recommendations' order).
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i] as Key;
          const dep = this.tasks.get(key) as FloorTask;
          this.data.set(key, event.data[key]);
          dep.state = "memory";
          dep.comingFrom = null;
          out.push(AddKeysMsg({ keys: [key], stimulusId: event.stimulusId }));
          const dependent = dep.dependent as FloorTask;
          if (--dependent.missing === 0) this.makeReady(dependent, out, event.stimulusId);
        }
        if (peer.head === peer.tasks.length) this.dropPeer(peer);
        break;
      }
      case "ExecuteSuccessEvent": {
        const ts = this.tasks.get(event.key) as FloorTask;
        ts.addStartstop({ action: "compute", start: event.start, stop: event.stop });
        this.data.set(event.key, event.value);
        ts.state = "memory";
        ts.nbytes = event.nbytes;
        this.executingCount--;
        out.push(
          TaskFinishedMsg({
            key: ts.key,
            runId: event.runId,
            nbytes: ts.nbytes,
            type: "null",
            typename: "null",
            metadata: NO_METADATA,
            thread: null,
            startstops: ts.startstops,
            stimulusId: event.stimulusId,
          }),
        );
        this.startReady(out, event.stimulusId);
        break;
      }
      case "FreeKeysEvent": {
        for (let i = event.keys.length - 1; i >= 0; i--) {
          const key = event.keys[i] as Key;
          const ts = this.tasks.get(key) as FloorTask;
          this.data.delete(key);
          this.tasks.delete(key);
          ts.state = "forgotten";
          out.push(ReleaseWorkerDataMsg({ key, stimulusId: event.stimulusId }));
        }
        break;
      }
      default:
        throw new Error(`floor: ${event.kind} is not part of the state benchmark`);
    }
    this.ensureCommunicating(out, event.stimulusId);
    return out;
  }

  private queueFetch(dep: FloorTask): void {
    const worker = dep.comingFrom as string;
    let peer = this.peers.get(worker);
    if (peer === undefined) {
      peer = { worker, tasks: [], head: 0, inFlight: null };
      this.peers.set(worker, peer);
      this.peerList.push(peer);
    }
    dep.state = "fetch";
    peer.tasks.push(dep);
  }

  private dropPeer(peer: PeerQueue): void {
    this.peers.delete(peer.worker);
    this.peerList.splice(this.peerList.indexOf(peer), 1);
  }

  private throttled(): boolean {
    const { transferIncomingCountLimit, transferIncomingBytesLimit } = this.limits;
    return (this.incomingCount >= transferIncomingCountLimit && this.incomingBytes >= THROTTLE_THRESHOLD) || this.incomingBytes >= transferIncomingBytesLimit;
  }

  /**
   * dask's peer order (most urgent queued task, then more queued tasks, then address; every
   * peer here is remote), one GatherDep per idle peer, keys taken while they fit.
   */
  private ensureCommunicating(out: Instruction[], stimulusId: string): void {
    if (this.peerList.length === 0 || this.throttled()) return;
    const idle: PeerQueue[] = [];
    for (const peer of this.peerList) if (peer.inFlight === null && peer.head < peer.tasks.length) idle.push(peer);
    if (idle.length === 0) return;
    idle.sort(
      (a, b) =>
        comparePriority((a.tasks[a.head] as FloorTask).priority ?? [], (b.tasks[b.head] as FloorTask).priority ?? []) ||
        b.tasks.length - b.head - (a.tasks.length - a.head) ||
        (a.worker < b.worker ? -1 : a.worker > b.worker ? 1 : 0),
    );
    for (const peer of idle) {
      const keys: Key[] = [];
      let bytes = 0;
      while (peer.head < peer.tasks.length) {
        const dep = peer.tasks[peer.head] as FloorTask;
        const nbytes = dep.getNbytes();
        if (!(this.incomingBytes === 0 && bytes === 0)) {
          let allowance = this.limits.transferIncomingBytesLimit - this.incomingBytes;
          if (bytes !== 0) allowance = Math.min(allowance, this.limits.transferMessageBytesLimit) - bytes;
          if (nbytes > allowance) break;
        }
        peer.head++;
        dep.state = "flight";
        keys.push(dep.key);
        bytes += nbytes;
      }
      if (keys.length === 0) return;
      if (peer.head === peer.tasks.length) {
        peer.tasks.length = 0;
        peer.head = 0;
      }
      out.push(GatherDep({ worker: peer.worker, toGather: keys, totalNbytes: bytes, stimulusId }));
      peer.inFlight = keys;
      this.incomingCount++;
      this.incomingBytes += bytes;
      if (this.throttled()) return;
    }
  }

  private makeReady(ts: FloorTask, out: Instruction[], stimulusId: string): void {
    ts.state = "ready";
    this.pushReady(ts);
    this.startReady(out, stimulusId);
  }

  private startReady(out: Instruction[], stimulusId: string): void {
    while (this.executingCount < this.limits.nthreads && this.ready.length > 0) {
      const ts = this.popReady();
      ts.state = "executing";
      this.executingCount++;
      out.push(Execute({ key: ts.key, stimulusId }));
    }
  }

  /** Whether (priority, seq) sorts before ready entry j. */
  private readyBefore(priority: readonly number[], seq: number, j: number): boolean {
    const c = comparePriority(priority, (this.ready[j] as FloorTask).priority as readonly number[]);
    return c < 0 || (c === 0 && seq < (this.readySeqs[j] as number));
  }

  // Sifting moves a hole (no swaps, no temporary arrays).
  private pushReady(ts: FloorTask): void {
    const { ready, readySeqs } = this;
    const priority = ts.priority as readonly number[];
    const seq = this.readySeq++;
    let i = ready.length;
    ready.push(ts);
    readySeqs.push(seq);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.readyBefore(priority, seq, parent)) break;
      ready[i] = ready[parent] as FloorTask;
      readySeqs[i] = readySeqs[parent] as number;
      i = parent;
    }
    ready[i] = ts;
    readySeqs[i] = seq;
  }

  private popReady(): FloorTask {
    const { ready, readySeqs } = this;
    const top = ready[0] as FloorTask;
    const last = ready.pop() as FloorTask;
    const lastSeq = readySeqs.pop() as number;
    const n = ready.length;
    if (n === 0) return top;
    const priority = last.priority as readonly number[];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && this.readyBefore((ready[right] as FloorTask).priority as readonly number[], readySeqs[right] as number, child)) child = right;
      if (this.readyBefore(priority, lastSeq, child)) break;
      ready[i] = ready[child] as FloorTask;
      readySeqs[i] = readySeqs[child] as number;
      i = child;
    }
    ready[i] = last;
    readySeqs[i] = lastSeq;
    return top;
  }
}
