// `spanwork compare --html`: one self-contained page, the same assets and rules as the run
// report (inline SVG drawn here, a Content-Security-Policy that forbids every fetch).
import type { Comparison, ConfigurationComparison, WorkloadComparison } from "../../lab/compare.js";
import { compareActivities } from "../activities.js";
import type { ActivityStack } from "../fine-metrics.js";
import { formatBytes, formatPercent, formatSeconds } from "../format/units.js";
import { compareText } from "../text-order.js";
import { makespanBoxPlot } from "./box-plot.js";
import { escapeHtml } from "./escape.js";
import { selfContainedPage } from "./page-document.js";
import { renderChart } from "./report-page.js";
import { stackedBarsChart } from "./stacked-bars.js";
import { niceTicks } from "./svg.js";

export interface ComparePageOptions {
  /** Shown in the footer, e.g. "spanwork 0.1.0". */
  generator?: string;
  /** The --baseline text, for the captions. */
  baseline?: string;
}

const CONTEXT_ORDER = ["execute", "gather-dep", "get-data"];

function compareContexts(a: string, b: string): number {
  const rank = (context: string): number => (CONTEXT_ORDER.includes(context) ? CONTEXT_ORDER.indexOf(context) : CONTEXT_ORDER.length);
  return rank(a) - rank(b) || compareText(a, b);
}

/** One bar per configuration and context, configurations side by side, stacked by activity (mean seconds over seeds). */
function activityStacksOf(configurations: readonly ConfigurationComparison[]): ActivityStack[] {
  return configurations.flatMap((configuration) => {
    const contexts = [...new Set(configuration.activities.map((entry) => entry.context))].sort(compareContexts);
    return contexts.map((context) => {
      const segments = configuration.activities
        .filter((entry) => entry.context === context && entry.seconds !== 0)
        .map((entry) => ({ activity: entry.activity, value: entry.seconds }))
        .sort((a, b) => compareActivities(a.activity, b.activity));
      return { label: `${configuration.label} · ${context}`, context, prefix: configuration.label, total: segments.reduce((sum, segment) => sum + segment.value, 0), segments };
    });
  });
}

function table(workload: WorkloadComparison): string {
  const cell = (value: string, numeric = true): string => `<td${numeric ? ' class="num"' : ""}>${escapeHtml(value)}</td>`;
  const dash = (value: number | null, format: (value: number) => string): string => (value === null ? "–" : format(value));
  const rows = workload.configurations.map((configuration) => {
    const spread = configuration.makespan;
    const verdict = configuration.baseline.verdict;
    const abnormal = verdict === "slower";
    return (
      "<tr>" +
      cell(configuration.label, false) +
      cell(String(configuration.runs)) +
      `<td class="num${configuration.failed > 0 ? " abnormal" : ""}">${configuration.failed}</td>` +
      cell(dash(spread?.median ?? null, formatSeconds)) +
      cell(spread === null ? "–" : `${formatSeconds(spread.min)} – ${formatSeconds(spread.max)}`) +
      cell(dash(configuration.baseline.ratio, (ratio) => ratio.toFixed(2))) +
      `<td${abnormal ? ' class="abnormal"' : ""}>${escapeHtml(verdict)}</td>` +
      cell(dash(configuration.transferBytes, formatBytes)) +
      cell(dash(configuration.spillBytes, formatBytes)) +
      cell(dash(configuration.utilisation, formatPercent)) +
      cell(dash(configuration.balance, (balance) => balance.toFixed(2))) +
      "</tr>"
    );
  });
  return [
    '<div style="overflow-x:auto"><table><thead><tr><th>configuration</th><th class="num">runs</th><th class="num">failed</th><th class="num">makespan</th><th class="num">range</th><th class="num">× baseline</th><th>vs spread</th><th class="num">transfers</th><th class="num">spill</th><th class="num">utilisation</th><th class="num">balance</th></tr></thead>',
    `<tbody>${rows.join("\n")}</tbody></table></div>`,
  ].join("\n");
}

function workloadSection(workload: WorkloadComparison, index: number, options: ComparePageOptions): string {
  const baseline = options.baseline === undefined ? `baseline: ${workload.configurations[0]?.label ?? "–"}` : `baseline: each configuration against ${options.baseline}`;
  const bars = stackedBarsChart({
    id: `activities-${index}`,
    title: "Time by activity",
    description: "Mean seconds over seeds per configuration and context, split by activity, configurations side by side.",
    stacks: activityStacksOf(workload.configurations),
    ticks: (max) => niceTicks(max, 6),
    format: formatSeconds,
    keepOrder: true,
    maxBars: 60,
  });
  return [
    `<section><h2>${escapeHtml(workload.workload)}</h2><p class="note">${escapeHtml(baseline)}</p>`,
    table(workload),
    "</section>",
    renderChart(makespanBoxPlot(`makespan-${index}`, workload.configurations)),
    renderChart(bars),
  ].join("\n");
}

export function renderComparePage(comparison: Comparison, options: ComparePageOptions = {}): string {
  const title = `spanwork compare · ${comparison.workloads.map((workload) => workload.workload).join(", ")}`;
  return selfContainedPage(title, [
    '<p class="config">Makespan is the median over seeds (simulated seconds); × baseline is the ratio of medians; "faster"/"slower" means beyond the seed-to-seed spread: every seed run by both moved the same way (at least 3 seeds), or else the ranges over seeds do not overlap.</p>',
    ...comparison.workloads.map((workload, index) => workloadSection(workload, index, options)),
    `<footer>${escapeHtml(options.generator ?? "spanwork")} · self-contained: charts are inline SVG, nothing is loaded from the network.</footer>`,
  ]);
}
