// The async work a worker has in progress (async instructions and get-data requests being
// served): what `outstanding`, `idle()`, `close()` and the in-progress gauges see, the thread
// slots of executing tasks, and how work that ends without an event is recorded.
import type { Span, SpanRegistry } from "../spans/index.js";
import type { Key, StateMachineEvent, WorkerState } from "../state/index.js";
import type { MetricIncrement } from "./metrics-store.js";
import { splitIncrement, type PrefixWeights } from "./prefix-split.js";
import type { RootDigester } from "./root-digest.js";
import { idleCause, type LedgerEntry, type ThreadLedger } from "./thread-ledger.js";

interface Settles {
  /** Set once, by whoever gets there first: the work's own completion or close(). */
  settled: boolean;
}

/** A task running on a thread slot (0…nthreads-1). */
export interface ExecuteWork extends Settles {
  readonly kind: "execute";
  readonly root: Span;
  readonly key: Key;
  readonly thread: number;
  /** Its interval in the thread-time ledger. */
  readonly ledger: LedgerEntry;
}

/** A transfer, fetching (gather-dep) or serving (get-data): its metrics are split over the keys' prefixes. */
export interface TransferWork extends Settles {
  readonly kind: "gather-dep" | "get-data";
  readonly root: Span;
  /** Private registry of the root, so that its in-progress increments are split too. */
  readonly registry: SpanRegistry;
  /** Fixed when the work starts; a get-data request moves from one per key to the stored sizes once it read them. */
  split: PrefixWeights;
}

/** The wait of RetryBusyWorkerLater: no root of its own. */
export interface RetryWork extends Settles {
  readonly kind: "retry-busy-worker";
}

export type Work = ExecuteWork | TransferWork | RetryWork;
export type WorkKind = Work["kind"];
/** In the order the in-progress gauge lists them. */
const WORK_KINDS: readonly WorkKind[] = ["execute", "gather-dep", "get-data", "retry-busy-worker"];

export class WorkTracker {
  /** Slot of each executing task as the state reports it (TaskFinishedMsg.thread). */
  readonly threads = new Map<Key, number>();
  /** Where the slots' time goes (docs/worker.md, "Thread time"). */
  readonly ledger: ThreadLedger;
  /** How work aborted by close() ends: `killed` once the worker was killed. */
  abortOutcome: "cancelled" | "killed" = "cancelled";
  readonly #outstanding = new Set<Work>();
  readonly #state: () => WorkerState;
  readonly #roots: RootDigester;
  /** The execute work that holds each slot; a slot is free when it holds none. */
  readonly #slotOwners: Array<ExecuteWork | undefined>;
  /** Free slots, lowest on top. */
  readonly #freeSlots: number[] = [];
  /** Callers of idle(), released by a check made after the turn in which work ran out. */
  #idleWaiters: Array<() => void> = [];
  #idleCheckQueued = false;
  /** close() waiting for outstanding work to settle (at once, not after the turn). */
  #drainWaiters: Array<() => void> = [];

  /** `state` is read lazily: the WorkerState is built with this tracker's `threads`. */
  constructor(nthreads: number, state: () => WorkerState, roots: RootDigester, ledger: ThreadLedger) {
    this.#state = state;
    this.#roots = roots;
    this.ledger = ledger;
    this.#slotOwners = new Array<ExecuteWork | undefined>(nthreads).fill(undefined);
    for (let slot = nthreads - 1; slot >= 0; slot--) this.#freeSlots.push(slot);
  }

  get size(): number {
    return this.#outstanding.size;
  }

  values(): IterableIterator<Work> {
    return this.#outstanding.values();
  }

  track(work: Work): void {
    if (work.kind === "execute") {
      this.#slotOwners[work.thread] = work;
      this.threads.set(work.key, work.thread);
    }
    this.#outstanding.add(work);
  }

