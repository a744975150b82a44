// The scheduler's side of its link to the workers: the events queued for each (consecutive
// frees merged, outbox.ts), one flush asked of the host per burst, the stimulus ids of what
// it sends, the compute-task message (a task and where its dependencies are), and when the batches
// of a flush leave: once the scheduler's event loop has decided every task among them (loop.ts).
// A closed worker is sent nothing.
import { ComputeTaskEvent, type Key, type StateMachineEvent } from "../../state/index.js";
import { RECOMPUTE_ANNOTATIONS } from "../../worker/thread-ledger.js";
import type { ClusterState } from "./cluster.js";
import type { SchedulerHost, SchedulerOptions } from "./host.js";
import { SchedulerLoop } from "./loop.js";
import { Outbox } from "./outbox.js";

export class WorkerLink {
  private readonly outbox: Outbox;
  /** The scheduler's own event loop, as a cost (decisions, message batches). */
  private readonly loop: SchedulerLoop;
  private stimulusCounter = 0;
  private flushRequested = false;

  constructor(
    private readonly cluster: ClusterState,
    private readonly host: SchedulerHost,
    options: SchedulerOptions,
  ) {
    const workers = cluster.workers.length;
    this.outbox = new Outbox(workers, () => this.stimulus("free-keys"));
    this.loop = new SchedulerLoop(workers, options.decisionCost ?? 0, options.messageCost ?? 0, options.loopThread ?? null);
  }

  /** A fresh stimulus id of this kind. */
  stimulus(kind: string): string {
    return `${kind}-${++this.stimulusCounter}`;
  }

  enqueue(worker: number, event: StateMachineEvent): void {
    if (this.closed(worker)) return;
    this.outbox.push(worker, event);
    this.wake();
  }

  /** Sends attempt `runId` of task `id` to `worker`, with the holders and sizes of its dependencies. */
  computeTask(worker: number, id: number, runId: number, recomputed: boolean): void {
    const g = this.cluster.graph;
    // Null-prototype records: V8 keeps them as hash tables, whereas `{}` grows a hidden-class
    // transition per distinct key name, which costs microseconds per key on large graphs.
    const whoHas = Object.create(null) as Record<Key, readonly string[]>;
    const nbytes = Object.create(null) as Record<Key, number>;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) {
      const dep = g.deps[e]!;
      const key = g.keys[dep]!;
      whoHas[key] = this.cluster.addressesOf(dep);
      nbytes[key] = this.cluster.taskBytes[dep]!;
    }
    this.enqueue(
      worker,
      ComputeTaskEvent({
        key: g.keys[id]!,
        runId,
        whoHas,
        nbytes,
        priority: [g.order[id]!],
        duration: g.duration[id]!,
        runSpec: this.host.runSpec(id, runId),
        // the worker files the thread time of a recomputation under the outcome `recompute`
        annotations: recomputed ? RECOMPUTE_ANNOTATIONS : undefined,
        stimulusId: `compute-task-${runId}`,
      }),
    );
  }

  /** Tells a worker to forget a key (merged with the frees queued just before it). */
  free(worker: number, key: Key): void {
    if (this.closed(worker)) return;
    this.outbox.free(worker, key);
    this.wake();
  }

  /** Drops what a dead worker had not received yet. */
  clear(worker: number): void {
    this.outbox.clear(worker);
  }

  /**
   * Delivers every worker's pending events, in worker order; with a decision cost, all of them
   * once every task among them is decided. dask's handlers end in `send_all`, which only appends
   * to each worker's BatchedSend; the writes happen when the loop is free again, so no worker's
   * batch leaves before the others' tasks are decided (a batch per worker leaving after its own
   * decisions, in worker order, started the first worker's tasks ahead of the rest every time).
   */
  flush(): void {
    this.flushRequested = false;
    const closed = (w: number): boolean => this.closed(w);
    const { now, setTimer } = this.host;
    if (this.loop.free || now === undefined || setTimer === undefined) {
      this.outbox.flush((w, events) => this.host.deliver(w, events), closed);
      return;
    }
    const batches = this.pendingBatches;
    this.outbox.flush((w, events) => void batches.push({ worker: w, events }), closed);
    if (batches.length === 0) return;
    let decisions = 0;
    for (const batch of batches) for (const event of batch.events) if (event.kind === "ComputeTaskEvent") decisions++;
    const at = now();
    const done = this.loop.stimulus(decisions, batches.length, at);
    for (const { worker, events } of batches) {
      const leaves = this.loop.leave(worker, done);
      if (leaves <= at) this.host.deliver(worker, events);
      else setTimer.call(this.host, leaves, () => {
        if (!closed(worker)) this.host.deliver(worker, events);
      });
    }
    batches.length = 0;
  }

  /** The batches of one flush (reused). */
  private readonly pendingBatches: Array<{ worker: number; events: StateMachineEvent[] }> = [];

  /** The host's flush came, and nothing is delivered: the pending events stay queued. */
  skipFlush(): void {
    this.flushRequested = false;
  }

  /** Whether the scheduler's loop costs nothing (no decision or message cost, nothing booked): batches are read and sent at once. */
  get loopFree(): boolean {
    return this.loop.free;
  }

  /** Books `seconds` of the scheduler's loop; how long from now until it is done (see SchedulerCore.loopDelay). */
  loopDelay(seconds: number): number {
    return this.loop.book(seconds, this.host.now?.() ?? 0);
  }

  /** Seconds booked on the scheduler's loop: decisions, and message batches read and written. */
  get bookedSeconds(): number {
    return this.loop.bookedSeconds;
  }

  private closed(worker: number): boolean {
    return this.cluster.workers[worker]!.status === "closed";
  }

  private wake(): void {
    if (this.flushRequested) return;
    this.flushRequested = true;
    this.host.requestFlush();
  }
}
