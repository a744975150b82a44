import { z } from "zod";
import { HOST_CPU_RULES } from "../sim/host-cpu.js";
import { REPORT_SCHEMA_VERSION } from "../sim/report.js";

// The shape of the `--json` file, as a zod schema: tests validate real output against it and
// docs/report-schema.json is generated from it (`z.toJSONSchema`), so the three never drift.
// docs/report-schema.md explains every field.

const nonNegative = z.number().nonnegative();
const count = z.number().int().nonnegative();
/** An overhead drawn per event: seconds (a constant), or the distribution given in the spec or profile. */
const cost = z.union([
  nonNegative,
  z.discriminatedUnion("dist", [
    z.object({ dist: z.literal("constant"), value: nonNegative }),
    z.object({ dist: z.literal("uniform"), low: nonNegative, high: nonNegative }),
    z.object({ dist: z.literal("normal"), mean: z.number().positive(), std: nonNegative }),
    z.object({ dist: z.literal("lognormal"), mean: z.number().positive(), sigma: nonNegative }),
    z.object({ dist: z.literal("exponential"), mean: z.number().positive() }),
  ]),
]);

const taskRecord = z.object({
  key: z.string(),
  prefix: z.string(),
  worker: z.string(),
  thread: count,
  start: nonNegative,
  end: nonNegative,
  outcome: z.enum(["ok", "failed", "cancelled", "rescheduled"]),
});

const transferRecord = z.object({
  from: z.string(),
  to: z.string(),
  keys: count,
  bytes: nonNegative,
  start: nonNegative,
  end: nonNegative,
  outcome: z.enum(["ok", "busy", "missing", "failed", "cancelled"]),
});

const workerSummary = z.object({
  address: z.string(),
  nthreads: z.number().int().positive(),
  utilisation: z.number().min(0).max(1),
  tasksExecuted: count,
  busySeconds: nonNegative,
  bytesSent: nonNegative,
  bytesReceived: nonNegative,
  spilledBytes: nonNegative,
  unspilledBytes: nonNegative,
  peakMemoryBytes: nonNegative,
  died: z.boolean(),
  threadTime: z.object({
    lifetime: nonNegative,
    capacity: nonNegative,
    executing: z.object({ ok: nonNegative, failed: nonNegative, cancelled: nonNegative, recompute: nonNegative, killed: nonNegative, running: nonNegative }),
    idle: z.object({ paused: nonNegative, fetching: nonNegative, constrained: nonNegative, "no-work": nonNegative, dead: nonNegative }),
    total: nonNegative,
  }),
  memoryLimit: z.number().positive().nullable().optional(),
  group: z.string().optional(),
  eventLoopSeconds: nonNegative,
  gilWaitSeconds: nonNegative.optional(),
  gcSeconds: nonNegative.optional(),
});

const fraction = z.union([z.number().gt(0).max(1), z.literal(false)]);
const gcTermSchema = z.object({ first: z.number().int().positive(), stop: nonNegative, every: z.number().int().positive().optional() });

const clusterSummary = z.object({
  network: z.object({
    model: z.string(),
    latency: nonNegative,
    bandwidth: z.number().positive(),
    workersPerHost: z.number().int().positive(),
    hostBandwidth: z.number().positive().nullable(),
    loopBandwidth: z.number().positive().nullable(),
    deserializeBandwidth: z.number().positive().optional(),
    transferSpread: z.number().positive().optional(),
  }),
  disk: z.object({
    bandwidth: z.number().positive(),
    latency: nonNegative,
    hostBandwidth: z.number().positive().nullable(),
    removeLatency: nonNegative,
    removeBandwidth: z.number().positive().nullable(),
  }),
  overheads: z.object({
    messageLatency: nonNegative,
    schedulerBatch: nonNegative,
    workerBatch: nonNegative,
    workerHandling: cost,
    workerMessage: cost,
    schedulerDecision: nonNegative,
    schedulerMessage: nonNegative,
    taskOverrun: nonNegative,
    connectLatency: nonNegative,
    switchInterval: nonNegative,
    workerGc: z.union([gcTermSchema, z.literal(false)]).optional(),
    schedulerGc: z.union([gcTermSchema, z.literal(false)]).optional(),
  }),
  memory: z.object({ target: fraction, spill: fraction, pause: fraction, terminate: fraction, unmanaged: nonNegative, unmanagedPerTask: nonNegative, monitorInterval: nonNegative }),
  schedulerLoopSeconds: nonNegative,
  schedulerGcSeconds: nonNegative.optional(),
  host: z
    .object({
      cores: z.number().int().positive(),
      load: nonNegative,
      rule: z.enum(HOST_CPU_RULES),
      slice: nonNegative,
      credit: nonNegative,
      schedulerHost: z.number().int().nonnegative().nullable(),
      coreWaitSeconds: z.object({ scheduler: nonNegative, eventLoops: z.array(nonNegative), tasks: nonNegative }),
    })
    .optional(),
});

