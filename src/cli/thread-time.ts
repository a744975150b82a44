import type { MetricTotal, WorkerThreadTime } from "../sim/report.js";

// Where a worker's thread time went (the report's perWorker[].threadTime), as the summary and
// the HTML report show it: the buckets in reading order, executing first.

export interface ThreadTimeBucket {
  /** Stable id (the `data-series` of the chart's marks). */
  readonly key: string;
  readonly label: string;
  readonly idle: boolean;
  readonly seconds: (time: WorkerThreadTime) => number;
}

export const THREAD_TIME_BUCKETS: readonly ThreadTimeBucket[] = [
  { key: "ok", label: "executing", idle: false, seconds: (t) => t.executing.ok },
  { key: "failed", label: "failed", idle: false, seconds: (t) => t.executing.failed },
  { key: "cancelled", label: "cancelled", idle: false, seconds: (t) => t.executing.cancelled },
  { key: "recompute", label: "recompute", idle: false, seconds: (t) => t.executing.recompute },
  { key: "killed", label: "killed", idle: false, seconds: (t) => t.executing.killed },
  { key: "running", label: "running at the end", idle: false, seconds: (t) => t.executing.running },
  { key: "fetching", label: "idle: fetching", idle: true, seconds: (t) => t.idle.fetching },
  { key: "constrained", label: "idle: constrained", idle: true, seconds: (t) => t.idle.constrained },
  { key: "paused", label: "idle: paused", idle: true, seconds: (t) => t.idle.paused },
  { key: "no-work", label: "idle: no work", idle: true, seconds: (t) => t.idle["no-work"] },
  { key: "dead", label: "idle: dead", idle: true, seconds: (t) => t.idle.dead },
];


/** The metrics of work only: without the `worker` context (thread time), which counts execute time a second time, per slot. */
export function workMetrics(metrics: readonly MetricTotal[]): MetricTotal[] {
  return metrics.filter((metric) => metric.name[0] !== "worker");
}
