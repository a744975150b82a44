// The scheduler core: the cluster-wide lifecycle of every task (waiting, queued, no-worker,
// processing, memory, erred, released), the messages of the workers' state machines, freeing,
// recompute after a lost worker, steal transactions and the periodic hooks (heartbeats,
// balance, the active memory manager's ReduceReplicas). Where a task goes is the policy's answer (policy.ts); the core checks each answer
// and carries it out. It speaks to workers only through the contract's events, which its
// WorkerLink (worker-link.ts) queues and delivers.
import {
  RefreshWhoHasEvent,
  RemoveReplicasEvent,
  RemoveWorkerEvent,
  StealRequestEvent,
  type Key,
  type SendMessageToScheduler,
} from "../../state/index.js";
import type { TaskGraph } from "../graph.js";
import { ClusterState } from "./cluster.js";
import { Lifecycle, TaskStatus } from "./lifecycle.js";
import { GuardedPolicy } from "./guarded-policy.js";
import { PolicyError } from "./policy-error.js";
import { NO_WORKER, QUEUE, type DecisionOrigin, type PolicyContext, type Stimulus } from "./policy.js";
import { TaskQueue } from "./queue.js";
import { resolvePolicy, type ResolvedPolicy } from "./registry.js";
import { Rng } from "../rng.js";
import { StealLedger, stealVerdict } from "./steals.js";
import { planReplicaDrops } from "./reduce-replicas.js";
import { Ticker, heartbeatInterval } from "./ticker.js";
import type { SchedulerHost, SchedulerOptions } from "./host.js";
import { WorkerLink } from "./worker-link.js";

export type { SchedulerHost, SchedulerOptions } from "./host.js";

export class SchedulerCore extends Lifecycle {
  readonly cluster: ClusterState;
  readonly policyName: string;
  readonly policyOptions: ResolvedPolicy["options"];
  readonly steals: StealLedger;
  private readonly policy: GuardedPolicy;
  private readonly queue: TaskQueue;
  /** Where the events for the workers go. */
  private readonly link: WorkerLink;
  private readonly ticker: Ticker | null;
  private nextRunId = 0;
  private stopped = false;

  constructor(
    graph: TaskGraph,
    workers: ReadonlyArray<{ address: string; nthreads: number }>,
    private readonly host: SchedulerHost,
    options: SchedulerOptions = {},
  ) {
    const cluster = new ClusterState(graph, workers);
    super(graph, cluster, options.allowedFailures ?? 3);
    this.cluster = cluster;
    if (host.now !== undefined) cluster.setClock(host.now);
    this.queue = new TaskQueue(graph.order);
    this.link = new WorkerLink(cluster, host, options);
    this.steals = new StealLedger(options.maxStealRecords ?? 100_000);
    const resolved = resolvePolicy(options.policy);
    this.policyName = resolved.name;
    this.policyOptions = resolved.options;
    const rng = Rng.derive(options.seed ?? 1, `scheduler:${resolved.name}`);
    const context: PolicyContext = {
      cluster,
      options: resolved.options,
      random: () => rng.random(),
      workerSaturation: options.workerSaturation ?? 1.1,
      requestSteal: (task, thief) => this.requestSteal(task, thief),
      stealInFlight: (task) => this.steals.has(task),
    };
    let created;
    try {
      created = resolved.create(context);
    } catch (error) {
      throw new PolicyError(this.policyName, "creating the policy", error);
    }
    this.policy = new GuardedPolicy(this.policyName, created, graph, cluster);
    const balanceInterval = this.policy.balanceInterval;
    const replicasInterval = this.policy.reduceReplicasInterval;
    this.ticker =
      host.now !== undefined && host.setTimer !== undefined
        ? new Ticker(host.now, host.setTimer, [
            { interval: heartbeatInterval(workers.length), run: () => this.heartbeat() },
            ...(balanceInterval !== null ? [{ interval: balanceInterval, run: () => this.balance() }] : []),
            ...(replicasInterval !== null ? [{ interval: replicasInterval, run: () => this.reduceReplicas() }] : []),
          ])
        : null;
  }

  /** Set once the policy failed; the core then does nothing more. */
  get failure(): PolicyError | null {
    return this.policy.failure;
  }

  // ---- driving ----

  /** Makes every dependency-free task ready, in priority order. */
  start(): void {
    this.guard(() => {
      this.startTasks();
      this.releaseQueued("start");
    });
  }