const memorySample = z.object({
  time: nonNegative,
  worker: z.string(),
  memoryBytes: nonNegative,
  spilledBytes: nonNegative,
});

// Described branches: zod would write a union of bare primitive types as `type: [...]`, which
// strict validators (ajv's strictTypes) refuse; this keeps it an anyOf.
const optionValue = z.union([z.string().describe("a string option"), z.number().describe("a number option (Infinity is written \"inf\")"), z.boolean().describe("a boolean option")]);

const schedulerSummary = z.object({
  policy: z.string(),
  options: z.record(z.string(), optionValue),
  steals: z.object({ requested: count, confirmed: count, rejected: count, rescheduled: count, aborted: count, unanswered: count }),
});

const stealRecord = z.object({
  time: nonNegative,
  key: z.string(),
  victim: z.string(),
  thief: z.string(),
  outcome: z.enum(["confirmed", "rejected", "rescheduled", "aborted"]),
});

const metricTotal = z.object({
  name: z.array(z.string()).min(2),
  value: z.number(),
  outcome: z.string().optional(),
});

export const reportSchema = z.object({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  workload: z.string(),
  seed: z.number().int(),
  workers: z.number().int().positive(),
  threadsPerWorker: z.number().int().positive(),
  memoryLimit: z.number().positive().nullable(),
  network: z.string(),
  tasks: z.object({ total: count, completed: count, erred: count, lost: count }),
  makespan: nonNegative,
  tasksPerSecond: nonNegative,
  transfer: z.object({ count, bytes: nonNegative }),
  spill: z.object({ bytesWritten: nonNegative, bytesRead: nonNegative, countWritten: count, countRead: count, readSeconds: nonNegative, writeSeconds: nonNegative }),
  complete: z.boolean(),
  completion: z.string(),
  faults: z.array(z.object({ time: nonNegative, kind: z.string(), detail: z.string() })),
  faultCounts: z.array(z.object({ kind: z.string(), count: z.number().int().positive(), first: nonNegative, last: nonNegative })),
  perWorker: z.array(workerSummary),
  scheduler: schedulerSummary,
  balance: z.object({ tasks: nonNegative, busy: nonNegative }),
  metrics: z.array(metricTotal),
  taskRecords: z.array(taskRecord),
  transfers: z.array(transferRecord),
  memory: z.array(memorySample),
  cluster: clusterSummary,
  stuck: z
    .array(z.object({ key: z.string(), state: z.string(), worker: z.string().optional(), workerState: z.string().optional() }))
    .optional(),
  taskRecordsDropped: count.optional(),
  transfersDropped: count.optional(),
  steals: z.array(stealRecord).optional(),
  stealsDropped: count.optional(),
});

export type ReportJson = z.infer<typeof reportSchema>;

/** The JSON Schema (draft 2020-12) of the `--json` file. */
export function reportJsonSchema(): Record<string, unknown> {
  return {
    title: `spanwork run report, schema version ${REPORT_SCHEMA_VERSION}`,
    ...z.toJSONSchema(reportSchema),
  };
}
