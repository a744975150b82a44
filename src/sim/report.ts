// The report of one simulated run: what the CLI prints, writes as JSON and draws as HTML.
// Versioned: bump REPORT_SCHEMA_VERSION on any change of shape and document it in docs/report-schema.md.

export const REPORT_SCHEMA_VERSION = 1;

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
  bytesSent: number;
  bytesReceived: number;
  spilledBytes: number;
  unspilledBytes: number;
  peakMemoryBytes: number;
  died: boolean;
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
  spill: { bytesWritten: number; bytesRead: number; countWritten: number; countRead: number };
  faults: Array<{ time: number; kind: string; detail: string }>;
  /** True when every task ended in memory or erred: nothing lost, nothing stuck. */
  complete: boolean;
  /** Human sentence stating completeness, e.g. "all 1000 tasks finished: 998 in memory, 2 erred, 0 lost". */
  completion: string;
  perWorker: WorkerSummary[];
  metrics: MetricTotal[];
  taskRecords: TaskRecord[];
  transfers: TransferRecord[];
  memory: MemorySample[];
}

/** Options of one simulated run (src/sim `simulate`). Everything optional has a documented default. */
export interface SimOptions {
  workers?: number;
  threads?: number;
  /** Bytes per worker; null = no limit (no spilling). */
  memoryLimit?: number | null;
  seed?: number;
  network?: "instant" | "latency-bandwidth" | "max-min";
  /** Keep finished root span records for --trace (costs memory). */
  collectSpans?: boolean;
  /** Called now and then with progress; never affects the result. */
  onProgress?: (progress: { done: number; total: number; simulatedSeconds: number }) => void;
}

export interface SimResult {
  report: SimReport;
  /** Finished root span records of every worker, when collectSpans was set; else empty. Times are simulated seconds. */
  spanRecords: ReadonlyArray<{ worker: string; record: import("../spans/index.js").SpanRecord }>;
}
