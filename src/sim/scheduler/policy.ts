// The contract between the scheduler core and a placement policy. The core owns every task's
// lifecycle (waiting, queued, processing, memory, freeing, recompute) and all messages; a
// policy only answers questions about placement and may ask for steals. It sees the cluster
// through a read-only view that the core keeps current, and is told of the few changes a
// policy needs to keep derived sets of its own (dask's idle / saturated workers, stealable
// tasks) without re-scanning.
//
// Tasks and workers are dense integer ids: task ids index `view.graph`, worker ids index
// `view.workers`. Nothing here allocates per call on the core's side.
import type { RegistryEntry } from "../../util/registry.js";
import type { TaskGraph } from "../graph.js";

/** `decideWorker` answer: keep the task in the scheduler's queue (root-ish queuing). */
export const QUEUE = -2;
/** `decideWorker` answer: no worker can take it now; retried when a worker starts running again. */
export const NO_WORKER = -1;

export type WorkerStatus = "running" | "paused" | "closed";

/** What the core knows about one worker (dask's scheduler-side WorkerState). */
export interface WorkerView {
  readonly index: number;
  readonly address: string;
  readonly nthreads: number;
  /** running; paused (memory above the pause fraction: gets no new work); closed (dead). */
  readonly status: WorkerStatus;
  /** Task ids assigned to it and not finished: ready, fetching, executing and long-running. */
  readonly processing: ReadonlySet<number>;
  /** The subset of `processing` that seceded (long-running): excluded from occupancy and slots. */
  readonly longRunning: ReadonlySet<number>;
  /** Task ids whose data it holds. */
  readonly hasWhat: ReadonlySet<number>;
  /** Bytes of the data it holds (dask's `ws.nbytes`). */
  readonly nbytes: number;
  /**
   * Estimated seconds of work assigned to it (dask's occupancy): for every prefix, the number
   * of its processing, not long-running tasks × the prefix's duration estimate, plus the bytes
   * of dependencies it still has to fetch / the bandwidth estimate. Recomputed on each read.
   */
  readonly occupancy: number;
}

/** The read-only cluster the policy decides over. Live: never copied per call. */
export interface ClusterView {
  readonly graph: TaskGraph;
  /** By worker id. */
  readonly workers: readonly WorkerView[];
  /** Worker ids in address-string order (dask's SortedDict order; ties go to the first). */
  readonly byAddress: readonly number[];
  /** Threads of every worker that is not closed (paused ones included, as in dask). */
  readonly totalThreads: number;
  /** Workers that are not closed. */
  readonly workerCount: number;
  /** Workers whose status is running. */
  readonly runningCount: number;
  /** Occupancy of the whole cluster (the global per-prefix counts). */
  readonly totalOccupancy: number;
  /** Cluster-wide bandwidth estimate, bytes/s (dask's `SchedulerState.bandwidth`). */
  readonly bandwidth: number;
  /** Tasks sent to workers so far (dask's `n_tasks`; confirmed steals do not count). */
  readonly assignments: number;
  /** Simulated seconds. */
  readonly now: number;
  /** Worker id processing the task, or -1. */
  processingOn(task: number): number;
  /** Worker ids holding the task's data, in the order they got it (empty when none). */
  whoHas(task: number): readonly number[];
  /** The task's output bytes as reported by its worker (the modelled size before it ran). */
  nbytes(task: number): number;
  /** Dense prefix id of a task (its `graph.prefix`); durations are learnt per prefix. */
  prefixOf(task: number): number;
  readonly prefixNames: readonly string[];
  /** dask's `TaskPrefix.duration_average`: -1 while unknown. */
  durationAverage(prefix: number): number;
  /** dask's `TaskPrefix.max_exec_time` (from heartbeats): -1 while none was seen. */
  maxExecTime(prefix: number): number;
  /** The estimate occupancy uses: the average, else 2 × max exec time, else 0.5 s. */
  prefixDuration(prefix: number): number;
  /** Seconds to move the task's dependencies that `worker` lacks (bytes / bandwidth). */
  commCost(task: number, worker: number): number;
  /** Bytes of the task's dependencies that `worker` lacks. */
  missingBytes(task: number, worker: number): number;
}

/** The queued tasks (root-ish, waiting for a slot), best priority first. */
export interface QueueView {
  readonly size: number;
  /** The `n` best queued tasks, best first (fewer when the queue is shorter). */
  peek(n: number): number[];
}

