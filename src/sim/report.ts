// The report of one simulated run: what the CLI prints, writes as JSON and draws as HTML.
// Versioned: bump REPORT_SCHEMA_VERSION on any change of shape and document it in docs/report-schema.md.

export const REPORT_SCHEMA_VERSION = 2;

export type TaskOutcome = "memory" | "erred" | "lost";

/** One execution attempt of a task on a worker thread, for timelines. */
export interface TaskRecord {
  key: string;
  prefix: string;
  worker: string;
  /** Thread slot on that worker, 0-based, for the task-stream chart. */
  thread: number;
  /** Simulated seconds since the start of the run. */
  start: number;
  end: number;
  /** ok, failed, cancelled (result discarded), rescheduled. */
  outcome: "ok" | "failed" | "cancelled" | "rescheduled";
}

/** A transfer between workers, for timelines and transfer totals. */
export interface TransferRecord {
  from: string;
  to: string;
  keys: number;
  bytes: number;
  start: number;
  end: number;
  outcome: "ok" | "busy" | "missing" | "failed" | "cancelled";
}

export interface WorkerSummary {
  address: string;
  nthreads: number;
  /** Busy thread-seconds / (nthreads × makespan), 0..1. */
  utilisation: number;
  tasksExecuted: number;
  /** Thread-seconds spent executing tasks (every attempt). */
  busySeconds: number;
  bytesSent: number;
  bytesReceived: number;
  spilledBytes: number;
  unspilledBytes: number;
  peakMemoryBytes: number;
  died: boolean;
  /** Where its thread time went (the worker's thread-time ledger, docs/worker.md "Thread time"). */
  threadTime: WorkerThreadTime;
  /** Its memory limit in bytes (null: none), when the cluster has worker groups. */
  memoryLimit?: number | null;
  /** Its group's name, when its group has one. */
  group?: string;
  /** Seconds its event loop spent on done events, scheduler messages (the overheads' workerHandling and workerMessage), spilled data read or written and spilled files removed (the disk's service time), and its full garbage collections (gcSeconds). */
  eventLoopSeconds: number;
  /** When some task holds the GIL (`gil: true`): wall seconds less CPU seconds of its GIL-holding CPU parts (waiting for the lock, or with a host model for a core). */
  gilWaitSeconds?: number;
  /** When the cluster has `overheads.workerGc`: seconds its full garbage collections stopped its event loop (part of eventLoopSeconds). */
  gcSeconds?: number;
}

/** Relative tolerance of the thread-time closure check: rounding of sums of floats, nothing more. */
export const THREAD_TIME_CLOSURE_TOLERANCE = 1e-9;

/**
 * Seconds of a worker's thread slots by bucket over the run: they add up to `capacity`,
 * nthreads × lifetime. The lifetime is the whole run for every worker (a worker that died has
 * its slots `dead` from its death on), so workers compare side by side.
 */
export interface WorkerThreadTime {
  /** Simulated seconds from the start of the run to its end: the last change of any worker's thread time, at least the makespan. */
  lifetime: number;
  /** nthreads × lifetime. */
  capacity: number;
  /** Executing, by what the time was spent on: first runs by how they ended, recomputations of lost data, work lost to the worker's death, work still running at the end. */
  executing: { ok: number; failed: number; cancelled: number; recompute: number; killed: number; running: number };
  /** Idle, by cause. */
  idle: { paused: number; fetching: number; constrained: number; "no-work": number; dead: number };
  /** Σ executing + Σ idle: capacity, up to rounding (checked to 1e-9 relative by `validate: true` runs). */
  total: number;
}

/** Whether a worker's buckets add up to its capacity within THREAD_TIME_CLOSURE_TOLERANCE (false for NaN). */
export function threadTimeCloses(time: Pick<WorkerThreadTime, "total" | "capacity">): boolean {
  return Math.abs(time.total - time.capacity) <= THREAD_TIME_CLOSURE_TOLERANCE * time.capacity;
}

