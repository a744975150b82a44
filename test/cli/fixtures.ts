// Hand-made reports and a fake simulator, so the command's formatting and exit codes are tested
// without the simulator's numbers (which the end-to-end tests cover).
import { Writable } from "node:stream";
import type { MetricTotal, SimOptions, SimReport, SimResult, TaskRecord } from "../../src/sim/report.js";
import { REPORT_SCHEMA_VERSION } from "../../src/sim/report.js";
import { DEFAULT_MEMORY_MODEL } from "../../src/sim/memory.js";
import { DEFAULT_OVERHEADS } from "../../src/sim/overheads.js";
import type { CliIo } from "../../src/cli/cli-io.js";
import { SpecProblemsError } from "../../src/cli/errors.js";
import type { CliWorkload, SimulatorApi } from "../../src/cli/simulator-api.js";

const MiB = 2 ** 20;

function metric(name: string[], value: number, outcome?: string): MetricTotal {
  return outcome === undefined ? { name, value } : { name, value, outcome };
}

export function sampleMetrics(): MetricTotal[] {
  return [
    metric(["execute", "inc", "thread-cpu", "seconds"], 12.5, "ok"),
    metric(["execute", "inc", "thread-noncpu", "seconds"], 1.25, "ok"),
    metric(["execute", "inc", "other", "seconds"], 0.2, "ok"),
    metric(["execute", "inc", "disk-write", "seconds"], 0.8, "ok"),
    metric(["execute", "inc", "disk-write", "bytes"], 64 * MiB, "ok"),
    metric(["execute", "inc", "disk-write", "count"], 16, "ok"),
    metric(["execute", "sum", "thread-cpu", "seconds"], 4, "ok"),
    metric(["execute", "sum", "memory-read", "bytes"], 32 * MiB, "ok"),
    metric(["execute", "sum", "memory-read", "count"], 40, "ok"),
    metric(["execute", "sum", "failed", "seconds"], 0.5, "failed"),
    metric(["gather-dep", "inc", "network", "seconds"], 2.5, "ok"),
    metric(["gather-dep", "inc", "network", "bytes"], 48 * MiB, "ok"),
    metric(["gather-dep", "inc", "busy", "seconds"], 0.1, "busy"),
    metric(["get-data", "network", "seconds"], 1.5),
    metric(["get-data", "network", "bytes"], 48 * MiB),
    // The unqualified copy of an aggregate span: must not be counted twice.
    metric(["disk-write", "bytes"], 64 * MiB),
  ];
}

export function sampleTaskRecords(): TaskRecord[] {
  const records: TaskRecord[] = [];
  for (let i = 0; i < 8; i += 1) {
    records.push({ key: `inc-${i}`, prefix: "inc", worker: `sim://w${i % 2}`, thread: Math.floor(i / 2) % 2, start: Math.floor(i / 4) * 1.5, end: Math.floor(i / 4) * 1.5 + 1.4, outcome: "ok" });
  }
  records.push({ key: "sum-0", prefix: "sum", worker: "sim://w0", thread: 0, start: 3, end: 4, outcome: "ok" });
  records.push({ key: "sum-1", prefix: "sum", worker: "sim://w1", thread: 0, start: 3, end: 3.5, outcome: "failed" });
  return records;
}