/** Why a task needs a worker now. */
export type DecisionOrigin =
  /** Its dependencies are all in memory (first time, or again after a reschedule or a lost worker). */
  | "ready"
  /** It waited in the queue and a slot may have opened. */
  | "queued"
  /** No worker could take it earlier; a worker is running again. */
  | "no-worker";

/** After which stimulus the core offers the queue (dask pops it only after some of them). */
export type Stimulus =
  | "start"
  | "task-finished"
  | "task-erred"
  | "add-keys"
  | "release-worker-data"
  | "long-running"
  | "reschedule"
  | "request-refresh-who-has"
  | "steal-response"
  | "remove-worker"
  | "pause"
  | "unpause";

/** How a steal request ended. */
export type StealOutcome =
  /** The victim had not started it: it moved to the thief. */
  | "confirmed"
  /** The victim had started (or finished) it: it stays there. */
  | "rejected"
  /** The victim did not know it, or the thief is gone: it was placed again. */
  | "rescheduled"
  /** It left processing (finished, erred, lost its worker) before the answer came. */
  | "aborted";

/** Why a task left a worker's processing set. */
export type ProcessingExit = "memory" | "erred" | "released";

export interface SchedulerPolicy {
  /**
   * A worker for `task`, or QUEUE (keep it in the scheduler's queue until `releaseQueued`
   * offers it again), or NO_WORKER. The worker must be running.
   */
  decideWorker(task: number, origin: DecisionOrigin): number;
  /**
   * After `stimulus`: the queued tasks to offer now, in the order to try them; each is then
   * passed to `decideWorker(task, "queued")`, and stays queued if that answers QUEUE or
   * NO_WORKER. Absent: the queue is never popped (a policy that never answers QUEUE).
   */
  releaseQueued?(stimulus: Stimulus, queue: QueueView): Iterable<number>;
  /** Called every `balanceInterval` simulated seconds while some task is processing. */
  balance?(): void;
  readonly balanceInterval?: number;
  /**
   * Seconds between rounds of dask's active memory manager (ReduceReplicas: copies of a key
   * beyond what its waiters need are dropped), run by the core while some task is processing.
   * Absent: copies stay until the key is released.
   */
  readonly reduceReplicasInterval?: number;
  /** `task` was added to `worker`'s processing (after the view was updated). */
  onProcessing?(task: number, worker: number): void;
  /** `task` left `worker`'s processing (not called for the move of a confirmed steal). */
  onLeftProcessing?(task: number, worker: number, exit: ProcessingExit): void;
  /** `task` on `worker` seceded. */
  onLongRunning?(task: number, worker: number): void;
  /** `worker` changed status (paused, running again, closed). */
  onWorkerStatus?(worker: number, status: WorkerStatus): void;
  /** A steal asked for through `PolicyContext.requestSteal` ended (the view already shows the result). */
  onStealEnded?(task: number, victim: number, thief: number, outcome: StealOutcome): void;
}

export type PolicyOptionValue = string | number | boolean;
export type PolicyOptions = Readonly<Record<string, PolicyOptionValue>>;

export interface PolicyContext {
  readonly cluster: ClusterView;
  /** The policy's options, defaults filled (for registered policies: checked against their declaration). */
  readonly options: PolicyOptions;
  /** A generator seeded from the run's seed (its own stream): [0, 1). */
  random(): number;
  /** dask's `distributed.scheduler.worker-saturation` (1.1; Infinity disables queuing). */
  readonly workerSaturation: number;
  /**
   * Asks the victim (the worker processing `task`) to give it up for `thief`. False when the
   * request cannot be made (a steal of it is in flight, it is not processing, the thief is the
   * victim or not running). The answer arrives later: `onStealEnded`.
   */
  requestSteal(task: number, thief: number): boolean;
  /** True while a steal of `task` is in flight. */
  stealInFlight(task: number): boolean;
}

/** What a policy module's default export is, and what a registry entry's `create` is. */
export type PolicyFactory = (context: PolicyContext) => SchedulerPolicy;

/** One option a registered policy accepts (`--scheduler NAME:key=value`). */
export interface PolicyOptionSpec {
  readonly type: "boolean" | "number" | "string";
  /** Filled in when not given; none: the option is absent unless given. */
  readonly default?: PolicyOptionValue;
  readonly description: string;
}

/** A registered policy: its one-line description, its options, its factory. */
export interface PolicyEntry extends RegistryEntry {
  readonly options: Readonly<Record<string, PolicyOptionSpec>>;
  readonly create: PolicyFactory;
}