/** The cluster a run simulated, as resolved from its layers: what the figures were computed with. */
export interface ClusterSummary {
  /**
   * `loopBandwidth`: bytes/s each worker's event loop moves, sends and receives together (max-min, shared-host); null: no such limit.
   * `deserializeBandwidth` (present when the cluster has one): bytes/s a receiver deserialises at, its event loop stopped meanwhile.
   * `transferSpread` (present when the cluster has one): the sigma of each transfer's lognormal wire factor (network/spread.ts).
   */
  network: { model: string; latency: number; bandwidth: number; workersPerHost: number; hostBandwidth: number | null; loopBandwidth: number | null; deserializeBandwidth?: number; transferSpread?: number };
  disk: { bandwidth: number; latency: number; hostBandwidth: number | null; removeLatency: number; removeBandwidth: number | null };
  overheads: import("./overheads.js").Overheads;
  memory: import("./memory.js").MemoryModel;
  /** Seconds the scheduler's loop spent deciding where tasks go (schedulerDecision per task sent). */
  schedulerLoopSeconds: number;
  /** When the cluster has `overheads.schedulerGc`: seconds its full garbage collections stopped the scheduler's loop (part of schedulerLoopSeconds). */
  schedulerGcSeconds?: number;
  /** The hosts' CPU model, when the cluster has one (`cluster.host`): its parameters and the seconds each kind of thread waited for a core. */
  host?: HostSummary;
}

export interface HostSummary {
  cores: number;
  load: number;
  /** How a thread that wakes was treated: `lag` (EEVDF's) or `credit`. */
  rule: import("./host-cpu.js").HostCpuRule;
  /** Seconds: the `lag` rule's slice at full speed. */
  slice: number;
  /** Seconds: the `credit` rule's credit. */
  credit: number;
  /** null: the scheduler ran on a host of its own. */
  schedulerHost: number | null;
  /**
   * Wall seconds less CPU seconds of the work booked on each thread: the scheduler's loop, each
   * worker's loop (in worker order; its execute and gather-dep roots' `other` time holds it),
   * and tasks' CPU parts (their `thread-noncpu` holds it). Bytes a loop moves are slowed through
   * its network capacity instead (the transfer's duration holds it).
   */
  coreWaitSeconds: { scheduler: number; eventLoops: number[]; tasks: number };
}

/** One steal request of the scheduler policy and how it ended (victim and thief are addresses). */
export interface StealRecord {
  time: number;
  key: string;
  victim: string;
  thief: string;
  outcome: "confirmed" | "rejected" | "rescheduled" | "aborted";
}

/** The placement policy of the run (`--scheduler`) and what its work stealing did. */
export interface SchedulerSummary {
  policy: string;
  /** Its options with defaults filled; infinite numbers are written "inf". */
  options: Record<string, string | number | boolean>;
  /**
   * Steal requests and how they ended (stealing.py's log: `confirm`, `already-computing`,
   * `reschedule`, `already-aborted`); `unanswered` were still in flight when the run ended.
   * requested = confirmed + rejected + rescheduled + aborted + unanswered.
   */
  steals: { requested: number; confirmed: number; rejected: number; rescheduled: number; aborted: number; unanswered: number };
}

/** A sample of memory and spill on one worker, for the memory/spill-over-time chart. */
export interface MemorySample {
  time: number;
  worker: string;
  memoryBytes: number;
  spilledBytes: number;
}

export interface MetricTotal {
  /** DigestMetric name: [context, …qualifiers, activity, unit]. */
  name: string[];
  value: number;
  /** Outcome dimension of the work that produced it (ok, failed, cancelled, missing, busy), when known. */
  outcome?: string;
}

/** How often one kind of fault happened in a run, and when it first and last did. */
export interface FaultCount {
  /** worker-death, transfer-failure, busy, task-failure, pause, unpause, spill-warning, spill-error. */
  kind: string;
  count: number;
  /** Simulated seconds of the first and the last occurrence. */
  first: number;
  last: number;
}