  /** One message a worker's state machine sent to the scheduler. */
  handleMessage(worker: number, message: SendMessageToScheduler): void {
    if (this.failure !== null || this.cluster.workers[worker]!.status === "closed") return; // a dead worker's last words
    // Not through guard(): no closure per message.
    try {
      switch (message.op) {
        case "task-finished":
          this.taskFinished(worker, message.key, message.runId, message.nbytes, message.startstops);
          break;
        case "task-erred":
          this.taskErred(worker, message.key, message.runId, message.exceptionText);
          break;
        case "add-keys":
          for (const key of message.keys) this.addKeys(worker, key);
          break;
        case "release-worker-data":
          this.releaseWorkerData(worker, message.key);
          break;
        case "long-running":
          this.longRunning(worker, message.key, message.computeDuration);
          break;
        case "reschedule":
          this.rescheduled(worker, message.key);
          break;
        case "request-refresh-who-has":
          this.refreshWhoHas(worker, message.keys);
          break;
        case "steal-response":
          this.stealResponse(worker, message.key, message.state, message.stimulusId);
          break;
      }
      this.releaseQueued(message.op);
    } catch (error) {
      this.caught(error);
    }
    this.stopIfFailed();
  }

  /** A worker died: peers forget it, its data is lost, its tasks go elsewhere. */
  removeWorker(worker: number): void {
    if (this.failure !== null || this.cluster.workers[worker]!.status === "closed") return;
    this.guard(() => {
      const address = this.cluster.workers[worker]!.address;
      this.cluster.setStatus(worker, "closed");
      this.link.clear(worker);
      // Peers forget the dead worker before anything else they hear.
      for (let w = 0; w < this.cluster.workers.length; w++) {
        if (w !== worker && this.cluster.workers[w]!.status !== "closed") {
          this.link.enqueue(w, RemoveWorkerEvent({ worker: address, stimulusId: this.link.stimulus("remove-worker") }));
        }
      }
      this.notifyStatus(worker);
      this.loseWorker(worker);
      this.retryNoWorker();
      this.releaseQueued("remove-worker");
    });
  }

  setPaused(worker: number, paused: boolean): void {
    const ws = this.cluster.workers[worker]!;
    if (this.failure !== null || ws.status === "closed" || (ws.status === "paused") === paused) return;
    this.guard(() => {
      this.cluster.setStatus(worker, paused ? "paused" : "running");
      this.notifyStatus(worker);
      if (!paused) this.retryNoWorker();
      this.releaseQueued(paused ? "pause" : "unpause");
    });
  }

  /** Delivers every worker's pending events, in worker order (once their tasks are decided, with a decision cost). */
  flush(): void {
    // what a failed stimulus half-did never reaches a worker
    if (this.failure !== null) this.link.skipFlush();
    else this.link.flush();
  }

  /**
   * Books `seconds` of the scheduler's event loop (one thread: after what is booked already)
   * and says how long from now until it is done: the host charges reading a message batch
   * with it, flush() the decisions and the writes.
   */
  loopDelay(seconds: number): number {
    return this.link.loopDelay(seconds);
  }

  /** Whether the scheduler's loop costs nothing (see WorkerLink.loopFree). */
  get loopFree(): boolean {
    return this.link.loopFree;
  }

  /** Seconds booked on the scheduler's loop: decisions, and message batches read and written. */
  get decisionSeconds(): number {
    return this.link.bookedSeconds;
  }

  // ---- message handlers ----

