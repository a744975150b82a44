import { threadTimeCloses, type SimReport, type WorkerSummary } from "../sim/report.js";
import { completedSentence } from "../sim/run-summary.js";
import { createStyle, type Style } from "./format/color.js";
import { bar, renderTable, type Column } from "./format/table.js";
import { formatBytes, formatCount, formatPercent, formatRate, formatSeconds } from "./format/units.js";
import { fineMetricBreakdown, type FineMetricRow } from "./fine-metrics.js";
import { stealOutcomes } from "./steal-outcomes.js";
import { THREAD_TIME_BUCKETS, workMetrics } from "./thread-time.js";

export interface SummaryOptions {
  style?: Style;
  /** Rows of the fine-metrics table before the rest is folded into one line (all rows are in --json). */
  maxMetricRows?: number;
  /** Workers listed one per line before the rest is folded into one line. */
  maxWorkerRows?: number;
}

const BAR_WIDTH = 12;

/** The text summary `spanwork run` prints on stdout. Ends with a newline. */
export function formatSummary(report: SimReport, options: SummaryOptions = {}): string {
  const style = options.style ?? createStyle(false);
  const lines: string[] = [];
  lines.push(style.bold(headline(report)), "");
  lines.push(...keyFigures(report, style), "");
  const completion = completionText(report);
  lines.push(report.complete ? style.green(`✔ ${completion}`) : style.red(`✘ ${completion}`));
  lines.push(...stuckTasks(report, style), "");
  lines.push(style.bold("Workers"), ...workerTable(report, style, options.maxWorkerRows ?? 16), "");
  lines.push(...threadTimeSection(report, style, options.maxWorkerRows ?? 16), "");
  lines.push(...metricsSection(report, style, options.maxMetricRows ?? 30));
  return `${lines.join("\n")}\n`;
}

/** The report's completion sentence, its counts grouped like every other figure a reader sees (summary and HTML). */
export function completionText(report: SimReport): string {
  return report.complete ? completedSentence(report.tasks, formatCount) : report.completion;
}

function headline(report: SimReport): string {
  const memory = report.memoryLimit === null ? "no memory limit" : `memory limit ${formatBytes(report.memoryLimit)}`;
  const workers = `${report.workers} ${report.workers === 1 ? "worker" : "workers"} × ${report.threadsPerWorker} ${report.threadsPerWorker === 1 ? "thread" : "threads"}`;
  return `spanwork run · ${report.workload} · ${workers} · ${memory} · network ${report.network} · seed ${report.seed}`;
}

function keyFigures(report: SimReport, style: Style): string[] {
  const { tasks, transfer, spill } = report;
  const figures: Array<[string, string]> = [
    ["makespan", `${formatSeconds(report.makespan)} (simulated)`],
    // The rate counts the tasks computed into memory (SimReport.tasksPerSecond); so does the count.
    ["throughput", `${formatRate(report.tasksPerSecond)} tasks/s over ${formatCount(tasks.completed)} completed ${plural(tasks.completed, "task")}`],
    [
      "transfers",
      transfer.count === 0 ? "none" : `${formatBytes(transfer.bytes)} in ${formatCount(transfer.count)} ${plural(transfer.count, "transfer")}`,
    ],
    [
      "spill",
      spill.countWritten === 0 && spill.countRead === 0
        ? "none"
        : `${formatBytes(spill.bytesWritten)} written (${formatCount(spill.countWritten)} ${plural(spill.countWritten, "write")}), ` +
          `${formatBytes(spill.bytesRead)} read back (${formatCount(spill.countRead)} ${plural(spill.countRead, "read")})`,
    ],
    ["faults", report.faultCounts.length === 0 ? "none" : report.faultCounts.map((fault) => `${formatCount(fault.count)} ${fault.kind}`).join(", ")],
  ];
  // After the faults and their detail lines, which hang under "faults".
  const placement: Array<[string, string]> = [
    ["scheduler", schedulerLine(report)],
    ["balance", `max / mean over workers: tasks ${report.balance.tasks.toFixed(2)}, busy time ${report.balance.busy.toFixed(2)}`],
  ];
  const labelWidth = Math.max(...[...figures, ...placement].map(([label]) => label.length));
  const figure = ([label, value]: [string, string]): string => `  ${style.dim(label.padEnd(labelWidth))}  ${value}`;
  const lines = figures.map(figure);
  const indent = `  ${" ".repeat(labelWidth)}  · `;
  for (const line of faultLines(report)) lines.push(`${indent}${line}`);
  lines.push(...placement.map(figure));
  return lines;
}

