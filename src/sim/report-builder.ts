// Gathers what a run produces (task records from the executors, transfers, faults, worker
// totals) and assembles the SimReport, in a stable order so equal runs give equal JSON.
import type { Worker } from "../worker/worker.js";
import type { VirtualDisk } from "./disk.js";
import type { MemoryMonitor } from "./memory.js";
import { threadTimeCloses, type FaultCount, type MetricTotal, type SimReport, type StealRecord, type TaskRecord, type TransferRecord, type WorkerSummary, type WorkerThreadTime } from "./report.js";

/** The run-level fields of the report, plus what the builder reads the per-worker figures from. */
export type ReportInputs = Pick<
  SimReport,
  | "schemaVersion"
  | "workload"
  | "seed"
  | "workers"
  | "threadsPerWorker"
  | "memoryLimit"
  | "network"
  | "tasks"
  | "makespan"
  | "complete"
  | "completion"
  | "stuck"
  | "scheduler"
  | "cluster"
> & {
  /** The policy's steal requests (already capped) and how many were left out. */
  steals: { records: StealRecord[]; dropped: number };
  workerStates: ReadonlyArray<{ worker: Worker; disk: VirtualDisk; died: boolean; eventLoopSeconds: number; gilWaitSeconds?: number; gcSeconds?: number; memoryLimit?: number | null; group?: string }>;
  memory: MemoryMonitor;
};

/** Settles a worker's thread-time ledger at `end` (into its metrics, before they are read) and summarises it. */
function workerThreadTime(worker: Worker, end: number): WorkerThreadTime {
  const time = worker.threadTime({ until: end });
  const { ok, failed, cancelled, recompute, killed, running } = time.executing;
  const { paused, fetching, constrained, dead } = time.idle;
  return {
    lifetime: time.lifetime,
    capacity: time.capacity,
    executing: { ok, failed, cancelled, recompute, killed, running },
    idle: { paused, fetching, constrained, "no-work": time.idle["no-work"], dead },
    total: time.total,
  };
}

/**
 * The workers whose thread time does not add up to nthreads × lifetime within
 * THREAD_TIME_CLOSURE_TOLERANCE (relative), each as one line naming the worker and the gap.
 */
export function threadTimeProblems(report: SimReport): string[] {
  const problems: string[] = [];
  for (const worker of report.perWorker) {
    const { total, capacity } = worker.threadTime;
    const gap = total - capacity;
    if (!threadTimeCloses(worker.threadTime)) {
      problems.push(`thread time of worker ${worker.address} does not close: ${total} s accounted for ${capacity} s of thread capacity (gap ${gap} s)`);
    }
  }
  return problems;
}

export class ReportBuilder {
  private readonly taskRecords: TaskRecord[] = [];
  private taskRecordsDropped = 0;
  private readonly transfers: TransferRecord[] = [];
  private transfersDropped = 0;
  private readonly faults: Array<{ time: number; kind: string; detail: string }> = [];
  private readonly faultCounts = new Map<string, FaultCount>();
  private readonly workerIndex = new Map<string, number>();
  private readonly busySeconds: Float64Array;
  private readonly executed: Int32Array;
  private readonly bytesSent: Float64Array;
  private readonly bytesReceived: Float64Array;
  private transferCount = 0;
  private transferBytes = 0;
  private lastCompletion = 0;
  /** Start of the first task execution (the makespan runs from there, as dask's is measured). */
  private firstStart = Number.POSITIVE_INFINITY;

  constructor(
    private readonly addresses: readonly string[],
    private readonly nthreads: readonly number[],
    private readonly maxRecords: number,
  ) {
    addresses.forEach((address, i) => this.workerIndex.set(address, i));
    this.busySeconds = new Float64Array(addresses.length);
    this.executed = new Int32Array(addresses.length);
    this.bytesSent = new Float64Array(addresses.length);
    this.bytesReceived = new Float64Array(addresses.length);
  }

  /** One execution attempt, as the executor saw it. */
  taskRecord(record: TaskRecord): void {
    const w = this.workerIndex.get(record.worker)!;
    this.busySeconds[w]! += record.end - record.start;
    this.executed[w]!++;
    if (record.start < this.firstStart) this.firstStart = record.start;
    if (record.outcome === "ok" || record.outcome === "failed") this.lastCompletion = Math.max(this.lastCompletion, record.end);
    if (this.taskRecords.length >= this.maxRecords) {
      this.taskRecordsDropped++;
      return;
    }
    this.taskRecords.push(record);
  }

  record(transfer: TransferRecord): void {
    if (transfer.outcome === "ok") {
      this.transferCount++;
      this.transferBytes += transfer.bytes;
      const from = this.workerIndex.get(transfer.from);
      const to = this.workerIndex.get(transfer.to);
      if (from !== undefined) this.bytesSent[from]! += transfer.bytes;
      if (to !== undefined) this.bytesReceived[to]! += transfer.bytes;
    }
    if (this.transfers.length >= this.maxRecords) {
      this.transfersDropped++;
      return;
    }
    this.transfers.push(transfer);
  }

  /** A discrete event worth its own entry (a worker death, a pause); counted too. */
  fault(time: number, kind: string, detail: string): void {
    this.faults.push({ time, kind, detail });
    this.countFault(kind, time);
  }

