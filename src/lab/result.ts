// What a sweep keeps of each run: one JSON line with the run's identity (key, workload, seed,
// axis labels, version) and the figures a comparison needs — never a wall-clock time, so the
// same run gives the same line on any machine, with any number of jobs, in any shard.
import type { SimReport } from "../sim/report.js";
import type { AxisLabel, SweepRun } from "./plan.js";
import { byText } from "./stats.js";

/** Seconds and bytes of one activity in one context, summed over task prefixes and outcomes. */
export interface ActivityTotal {
  context: string;
  activity: string;
  seconds: number;
  bytes: number;
}

export interface SweepResult {
  key: string;
  workload: string;
  seed: number;
  /** The axis labels of the run. */
  options: Record<string, AxisLabel>;
  version: string;
  /** Simulated seconds; null when the run failed before it had one. */
  makespan: number | null;
  /** Why the run failed: an error raised by the simulation, or an incomplete run's completion sentence. */
  error?: string;
  complete?: boolean;
  workers?: number;
  threadsPerWorker?: number;
  tasks?: SimReport["tasks"];
  transfer?: SimReport["transfer"];
  spill?: { bytesWritten: number; bytesRead: number };
  /** Mean of the workers' utilisations (busy thread-seconds over threads × makespan), 0..1. */
  utilisation?: number;
  /** Mean over max of the workers' busy seconds, 0..1: 1 when every worker was as busy as the busiest. */
  balance?: number;
  activities?: ActivityTotal[];
}

export function isFailed(result: SweepResult): boolean {
  return result.error !== undefined;
}

function identity(run: SweepRun, version: string): Pick<SweepResult, "key" | "workload" | "seed" | "options" | "version"> {
  return { key: run.key, workload: run.workload, seed: run.seed, options: { ...run.options }, version };
}

/** The line of a run that produced a report. An incomplete run is a failed one (its completion says why), with its figures kept. */
export function resultFromReport(run: SweepRun, report: SimReport, version: string): SweepResult {
  const busy = report.perWorker.map((worker) => worker.utilisation * worker.nthreads);
  const maxBusy = Math.max(0, ...busy);
  const meanBusy = busy.length === 0 ? 0 : busy.reduce((sum, value) => sum + value, 0) / busy.length;
  const utilisation = report.perWorker.length === 0 ? 0 : report.perWorker.reduce((sum, worker) => sum + worker.utilisation, 0) / report.perWorker.length;
  return {
    ...identity(run, version),
    makespan: report.makespan,
    ...(report.complete ? {} : { error: `run incomplete: ${report.completion}` }),
    complete: report.complete,
    workers: report.workers,
    threadsPerWorker: report.threadsPerWorker,
    tasks: { ...report.tasks },
    transfer: { ...report.transfer },
    spill: { bytesWritten: report.spill.bytesWritten, bytesRead: report.spill.bytesRead },
    utilisation,
    balance: maxBusy > 0 ? meanBusy / maxBusy : 1,
    activities: activityTotals(report),
  };
}

/** The line of a run that raised instead of reporting. */
export function failedResult(run: SweepRun, error: unknown, version: string): SweepResult {
  const message = error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error);
  return { ...identity(run, version), makespan: null, error: message.replace(/\s*\n\s*/g, " ") };
}

function activityTotals(report: SimReport): ActivityTotal[] {
  const totals = new Map<string, ActivityTotal>();
  for (const metric of report.metrics) {
    const { name } = metric;
    // [context, …qualifiers, activity, unit]; shorter names are the unqualified copies of aggregate spans.
    if (name.length < 3) continue;
    const unit = name[name.length - 1];
    if (unit !== "seconds" && unit !== "bytes") continue;
    const context = name[0]!;
    const activity = name[name.length - 2]!;
    const key = `${context}\u0000${activity}`;
    let total = totals.get(key);
    if (total === undefined) {
      total = { context, activity, seconds: 0, bytes: 0 };
      totals.set(key, total);
    }
    total[unit] += metric.value;
  }
  return [...totals.values()].sort((a, b) => byText(a.context, b.context) || byText(a.activity, b.activity));
}