  private taskFinished(worker: number, key: Key, runId: number, nbytes: number | null, startstops: ReadonlyArray<{ action: string; start: number; stop: number }>): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    const status = this.status[id]!;
    if (status === TaskStatus.Processing && this.cluster.processingWorker[id] === worker) {
      if (this.runIds[id] !== runId) return; // an answer to an earlier attempt
      const prefix = this.cluster.prefixIds[id]!;
      for (const startstop of startstops) this.cluster.addDuration(prefix, startstop.action, startstop.start, startstop.stop);
      if (nbytes !== null) this.cluster.setNbytes(id, nbytes);
      this.dropProcessing(id, "memory");
      this.status[id] = TaskStatus.Memory;
      this.cluster.addReplica(id, worker);
      this.completed(id);
    } else if (status === TaskStatus.Memory) {
      this.cluster.addReplica(id, worker);
    } else {
      this.free(worker, key);
    }
  }

  private taskErred(worker: number, key: Key, runId: number, text: string): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    if (this.status[id] !== TaskStatus.Processing || this.cluster.processingWorker[id] !== worker || this.runIds[id] !== runId) return;
    this.dropProcessing(id, "erred");
    this.err(id, text);
  }

  private addKeys(worker: number, key: Key): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    if (this.status[id] === TaskStatus.Memory) {
      this.cluster.addReplica(id, worker);
      return;
    }
    // The worker holds a copy we no longer want. Leave it while a dependent runs there:
    // RemoveReplicasEvent refuses keys whose dependents are executing.
    const g = this.graph;
    for (let e = g.dependentStart[id]!; e < g.dependentStart[id + 1]!; e++) {
      if (this.cluster.processingWorker[g.dependents[e]!] === worker) return;
    }
    this.link.enqueue(worker, RemoveReplicasEvent({ keys: [key], stimulusId: this.link.stimulus("remove-replicas") }));
  }

  private releaseWorkerData(worker: number, key: Key): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    this.cluster.dropReplica(id, worker);
    if (this.status[id] === TaskStatus.Memory && this.cluster.whoHas(id).length === 0) this.lost(id);
  }

  private longRunning(worker: number, key: Key, computeDuration: number | null): void {
    const id = this.graph.idOf(key);
    if (id === undefined || this.cluster.processingWorker[id] !== worker) return;
    if (computeDuration !== null) this.cluster.addSecededDuration(this.cluster.prefixIds[id]!, computeDuration);
    if (this.cluster.addToLongRunning(id)) this.policy.onLongRunning(id, worker);
  }

  private rescheduled(worker: number, key: Key): void {
    const id = this.graph.idOf(key);
    if (id === undefined || this.status[id] !== TaskStatus.Processing || this.cluster.processingWorker[id] !== worker) return;
    this.dropProcessing(id, "released");
    this.status[id] = TaskStatus.Waiting;
    this.recountWaiting(id);
  }

  private refreshWhoHas(worker: number, keys: readonly Key[]): void {
    const whoHas = Object.create(null) as Record<Key, readonly string[]>;
    for (const key of keys) {
      const id = this.graph.idOf(key);
      whoHas[key] = id === undefined ? [] : this.cluster.addressesOf(id);
    }
    this.link.enqueue(worker, RefreshWhoHasEvent({ whoHas, stimulusId: this.link.stimulus("refresh-who-has") }));
  }

  // ---- steals (stealing.py's move_task_request / move_task_confirm) ----

  private requestSteal(task: number, thief: number): boolean {
    if (this.failure !== null) return false;
    if (!Number.isInteger(task) || task < 0 || task >= this.graph.size) {
      this.policy.fail("requestSteal", `task ${String(task)} is not a task id (0–${this.graph.size - 1})`);
    }
    if (!Number.isInteger(thief) || thief < 0 || thief >= this.cluster.workers.length) {
      this.policy.fail("requestSteal", `thief ${String(thief)} is not a worker (${this.cluster.workers.length} workers)`, task);
    }
    const victim = this.cluster.processingWorker[task]!;
    if (victim < 0 || victim === thief || this.steals.has(task) || this.cluster.workers[thief]!.status !== "running") return false;
    const stimulusId = this.steals.open(task, victim, thief);
    this.link.enqueue(victim, StealRequestEvent({ key: this.graph.keys[task]!, stimulusId }));
    return true;
  }

  private stealResponse(worker: number, key: Key, state: string | null, stimulusId: string): void {
    const id = this.graph.idOf(key);
    if (id === undefined) return;
    const info = this.steals.answer(id, stimulusId);
    if (info === null) return; // stale, or the task left processing meanwhile (recorded as aborted)
    const { victim, thief } = info;
    const verdict = stealVerdict(state, this.cluster.workers[thief]!.status !== "closed");
    const now = this.cluster.now;
    if (verdict === "confirm" && this.status[id] === TaskStatus.Processing && this.cluster.processingWorker[id] === victim && victim === worker) {
      this.cluster.removeFromProcessing(id);
      this.cluster.addToProcessing(id, thief);
      this.sendCompute(id, thief);
      this.steals.record(now, id, victim, thief, "confirmed");
      this.policy.onStealEnded(id, victim, thief, "confirmed");
    } else if (verdict === "reschedule" || verdict === "confirm") {
      if (this.status[id] === TaskStatus.Processing && this.cluster.processingWorker[id] === victim) {
        this.dropProcessing(id, "released");
        this.free(victim, key);
        this.status[id] = TaskStatus.Waiting;
        this.recountWaiting(id);
      }
      this.steals.record(now, id, victim, thief, "rescheduled");
      this.policy.onStealEnded(id, victim, thief, "rescheduled");
    } else {
      // Started, finished, or a state dask does not expect ("error", "fetch"): it stays.
      this.steals.record(now, id, victim, thief, "rejected");
      this.policy.onStealEnded(id, victim, thief, "rejected");
    }
  }

  // ---- placement ----

  /** Asks the policy where a ready task goes and carries it out. */
  protected override place(id: number, origin: DecisionOrigin): void {
    const worker = this.policy.decideWorker(id, origin);
    if (worker === QUEUE) {
      if (origin !== "queued") {
        this.status[id] = TaskStatus.Queued;
        this.queue.add(id);
      }
    } else if (worker === NO_WORKER) {
      if (origin !== "queued") {
        this.status[id] = TaskStatus.NoWorker;
        this.noWorker.add(id);
      }
    } else {
      if (origin === "queued") this.queue.delete(id);
      this.assign(id, worker);
    }
  }

  /** Bound once: the callback of every queue release. */
  private readonly placeQueued = (id: number): void => this.place(id, "queued");

  protected override unqueue(id: number): void {
    this.queue.delete(id);
  }

  /** Offers queued tasks to the policy after a stimulus (dask's stimulus_queue_slots_maybe_opened). */
  private releaseQueued(stimulus: Stimulus): void {
    if (this.queue.size === 0) return;
    try {
      this.policy.releaseQueued(stimulus, this.queue, this.placeQueued);
    } finally {
      this.queue.restore();
    }
  }

  private assign(id: number, worker: number): void {
    this.status[id] = TaskStatus.Processing;
    this.cluster.addToProcessing(id, worker);
    this.cluster.assignments++;
    this.policy.onProcessing(id, worker);
    this.sendCompute(id, worker);
    this.ticker?.wake();
  }

  private sendCompute(id: number, worker: number): void {
    const runId = ++this.nextRunId;
    this.runIds[id] = runId;
    this.link.computeTask(worker, id, runId, this.recomputed[id] === 1);
  }

  // ---- lifecycle callbacks ----

  protected override dropProcessing(id: number, exit: "memory" | "erred" | "released"): number {
    const worker = this.cluster.removeFromProcessing(id);
    if (worker < 0) return worker;
    this.policy.onLeftProcessing(id, worker, exit);
    const aborted = this.steals.abort(id);
    if (aborted !== null) {
      this.steals.record(this.cluster.now, id, aborted.victim, aborted.thief, "aborted");
      this.policy.onStealEnded(id, aborted.victim, aborted.thief, "aborted");
    }
    return worker;
  }

  protected override free(worker: number, key: Key): void {
    this.link.free(worker, key);
  }

  protected override progress(): void {
    this.host.onProgress?.();
  }

  // ---- periodic hooks ----

  /** Every worker's heartbeat at once: the bandwidth estimate and the straggler rule (scheduler.md §2, §3). */
  private heartbeat(): boolean {
    if (this.failure !== null) return false;
    const cluster = this.cluster;
    const now = cluster.now;
    for (const w of cluster.byAddress) {
      if (cluster.workers[w]!.status === "closed") continue;
      cluster.heartbeatBandwidth(w);
      this.host.executing?.(w, (key, start) => {
        const id = this.graph.idOf(key);
        if (id !== undefined) cluster.addExecTime(cluster.prefixIds[id]!, now - start);
      });
    }
    return this.anyProcessing();
  }

  private balance(): boolean {
    if (this.failure !== null) return false;
    this.guard(() => this.policy.balance());
    return this.failure === null && this.anyProcessing();
  }

  /** The active memory manager's round: the scheduler forgets each dropped copy at once, the worker is told (request_remove_replicas). */
  private reduceReplicas(): boolean {
    if (this.failure !== null) return false;
    const drops = planReplicaDrops(this.cluster, this.graph, this.status);
    for (const [worker, tasks] of drops) {
      for (const id of tasks) this.cluster.dropReplica(id, worker);
      const keys = tasks.map((id) => this.graph.keys[id]!);
      this.link.enqueue(worker, RemoveReplicasEvent({ keys, stimulusId: this.link.stimulus("active-memory-manager") }));
    }
    return this.anyProcessing();
  }

  private anyProcessing(): boolean {
    for (const ws of this.cluster.workers) if (ws.processing.size > 0) return true;
    return false;
  }

  // ---- policy calls ----

  private notifyStatus(worker: number): void {
    this.policy.onWorkerStatus(worker, this.cluster.workers[worker]!.status);
  }

  /** Runs a stimulus; a policy failure stops the core for good and is handed to the host. */
  private guard(body: () => void): void {
    try {
      body();
    } catch (error) {
      this.caught(error);
    }
    this.stopIfFailed();
  }

  private caught(error: unknown): void {
    if (!(error instanceof PolicyError)) throw error;
    this.policy.failure ??= error;
  }

  private stopIfFailed(): void {
    if (this.failure === null || this.stopped) return;
    this.stopped = true;
    this.ticker?.stop();
    if (this.host.abort === undefined) throw this.failure;
    this.host.abort(this.failure);
  }
}