  /** One more fault of `kind` at `time`, without an entry of its own (a failed transfer, a busy answer, a failed task). */
  countFault(kind: string, time: number): void {
    const counted = this.faultCounts.get(kind);
    if (counted === undefined) {
      this.faultCounts.set(kind, { kind, count: 1, first: time, last: time });
      return;
    }
    counted.count++;
    if (time < counted.first) counted.first = time;
    if (time > counted.last) counted.last = time;
  }

  /** End of the last task execution that produced a result or an error (0 when none did). */
  lastEnd(): number {
    return this.lastCompletion;
  }

  /** From the start of the first task execution to the end of the last one that produced a result or an error (0 when none did). */
  makespan(): number {
    return this.lastCompletion > 0 ? this.lastCompletion - Math.min(this.firstStart, this.lastCompletion) : 0;
  }

  build(inputs: ReportInputs): SimReport {
    const makespan = inputs.makespan;
    let bytesWritten = 0;
    let bytesRead = 0;
    let countWritten = 0;
    let countRead = 0;
    let readSeconds = 0;
    let writeSeconds = 0;
    const metrics = new Map<string, MetricTotal>();
    // every worker's slots are accounted over the same lifetime: up to the last change of any
    // of them (a task cut short, a cause that changed after the last task), at least the makespan
    let runEnd = makespan;
    for (const { worker } of inputs.workerStates) runEnd = Math.max(runEnd, worker.threadTimeAccountedUntil);
    const perWorker: WorkerSummary[] = inputs.workerStates.map(({ worker, disk, died, eventLoopSeconds, gilWaitSeconds, gcSeconds, memoryLimit, group }, w) => {
      const threadTime = workerThreadTime(worker, runEnd);
      bytesWritten += disk.totals.bytesWritten;
      bytesRead += disk.totals.bytesRead;
      countWritten += disk.totals.writes;
      countRead += disk.totals.reads;
      readSeconds += disk.totals.readSeconds;
      writeSeconds += disk.totals.writeSeconds;
      for (const entry of worker.metrics.totals()) {
        const id = `${entry.name.join("\u0000")}\u0001${entry.outcome}`;
        const total = metrics.get(id);
        if (total === undefined) {
          const metric: MetricTotal = { name: [...entry.name], value: entry.value };
          if (entry.outcome !== "") metric.outcome = entry.outcome;
          metrics.set(id, metric);
        } else {
          total.value += entry.value;
        }
      }
      return {
        address: this.addresses[w]!,
        nthreads: this.nthreads[w]!,
        utilisation: makespan > 0 ? Math.min(1, this.busySeconds[w]! / (this.nthreads[w]! * makespan)) : 0,
        tasksExecuted: this.executed[w]!,
        busySeconds: this.busySeconds[w]!,
        bytesSent: this.bytesSent[w]!,
        bytesReceived: this.bytesReceived[w]!,
        spilledBytes: disk.totals.bytesWritten,
        unspilledBytes: disk.totals.bytesRead,
        peakMemoryBytes: inputs.memory.peak[w]!,
        died,
        threadTime,
        ...(memoryLimit === undefined ? {} : { memoryLimit }),
        ...(group === undefined ? {} : { group }),
        eventLoopSeconds,
        ...(gilWaitSeconds === undefined ? {} : { gilWaitSeconds }),
        ...(gcSeconds === undefined ? {} : { gcSeconds }),
      };
    });
    const sortedMetrics = [...metrics.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, metric]) => metric);
    const completed = inputs.tasks.completed;
    const report: SimReport = {
      schemaVersion: inputs.schemaVersion,
      workload: inputs.workload,
      seed: inputs.seed,
      workers: inputs.workers,
      threadsPerWorker: inputs.threadsPerWorker,
      memoryLimit: inputs.memoryLimit,
      network: inputs.network,
      tasks: inputs.tasks,
      makespan,
      tasksPerSecond: makespan > 0 ? completed / makespan : 0,
      transfer: { count: this.transferCount, bytes: this.transferBytes },
      spill: { bytesWritten, bytesRead, countWritten, countRead, readSeconds, writeSeconds },
      faults: this.faults,
      faultCounts: [...this.faultCounts.values()],
      complete: inputs.complete,
      completion: inputs.completion,
      perWorker,
      scheduler: inputs.scheduler,
      balance: { tasks: maxOverMean(perWorker.map((w) => w.tasksExecuted)), busy: maxOverMean(perWorker.map((w) => w.busySeconds)) },
      metrics: sortedMetrics,
      taskRecords: this.taskRecords,
      transfers: this.transfers,
      memory: inputs.memory.samples(this.addresses),
      cluster: inputs.cluster,
    };
    if (inputs.stuck !== undefined) report.stuck = inputs.stuck;
    if (this.taskRecordsDropped > 0) report.taskRecordsDropped = this.taskRecordsDropped;
    if (this.transfersDropped > 0) report.transfersDropped = this.transfersDropped;
    if (inputs.steals.records.length > 0) report.steals = inputs.steals.records;
    if (inputs.steals.dropped > 0) report.stealsDropped = inputs.steals.dropped;
    return report;
  }
}

/** max / mean of non-negative figures: 1 when even, 0 when all are 0. */
function maxOverMean(values: readonly number[]): number {
  let sum = 0;
  let max = 0;
  for (const value of values) {
    sum += value;
    if (value > max) max = value;
  }
  return sum > 0 ? (max * values.length) / sum : 0;
}
