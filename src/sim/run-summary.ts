// The parts of a report read from the scheduler at the end of a run: how many tasks finished,
// the policy and its steals, where the unfinished ones were stuck, and the cluster it ran on.
import { gcTerm } from "./gc.js";
import type { ResolvedCluster } from "./cluster.js";
import type { TaskGraph } from "./graph.js";
import type { ClusterSummary, HostSummary, SimReport, StealRecord } from "./report.js";
import type { Scheduler } from "./scheduler.js";
import type { SimWorker } from "./sim-worker.js";

/** Tasks finished (in memory, or released after use), erred, and neither: the scheduler's own counts. */
export function taskCounts(scheduler: Scheduler, size: number): { completed: number; erred: number; lost: number } {
  const erred = scheduler.erred;
  const lost = scheduler.unfinished;
  return { completed: size - erred - lost, erred, lost };
}

/** The completion sentence of a run whose every task finished; `count` writes each number (the CLI groups its digits). */
export function completedSentence(tasks: SimReport["tasks"], count: (n: number) => string = String): string {
  return `all ${count(tasks.total)} tasks finished: ${count(tasks.completed)} in memory, ${count(tasks.erred)} erred, 0 lost`;
}

/** The report's completion sentence: every task finished, or how many did not, when progress stopped and how to replay the run. */
export function completionSentence(tasks: SimReport["tasks"], stuckAt: number, seed: number): string {
  if (tasks.lost === 0) return completedSentence(tasks);
  const at = Math.round(stuckAt * 1000) / 1000;
  return `${tasks.lost} of ${tasks.total} tasks did not finish (${tasks.completed} in memory, ${tasks.erred} erred); stuck at t=${at}s — replay with seed ${seed}`;
}

/** What the run's cluster was: the resolved parameters as the report states them. */
export function clusterSummary(c: ResolvedCluster, schedulerLoopSeconds: number, host: HostSummary | null, schedulerGcSeconds: number | null = null): ClusterSummary {
  return {
    network: {
      model: c.network,
      latency: c.latency,
      bandwidth: c.bandwidth,
      workersPerHost: c.workersPerHost,
      hostBandwidth: c.hostBandwidth,
      loopBandwidth: c.loopBandwidth,
      ...(c.deserializeBandwidth === null ? {} : { deserializeBandwidth: c.deserializeBandwidth }),
      ...(c.transferSpread === null ? {} : { transferSpread: c.transferSpread }),
    },
    disk: { ...c.disk, hostBandwidth: c.disk.hostBandwidth ?? null, removeLatency: c.disk.removeLatency ?? 0, removeBandwidth: c.disk.removeBandwidth ?? null },
    overheads: overheadsSummary(c.overheads),
    memory: { ...c.memory },
    schedulerLoopSeconds,
    ...(schedulerGcSeconds === null ? {} : { schedulerGcSeconds }),
    ...(host === null ? {} : { host }),
  };
}

/** The overheads as the report states them: a garbage-collection term that is off is left out, as when unset (a run with `workerGc: false` reports as one without it). */
function overheadsSummary(overheads: ResolvedCluster["overheads"]): ResolvedCluster["overheads"] {
  const { workerGc, schedulerGc, ...rest } = overheads;
  return { ...rest, ...(gcTerm(workerGc) === undefined ? {} : { workerGc }), ...(gcTerm(schedulerGc) === undefined ? {} : { schedulerGc }) };
}

export function schedulerSummary(scheduler: Scheduler): SimReport["scheduler"] {
  const options = Object.create(null) as Record<string, string | number | boolean>;
  // JSON has no Infinity: an infinite option (worker-saturation=inf) is written as typed.
  for (const [key, value] of Object.entries(scheduler.policyOptions)) options[key] = typeof value === "number" && !Number.isFinite(value) ? String(value).replace("Infinity", "inf") : value;
  return { policy: scheduler.policyName, options, steals: { ...scheduler.steals.counts, unanswered: scheduler.steals.unanswered } };
}

export function stealRecords(scheduler: Scheduler, graph: TaskGraph, workers: readonly SimWorker[]): { records: StealRecord[]; dropped: number } {
  const ledger = scheduler.steals;
  const address = (w: number) => workers[w]!.address;
  const records = ledger.events.map((e) => ({ time: e.time, key: graph.keys[e.task]!, victim: address(e.victim), thief: address(e.thief), outcome: e.outcome }));
  return { records, dropped: ledger.dropped };
}

export function stuckTasks(scheduler: Scheduler, graph: TaskGraph, workers: readonly SimWorker[]): NonNullable<SimReport["stuck"]> {
  return scheduler.unfinishedTasks(100).map((id) => {
    const key = graph.keys[id]!;
    const entry: NonNullable<SimReport["stuck"]>[number] = { key, state: scheduler.statusName(id) };
    const w = scheduler.workerOf(id);
    if (w >= 0) {
      entry.worker = workers[w]!.address;
      const ts = workers[w]!.worker.state.tasks.get(key);
      if (ts !== undefined) entry.workerState = ts.state;
    }
    return entry;
  });
}