/** Events listed one by one up to this many of a kind; beyond, one line with the count and the time span. */
const MAX_FAULT_EVENTS_PER_KIND = 3;

/**
 * One line per fault kind, in order of first occurrence: each event of a rare kind that has
 * entries of its own (a worker death: which worker), else the count with the first and last time.
 */
function faultLines(report: SimReport): string[] {
  const lines: string[] = [];
  for (const counted of report.faultCounts) {
    const events = report.faults.filter((fault) => fault.kind === counted.kind);
    if (events.length === counted.count && events.length <= MAX_FAULT_EVENTS_PER_KIND) {
      for (const fault of events) lines.push(`${formatSeconds(fault.time)}: ${fault.kind}${fault.detail ? ` (${fault.detail})` : ""}`);
    } else if (counted.count === 1) {
      lines.push(`${formatSeconds(counted.first)}: ${counted.kind}`);
    } else {
      lines.push(`${counted.kind} ×${formatCount(counted.count)}, first at ${formatSeconds(counted.first)}, last at ${formatSeconds(counted.last)}`);
    }
  }
  return lines;
}

function schedulerLine(report: SimReport): string {
  const { policy, options, steals } = report.scheduler;
  const settings = Object.entries(options).map(([key, value]) => `${key}=${String(value)}`);
  const stealing = steals.requested === 0 ? "no steals" : `${formatCount(steals.requested)} ${plural(steals.requested, "steal")} requested: ${stealOutcomes(steals)}`;
  return `${policy}${settings.length > 0 ? ` (${settings.join(", ")})` : ""} · ${stealing}`;
}

const MAX_STUCK_LINES = 5;

function stuckTasks(report: SimReport, style: Style): string[] {
  const stuck = report.stuck ?? [];
  const lines = stuck.slice(0, MAX_STUCK_LINES).map((task) => {
    const where = task.worker === undefined ? "" : ` on ${task.worker}${task.workerState === undefined ? "" : ` (${task.workerState} there)`}`;
    return style.red(`  · ${task.key}: ${task.state}${where}`);
  });
  if (stuck.length > MAX_STUCK_LINES) lines.push(style.red(`  · … ${stuck.length - MAX_STUCK_LINES} more in --json`));
  return lines;
}

function workerTable(report: SimReport, style: Style, maxRows: number): string[] {
  const columns: Column[] = [
    { header: "worker" },
    { header: "threads", align: "right" },
    { header: "utilisation", align: "right" },
    { header: "" },
    { header: "tasks", align: "right" },
    { header: "busy", align: "right" },
    { header: "sent", align: "right" },
    { header: "received", align: "right" },
    { header: "spilled", align: "right" },
    { header: "peak memory", align: "right" },
  ];
  const shown = report.perWorker.slice(0, maxRows);
  const rows = shown.map((worker) => workerRow(worker, style));
  const lines = renderTable(columns, rows, { indent: "  " });
  const hidden = report.perWorker.slice(shown.length);
  if (hidden.length > 0) {
    const meanUtilisation = hidden.reduce((sum, worker) => sum + worker.utilisation, 0) / hidden.length;
    lines.push(
      style.dim(`  … ${hidden.length} more ${plural(hidden.length, "worker")}, mean utilisation ${formatPercent(meanUtilisation)} (all workers are in --json)`),
    );
  }
  return lines;
}

function workerRow(worker: WorkerSummary, style: Style): string[] {
  return [
    worker.died ? `${worker.address} ${style.red("(died)")}` : worker.address,
    String(worker.nthreads),
    formatPercent(worker.utilisation),
    style.cyan(bar(worker.utilisation, BAR_WIDTH)),
    formatCount(worker.tasksExecuted),
    formatSeconds(worker.busySeconds),
    formatBytes(worker.bytesSent),
    formatBytes(worker.bytesReceived),
    formatBytes(worker.spilledBytes),
    formatBytes(worker.peakMemoryBytes),
  ];
}

/**
 * Where each worker's thread time went, as shares of nthreads × the run's length: the buckets
 * that hold anything on some worker (executing and no-work always), then whether they close.
 */
