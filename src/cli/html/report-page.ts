import type { SimReport } from "../../sim/report.js";
import { registryNames } from "../../util/registry.js";
import { fineMetricBreakdown, type FineMetricRow } from "../fine-metrics.js";
import { workMetrics } from "../thread-time.js";
import { formatBytes, formatCount, formatPercent, formatRate, formatSeconds } from "../format/units.js";
import { completionText } from "../summary.js";
import { compareText } from "../text-order.js";
import type { Chart, ChartContext } from "./chart.js";
import { CHARTS } from "./charts.js";
import { escapeHtml } from "./escape.js";
import { timelineMarkers } from "./markers.js";
import { selfContainedPage } from "./page-document.js";
import { prefixColours } from "./palette.js";

/** Rows of the fine-metrics table in the page; the rest are counted in a closing line. */
export const MAX_METRIC_TABLE_ROWS = 300;

export interface HtmlReportOptions {
  /** Shown in the footer, e.g. "spanwork 0.1.0". */
  generator?: string;
}

/**
 * The whole report as one self-contained HTML document: inline CSS, inline SVG charts drawn
 * here on the Node side (the registry in charts.ts), and a little inline script for tooltips
 * and zooming. Nothing is fetched when it opens. The same report gives the same bytes.
 */
export function renderHtmlReport(report: SimReport, options: HtmlReportOptions = {}): string {
  // the `worker` context (thread time) has a chart of its own; in the breakdown it would count execute time twice
  const breakdown = fineMetricBreakdown(workMetrics(report.metrics));
  // Legend order: the prefixes with the most task time first. Colours come from the names only.
  const prefixTime = new Map<string, number>();
  for (const record of report.taskRecords) prefixTime.set(record.prefix, (prefixTime.get(record.prefix) ?? 0) + (record.end - record.start));
  const byTime = [...prefixTime].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).map(([prefix]) => prefix);
  const context: ChartContext = { report, breakdown, prefixColours: prefixColours(byTime), markers: timelineMarkers(report) };
  const charts: Chart[] = registryNames(CHARTS).map((name) => ({ ...CHARTS[name].render(context), id: name }));
  const title = `spanwork report · ${report.workload}`;
  return selfContainedPage(title, [
    `<p class="config">${escapeHtml(configLine(report))}</p>`,
    `<p class="status ${report.complete ? "ok" : "bad"}">${report.complete ? "✔" : "✘"} ${escapeHtml(completionText(report))}</p>`,
    stuckSection(report),
    keyFigures(report),
    ...charts.map(renderChart),
    metricsTable(breakdown.rows, breakdown.totalSeconds),
    workersTable(report),
    faultsSection(report),
    `<footer>${escapeHtml(options.generator ?? "spanwork")} · report schema version ${report.schemaVersion} · self-contained: charts are inline SVG, nothing is loaded from the network.</footer>`,
  ]);
}

function configLine(report: SimReport): string {
  const memory = report.memoryLimit === null ? "no memory limit" : `memory limit ${formatBytes(report.memoryLimit)} per worker`;
  return `${report.workers} ${report.workers === 1 ? "worker" : "workers"} × ${report.threadsPerWorker} ${report.threadsPerWorker === 1 ? "thread" : "threads"} · ${memory} · network ${report.network} · seed ${report.seed}`;
}

function keyFigures(report: SimReport): string {
  const figures: Array<[string, string]> = [
    ["makespan (simulated)", formatSeconds(report.makespan)],
    ["throughput", `${formatRate(report.tasksPerSecond)} tasks/s`],
    ["tasks", `${formatCount(report.tasks.completed)} / ${formatCount(report.tasks.total)}`],
    ["erred · lost", `${formatCount(report.tasks.erred)} · ${formatCount(report.tasks.lost)}`],
    ["transferred", `${formatBytes(report.transfer.bytes)} (${formatCount(report.transfer.count)})`],
    ["spilled · read back", `${formatBytes(report.spill.bytesWritten)} · ${formatBytes(report.spill.bytesRead)}`],
  ];
  const cells = figures.map(([label, value]) => `<div class="figure"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div></div>`);
  return `<div class="figures">${cells.join("")}</div>`;
}

export function renderChart(chart: Chart): string {
  const legend = chart.legend.length === 0
    ? ""
    : `<ul class="legend">${chart.legend
        .map((entry) => `<li data-series="${escapeHtml(entry.series)}"><span class="swatch" style="background:${escapeHtml(entry.colour)}"></span>${escapeHtml(entry.label)}</li>`)
        .join("")}</ul>`;
  const note = chart.note === "" ? "" : `<p class="note">${escapeHtml(chart.note)}</p>`;
  return [
    `<figure class="chart" id="${escapeHtml(chart.id)}" data-chart="${escapeHtml(chart.id)}">`,
    `<figcaption><h2>${escapeHtml(chart.title)}</h2><p>${escapeHtml(chart.description)}</p></figcaption>`,
    legend,
    chart.body,
    note,
    "</figure>",
  ].join("\n");
}