export function sampleReport(overrides: Partial<SimReport> = {}): SimReport {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    workload: "fixture",
    seed: 1,
    workers: 2,
    threadsPerWorker: 2,
    memoryLimit: 256 * MiB,
    network: "latency-bandwidth",
    tasks: { total: 10, completed: 9, erred: 1, lost: 0 },
    makespan: 4,
    tasksPerSecond: 2.5,
    transfer: { count: 6, bytes: 48 * MiB },
    spill: { bytesWritten: 64 * MiB, bytesRead: 16 * MiB, countWritten: 16, countRead: 4, readSeconds: 0.05, writeSeconds: 0.2 },
    faults: [],
    faultCounts: [],
    complete: true,
    completion: "all 10 tasks finished: 9 in memory, 1 erred, 0 lost",
    perWorker: [
      {
        address: "sim://w0", nthreads: 2, utilisation: 0.8125, tasksExecuted: 5, busySeconds: 6.5, bytesSent: 24 * MiB, bytesReceived: 24 * MiB, spilledBytes: 40 * MiB, unspilledBytes: 10 * MiB, peakMemoryBytes: 250 * MiB, died: false, eventLoopSeconds: 0.01,
        threadTime: {
          lifetime: 4,
          capacity: 8,
          executing: { ok: 5.5, failed: 0.5, cancelled: 0, recompute: 0, killed: 0, running: 0 },
          idle: { paused: 0.25, fetching: 1, constrained: 0, "no-work": 0.75, dead: 0 },
          total: 8,
        },
      },
      {
        address: "sim://w1", nthreads: 2, utilisation: 0.5, tasksExecuted: 5, busySeconds: 4, bytesSent: 24 * MiB, bytesReceived: 24 * MiB, spilledBytes: 24 * MiB, unspilledBytes: 6 * MiB, peakMemoryBytes: 200 * MiB, died: false, eventLoopSeconds: 0.01,
        threadTime: {
          lifetime: 4,
          capacity: 8,
          executing: { ok: 3, failed: 0, cancelled: 0.5, recompute: 0.5, killed: 0, running: 0 },
          idle: { paused: 0, fetching: 2, constrained: 0.5, "no-work": 1.5, dead: 0 },
          total: 8,
        },
      },
    ],
    scheduler: { policy: "dask", options: { stealing: true, "stealing-interval": 0.1 }, steals: { requested: 0, confirmed: 0, rejected: 0, rescheduled: 0, aborted: 0, unanswered: 0 } },
    balance: { tasks: 1, busy: 6.5 / 5.25 },
    metrics: sampleMetrics(),
    taskRecords: sampleTaskRecords(),
    transfers: [{ from: "sim://w0", to: "sim://w1", keys: 2, bytes: 8 * MiB, start: 1.4, end: 1.6, outcome: "ok" }],
    memory: [
      { time: 0, worker: "sim://w0", memoryBytes: 0, spilledBytes: 0 },
      { time: 1, worker: "sim://w0", memoryBytes: 200 * MiB, spilledBytes: 0 },
      { time: 2, worker: "sim://w0", memoryBytes: 250 * MiB, spilledBytes: 40 * MiB },
      { time: 4, worker: "sim://w0", memoryBytes: 100 * MiB, spilledBytes: 30 * MiB },
      { time: 0, worker: "sim://w1", memoryBytes: 0, spilledBytes: 0 },
      { time: 2, worker: "sim://w1", memoryBytes: 200 * MiB, spilledBytes: 24 * MiB },
    ],
    cluster: {
      network: { model: "latency-bandwidth", latency: 0.001, bandwidth: 100e6, workersPerHost: 1, hostBandwidth: null, loopBandwidth: null },
      disk: { bandwidth: 500e6, latency: 0.0001, hostBandwidth: null, removeLatency: 0, removeBandwidth: null },
      overheads: { ...DEFAULT_OVERHEADS },
      memory: { ...DEFAULT_MEMORY_MODEL },
      schedulerLoopSeconds: 0.002,
    },
    ...overrides,
  };
}

export interface FakeSimulatorCalls {
  simulate: Array<{ workload: CliWorkload; options: SimOptions }>;
}

/** A simulator that returns `report` for any workload and validates spec files by a tiny rule. */
export function fakeSimulator(report: SimReport = sampleReport(), calls: FakeSimulatorCalls = { simulate: [] }): SimulatorApi {
  const builtIns = new Map<string, CliWorkload>([
    ["map", { name: "map", outline: "1 task group, 100 tasks", input: "map" }],
    ["shuffle", { name: "shuffle", outline: "3 task groups, 150 tasks", input: "shuffle" }],
  ]);
  return {
    listWorkloads: () => [
      { name: "map", description: "independent tasks" },
      { name: "shuffle", description: "an all-to-all shuffle" },
    ],
    builtInWorkload: (name) => builtIns.get(name),
    loadWorkloadFile: (_path, displayPath) => {
      throw new SpecProblemsError([`${displayPath}: tasks[0].count: expected a positive integer`, `${displayPath}: tasks[1].prefix: expected a string`]);
    },
    loadClusterProfile: (_path, displayPath) => {
      throw new SpecProblemsError([`${displayPath}: overheads.workerHandling: expected a number ≥ 0`]);
    },
    simulate: async (workload, options) => {
      calls.simulate.push({ workload, options });
      options.onProgress?.({ done: 5, total: 10, simulatedSeconds: 2 });
      options.onProgress?.({ done: 10, total: 10, simulatedSeconds: 4 });
      const result: SimResult = { report: { ...report, workload: workload.name }, spanRecords: [] };
      return result;
    },
    chromeTrace: () => ({ traceEvents: [] }),
  };
}

export interface CapturedIo {
  io: Partial<CliIo>;
  stdout: () => string;
  stderr: () => string;
}

/** Streams that record what the command writes; `tty` makes them claim to be terminals. */
export function captureIo(options: { cwd?: string; tty?: boolean; env?: Record<string, string> } = {}): CapturedIo {
  let out = "";
  let err = "";
  const recorder = (append: (text: string) => void): Writable & { isTTY?: boolean; columns?: number } =>
    new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _encoding, callback) {
        append(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
        callback();
      },
    });
  const stdout = recorder((text) => (out += text));
  const stderr = recorder((text) => (err += text));
  if (options.tty) {
    stdout.isTTY = true;
    stderr.isTTY = true;
    stderr.columns = 120;
  }
  let clock = 0;
  return {
    io: { stdout, stderr, env: options.env ?? {}, cwd: options.cwd ?? process.cwd(), now: () => (clock += 250) },
    stdout: () => out,
    stderr: () => err,
  };
}