function threadTimeSection(report: SimReport, style: Style, maxRows: number): string[] {
  const workers = report.perWorker;
  const lifetime = workers[0]?.threadTime.lifetime ?? 0;
  const lines = [style.bold("Thread time"), style.dim(`  share of each worker's threads × ${formatSeconds(lifetime)} (the run) spent in each bucket`)];
  if (workers.length === 0 || lifetime <= 0) return [...lines, "  (no thread time)"];
  const buckets = THREAD_TIME_BUCKETS.filter((bucket) => bucket.key === "ok" || bucket.key === "no-work" || workers.some((worker) => bucket.seconds(worker.threadTime) > 0));
  const columns: Column[] = [{ header: "worker" }, ...buckets.map((bucket): Column => ({ header: bucket.label.replace(/^idle: /, ""), align: "right" })), { header: "closes", align: "right" }];
  const shown = workers.slice(0, maxRows);
  const rows = shown.map((worker) => {
    const time = worker.threadTime;
    const share = (seconds: number) => (time.capacity > 0 ? seconds / time.capacity : 0);
    const closes = threadTimeCloses(time);
    return [
      worker.died ? `${worker.address} ${style.red("(died)")}` : worker.address,
      ...buckets.map((bucket) => {
        const seconds = bucket.seconds(time);
        if (seconds === 0) return style.dim("–");
        const text = formatPercent(share(seconds));
        return bucket.idle ? text : bucket.key === "ok" ? style.cyan(text) : style.yellow(text);
      }),
      closes ? style.green("✔") : style.red(`✘ ${formatSeconds(time.total - time.capacity)}`),
    ];
  });
  lines.push(...renderTable(columns, rows, { indent: "  " }));
  if (workers.length > shown.length) lines.push(style.dim(`  … ${workers.length - shown.length} more ${plural(workers.length - shown.length, "worker")} in --json`));
  return lines;
}

function metricsSection(report: SimReport, style: Style, maxRows: number): string[] {
  // thread time is its own section: counted with the rest it would count execute time twice
  const breakdown = fineMetricBreakdown(workMetrics(report.metrics));
  const lines = [
    style.bold("Fine performance metrics"),
    style.dim("  execute per task prefix and activity, as on dask's Fine Performance Metrics page, plus what that"),
    style.dim("  page hides: gather-dep per prefix, get-data, and outcomes (failed, cancelled, running work)"),
  ];
  if (breakdown.rows.length === 0) {
    return [...lines, "  (no metrics recorded)"];
  }
  const columns: Column[] = [
    { header: "context" },
    { header: "prefix" },
    { header: "activity" },
    { header: "outcome" },
    { header: "seconds", align: "right" },
    { header: "share", align: "right" },
    { header: "" },
    { header: "bytes", align: "right" },
    { header: "count", align: "right" },
  ];
  // Series that exist with value 0 say "this happened and took no time"; worth keeping in the
  // JSON, not worth a line here.
  const nonZero = breakdown.rows.filter((row) => row.seconds !== 0 || row.bytes !== 0 || row.count !== 0);
  const shown = nonZero.slice(0, maxRows);
  const rows = shown.map((row) => metricRow(row, breakdown.totalSeconds, style));
  lines.push(...renderTable(columns, rows, { indent: "  " }));
  const hidden = nonZero.slice(shown.length);
  const zeroRows = breakdown.rows.length - nonZero.length;
  const folded: string[] = [];
  if (hidden.length > 0) {
    const hiddenSeconds = hidden.reduce((sum, row) => sum + row.seconds, 0);
    folded.push(`${hidden.length} smaller ${plural(hidden.length, "row")} (${formatSeconds(hiddenSeconds)} in total)`);
  }
  if (zeroRows > 0) folded.push(`${zeroRows} ${plural(zeroRows, "row")} of zeros`);
  if (folded.length > 0) lines.push(style.dim(`  … ${folded.join(" and ")} not shown; every row is in --json`));
  const perContext = breakdown.secondsByContext.map(({ context, seconds }) => `${context} ${formatSeconds(seconds)}`).join(" · ");
  lines.push(`  total ${formatSeconds(breakdown.totalSeconds)} (share 100%): ${perContext}`);
  return lines;
}

function metricRow(row: FineMetricRow, totalSeconds: number, style: Style): string[] {
  const share = totalSeconds > 0 ? row.seconds / totalSeconds : 0;
  const abnormal = row.outcome !== "" && row.outcome !== "ok";
  const outcome = row.outcome === "" ? style.dim("–") : abnormal ? style.yellow(row.outcome) : row.outcome;
  return [
    row.context,
    row.prefix === "" ? style.dim("–") : row.prefix,
    row.activity,
    outcome,
    row.seconds === 0 ? style.dim("–") : formatSeconds(row.seconds),
    row.seconds === 0 ? "" : formatPercent(share),
    row.seconds === 0 ? "" : style.cyan(bar(share, BAR_WIDTH)),
    row.bytes === 0 ? style.dim("–") : formatBytes(row.bytes),
    row.count === 0 ? style.dim("–") : formatCount(row.count),
  ];
}

function plural(count: number, noun: string): string {
  return count === 1 ? noun : `${noun}s`;
}