function metricsTable(allRows: readonly FineMetricRow[], totalSeconds: number): string {
  // As in the text summary: series whose every value is zero stay in --json only.
  const rows = allRows.filter((row) => row.seconds !== 0 || row.bytes !== 0 || row.count !== 0);
  const zeroRows = allRows.length - rows.length;
  const shown = rows.slice(0, MAX_METRIC_TABLE_ROWS);
  const body = shown
    .map((row) => {
      const share = totalSeconds > 0 ? row.seconds / totalSeconds : 0;
      const abnormal = row.outcome !== "" && row.outcome !== "ok";
      return (
        "<tr>" +
        `<td>${escapeHtml(row.context)}</td>` +
        `<td>${escapeHtml(row.prefix || "–")}</td>` +
        `<td>${escapeHtml(row.activity)}</td>` +
        `<td${abnormal ? ' class="abnormal"' : ""}>${escapeHtml(row.outcome || "–")}</td>` +
        `<td class="num">${row.seconds === 0 ? "–" : escapeHtml(formatSeconds(row.seconds))}</td>` +
        `<td class="num">${row.seconds === 0 ? "" : escapeHtml(formatPercent(share))}</td>` +
        `<td><span class="share" style="width:${(Math.min(1, share) * 80).toFixed(1)}px"></span></td>` +
        `<td class="num">${row.bytes === 0 ? "–" : escapeHtml(formatBytes(row.bytes))}</td>` +
        `<td class="num">${row.count === 0 ? "–" : escapeHtml(formatCount(row.count))}</td>` +
        "</tr>"
      );
    })
    .join("\n");
  const omitted: string[] = [];
  if (rows.length > shown.length) omitted.push(`${formatCount(rows.length - shown.length)} smaller rows`);
  if (zeroRows > 0) omitted.push(`${formatCount(zeroRows)} ${zeroRows === 1 ? "row" : "rows"} of zeros`);
  const more = omitted.length > 0 ? `<p class="note">${omitted.join(" and ")} not shown; every row is in --json.</p>` : "";
  return [
    "<section>",
    "<h2>Fine performance metrics</h2>",
    "<p class=\"note\">execute by task prefix and activity, as dask's dashboard shows it, plus gather-dep by prefix, get-data and the outcome of failed or cancelled work. Share is of all seconds.</p>",
    '<table><thead><tr><th>context</th><th>prefix</th><th>activity</th><th>outcome</th><th class="num">seconds</th><th class="num">share</th><th></th><th class="num">bytes</th><th class="num">count</th></tr></thead>',
    `<tbody>${body}</tbody></table>`,
    more,
    "</section>",
  ].join("\n");
}

function workersTable(report: SimReport): string {
  const body = report.perWorker
    .map(
      (worker) =>
        "<tr>" +
        `<td>${escapeHtml(worker.address)}${worker.died ? ' <span class="abnormal">(died)</span>' : ""}</td>` +
        `<td class="num">${worker.nthreads}</td>` +
        `<td class="num">${escapeHtml(formatPercent(worker.utilisation))}</td>` +
        `<td><span class="share" style="width:${(Math.min(1, Math.max(0, worker.utilisation)) * 80).toFixed(1)}px"></span></td>` +
        `<td class="num">${escapeHtml(formatCount(worker.tasksExecuted))}</td>` +
        `<td class="num">${escapeHtml(formatBytes(worker.bytesSent))}</td>` +
        `<td class="num">${escapeHtml(formatBytes(worker.bytesReceived))}</td>` +
        `<td class="num">${escapeHtml(formatBytes(worker.spilledBytes))}</td>` +
        `<td class="num">${escapeHtml(formatBytes(worker.unspilledBytes))}</td>` +
        `<td class="num">${escapeHtml(formatBytes(worker.peakMemoryBytes))}</td>` +
        "</tr>",
    )
    .join("\n");
  return [
    "<section>",
    "<h2>Workers</h2>",
    '<table><thead><tr><th>worker</th><th class="num">threads</th><th class="num">utilisation</th><th></th><th class="num">tasks</th><th class="num">sent</th><th class="num">received</th><th class="num">spilled</th><th class="num">read back</th><th class="num">peak memory</th></tr></thead>',
    `<tbody>${body}</tbody></table>`,
    "</section>",
  ].join("\n");
}

function stuckSection(report: SimReport): string {
  const stuck = report.stuck ?? [];
  if (stuck.length === 0) return "";
  const rows = stuck
    .map(
      (task) =>
        `<tr><td>${escapeHtml(task.key)}</td><td>${escapeHtml(task.state)}</td><td>${escapeHtml(task.worker ?? "–")}</td><td>${escapeHtml(task.workerState ?? "–")}</td></tr>`,
    )
    .join("\n");
  return [
    "<section>",
    "<h2>Unfinished tasks</h2>",
    '<table><thead><tr><th>key</th><th>scheduler state</th><th>worker</th><th>state on the worker</th></tr></thead>',
    `<tbody>${rows}</tbody></table>`,
    "</section>",
  ].join("\n");
}

function faultsSection(report: SimReport): string {
  if (report.faults.length === 0) return "";
  const items = report.faults
    .slice(0, 200)
    .map((fault) => `<li>${escapeHtml(formatSeconds(fault.time))}: ${escapeHtml(fault.kind)}${fault.detail ? ` — ${escapeHtml(fault.detail)}` : ""}</li>`)
    .join("");
  const more = report.faults.length > 200 ? `<p class="note">${formatCount(report.faults.length - 200)} more in --json.</p>` : "";
  return `<section><h2>Faults</h2><ul>${items}</ul>${more}</section>`;
}