export interface SimReport {
  schemaVersion: number;
  workload: string;
  seed: number;
  workers: number;
  threadsPerWorker: number;
  memoryLimit: number | null;
  network: string;
  tasks: { total: number; completed: number; erred: number; lost: number };
  /** Simulated seconds from the first compute to the last task in memory or erred. */
  makespan: number;
  tasksPerSecond: number;
  transfer: { count: number; bytes: number };
  /**
   * Spilling over all workers. `readSeconds`, `writeSeconds`: the disks' service of the reads and
   * writes, the wait behind earlier requests left out (dask's SpillBuffer metrics time each value
   * so); the `disk-read`/`disk-write` spans' seconds hold that wait too.
   */
  spill: { bytesWritten: number; bytesRead: number; countWritten: number; countRead: number; readSeconds: number; writeSeconds: number };
  /** Discrete events, one entry each: worker deaths, pauses and unpauses, spill warnings. */
  faults: Array<{ time: number; kind: string; detail: string }>;
  /** Every kind of fault that happened, the probabilistic ones (transfer-failure, busy,
   * task-failure) included, counted, in order of first occurrence. */
  faultCounts: FaultCount[];
  /** True when every task ended in memory or erred: nothing lost, nothing stuck. */
  complete: boolean;
  /** Human sentence stating completeness, e.g. "all 1000 tasks finished: 998 in memory, 2 erred, 0 lost". */
  completion: string;
  perWorker: WorkerSummary[];
  scheduler: SchedulerSummary;
  /** How evenly the work was spread: max / mean over workers of tasksExecuted and of busySeconds (1 = even; 0 when nothing ran). */
  balance: { tasks: number; busy: number };
  metrics: MetricTotal[];
  taskRecords: TaskRecord[];
  transfers: TransferRecord[];
  memory: MemorySample[];
  /** The cluster's model: network, disk, overheads and memory manager, as the run used them. */
  cluster: ClusterSummary;
  /** When the run did not complete: the unfinished tasks (at most 100), with their scheduler
   * state and, when placed on a worker, that worker and its WorkerState state. */
  stuck?: StuckTask[];
  /** Task records left out of `taskRecords` because of `maxTaskRecords`. */
  taskRecordsDropped?: number;
  /** Transfer records left out of `transfers` because of `maxTaskRecords`. */
  transfersDropped?: number;
  /** Every steal request, when the policy made any (capped by `maxTaskRecords`). */
  steals?: StealRecord[];
  /** Steal records left out of `steals` because of `maxTaskRecords`. */
  stealsDropped?: number;
}

export interface StuckTask {
  key: string;
  /** Scheduler-side state: waiting, queued, no-worker, processing, … */
  state: string;
  worker?: string;
  /** The task's state in that worker's WorkerState, when it knows it. */
  workerState?: string;
}

/** Options of one simulated run (src/sim `simulate`). Everything optional has a documented default. */
export interface SimOptions {
  workers?: number;
  threads?: number;
  /** Bytes per worker; null = no limit (no spilling). */
  memoryLimit?: number | null;
  seed?: number;
  /** A network model of the registry (src/sim/network/registry.ts; default max-min). */
  network?: import("./network/registry.js").NetworkKind;
  /** The placement policy: `"dask"` (default), `"dask:stealing=false"`, `{ name, options }`, a
   * module path, or `{ name, create }` with a factory in hand (see docs/sim.md, "Scheduling"). */
  scheduler?: import("./scheduler/registry.js").PolicySelection;
  /** Keep finished root span records for --trace (costs memory). */
  collectSpans?: boolean;
  /** Size parameter of a built-in workload (what it counts: see `builtInWorkloads`). */
  size?: number;
  /** Network latency in seconds (default 0.001). */
  latency?: number;
  /** Network bandwidth in bytes/s: per transfer, or per worker and direction under max-min (default 100e6). */
  bandwidth?: number;
  /**
   * A cluster profile (the fields of a spec's `cluster` section, as a profile file has them:
   * worker groups, network, disk, overheads, memory model). It overrides the workload's own
   * `cluster`; the options above and below override it. Validated here (SpecError with paths).
   */
  cluster?: import("./cluster-spec.js").ClusterProfileInput;
  /** The virtual disk of every worker (defaults: 500e6 bytes/s, 0.0001 s per operation; hostBandwidth: what the disks of one host share, none by default). */
  disk?: { bandwidth?: number; latency?: number; hostBandwidth?: number | null };
  /** Bytes of disk each worker may spill (false = unlimited, the default). */
  maxSpill?: number | false;
  /** Extra faults, added to the workload's own (same format as the spec's `faults`). */
  faults?: ReadonlyArray<import("./spec.js").FaultSpec>;
  /** Keep the graph's outputs in memory for the client (default true); false = the client
   * takes each output as it finishes and releases it. */
  keepOutputs?: boolean;
  /** Run WorkerState.validateState after each stimulus (slow; default false). */
  validate?: boolean;
  /** At most this many task records in the report (default 100,000; the rest are counted). */
  maxTaskRecords?: number;
  /** At most this many memory samples per worker (default 500). */
  memorySamplesPerWorker?: number;
  /** Simulated seconds without any task, transfer or message activity after which a run
   * that still has work is declared stuck (default 600). */
  stallTimeout?: number;
  /** Aborting it stops the run within ~20 ms of wall time: simulate() rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Called now and then with progress; never affects the result. */
  onProgress?: (progress: { done: number; total: number; simulatedSeconds: number }) => void;
}

export interface SimResult {
  report: SimReport;
  /** Finished root span records of every worker, when collectSpans was set; else empty. Times are simulated seconds. */
  spanRecords: ReadonlyArray<{ worker: string; record: import("../spans/index.js").SpanRecord }>;
}
