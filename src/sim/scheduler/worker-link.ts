// The scheduler's side of its link to the workers: the events queued for each (consecutive
// frees merged, outbox.ts), one flush asked of the host per burst, the stimulus ids of what
// it sends, the compute-task message (a task and where its dependencies are), and when each worker's batch leaves once the scheduler's event loop has decided
// its tasks (loop.ts). A closed worker is sent nothing.
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

  /** Delivers every worker's pending events, in worker order (once their tasks are decided, with a decision cost). */
  flush(): void {
    this.flushRequested = false;
    const closed = (w: number): boolean => this.closed(w);
    const { now, setTimer } = this.host;
    if (this.loop.free || now === undefined || setTimer === undefined) {
      this.outbox.flush((w, events) => this.host.deliver(w, events), closed);
      return;
    }
    this.outbox.flush((w, events) => {
      const at = now();
      let decisions = 0;
      for (const event of events) if (event.kind === "ComputeTaskEvent") decisions++;
      const leaves = this.loop.departure(w, decisions, at);
      if (leaves <= at) this.host.deliver(w, events);
      else setTimer.call(this.host, leaves, () => {
        if (!closed(w)) this.host.deliver(w, events);
      });
    }, closed);
  }

  /** The host's flush came, and nothing is delivered: the pending events stay queued. */
  skipFlush(): void {
    this.flushRequested = false;
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