  /** Marks work finished; false when it already was (close() got there first). */
  settle(work: Work): boolean {
    if (work.settled) return false;
    work.settled = true;
    this.#outstanding.delete(work);
    if (this.#outstanding.size === 0) {
      if (this.#drainWaiters.length > 0) {
        const waiters = this.#drainWaiters;
        this.#drainWaiters = [];
        for (const resolve of waiters) resolve();
      }
      if (this.#idleWaiters.length > 0) this.#queueIdleCheck();
    }
    return true;
  }

  /** Records work that ends without an event (worker closing): its metrics count as cancelled, or killed. */
  cancel(work: Work): void {
    if (work.kind === "retry-busy-worker") return;
    const root = work.root;
    const outcome = this.abortOutcome;
    if (root.isRecording()) {
      root.setAttribute("outcome", outcome);
      this.#roots.finishSideRoot(root, `${outcome}-${work.kind}`, work.kind === "execute" ? null : work.split);
    }
    if (work.kind === "execute") {
      this.ledger.release(work.ledger, outcome);
      this.releaseSlot(work);
      this.forgetThread(work);
    }
  }

  /**
   * After each stimulus: a task that seceded leaves the pool of thread slots, and the free
   * slots take the idle cause the state now gives.
   */
  afterStimulus(event: StateMachineEvent): void {
    const state = this.#state();
    if (event.kind === "SecedeEvent") {
      const ts = state.tasks.get(event.key);
      if (ts !== undefined && state.longRunning.has(ts)) {
        const thread = this.threads.get(event.key);
        const owner = thread === undefined ? undefined : this.#slotOwners[thread];
        if (owner !== undefined && owner.key === event.key) this.ledger.leave(owner.ledger);
      }
    }
    this.ledger.setCause(idleCause(state));
  }

  // ---- idle ------------------------------------------------------------------------------

  /** See `Worker.idle` (docs/worker.md, "Idle"). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.#idleWaiters.push(resolve);
      if (this.#outstanding.size === 0) this.#queueIdleCheck();
    });
  }

  #queueIdleCheck(): void {
    if (this.#idleCheckQueued) return;
    this.#idleCheckQueued = true;
    setImmediate(() => {
      this.#idleCheckQueued = false;
      if (this.#outstanding.size !== 0) return;
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    });
  }

  /** Resolves as soon as no async work is outstanding (close(): no new work can start). */
  drained(): Promise<void> {
    if (this.#outstanding.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  // ---- thread slots (docs/worker.md, "Thread slots") ----------------------------------------

  /**
   * A free slot for a task about to run. The state starts a task only on a free thread, so
   * there is one: a finishing task frees its slot before its done event is handled (that is
   * what starts the next task), and a seceded (long-running) task, which no longer counts
   * as a thread, hands its slot over when no other is free — like dask's secede(), where the
   * thread leaves the pool. Slots are therefore always 0…nthreads-1.
   */
  acquireSlot(key: Key, address: string): number {
    const slot = this.#freeSlots.pop() ?? this.#slotOfLongRunning();
    if (slot === undefined) {
      throw new Error(`worker ${address}: no free thread slot for ${JSON.stringify(key)} (all ${this.#slotOwners.length} run tasks that are not long-running)`);
    }
    return slot;
  }

  #slotOfLongRunning(): number | undefined {
    const owners = this.#slotOwners;
    const state = this.#state();
    for (let slot = 0; slot < owners.length; slot++) {
      const ts = state.tasks.get(owners[slot]!.key);
      if (ts !== undefined && state.longRunning.has(ts)) return slot;
    }
    return undefined;
  }

  /** Frees the slot of a finished execute, unless a task started in its place holds it now. */
  releaseSlot(work: ExecuteWork): void {
    if (this.#slotOwners[work.thread] !== work) return;
    this.#slotOwners[work.thread] = undefined;
    this.#freeSlots.push(work.thread);
  }

  /** Drops the finished task's entry (the state may have dropped it already when it forgot the key). */
  forgetThread(work: ExecuteWork): void {
    if (this.threads.get(work.key) === work.thread) this.threads.delete(work.key);
  }

  // ---- in progress ------------------------------------------------------------------------

  /** Adds the increments the transfers' roots accrued up to `now`, split over their prefixes. */
  collectTransferIncrements(now: number, out: MetricIncrement[]): void {
    for (const work of this.#outstanding) {
      if (work.kind !== "gather-dep" && work.kind !== "get-data") continue;
      for (const metric of work.registry.scrape(now)) splitIncrement(work.split, metric, out);
    }
  }

  /** Work in progress by kind (every kind present, zero or not). */
  countsByKind(): Record<WorkKind, number> {
    const counts = Object.create(null) as Record<WorkKind, number>;
    for (const kind of WORK_KINDS) counts[kind] = 0;
    for (const work of this.#outstanding) counts[work.kind] += 1;
    return counts;
  }
}
