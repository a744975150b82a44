// The thread-time ledger in the terminal summary and the HTML report: a compact per-worker
// table, a per-worker 100% bar; the `worker` context stays out of the fine-metrics views,
// where it would count execute time twice.
import { describe, expect, it } from "vitest";
import { stripAnsi } from "../../src/cli/format/color.js";
import { threadTimeChart } from "../../src/cli/html/thread-time-chart.js";
import { renderHtmlReport } from "../../src/cli/html/report-page.js";
import { formatSummary } from "../../src/cli/summary.js";
import { fineMetricBreakdown } from "../../src/cli/fine-metrics.js";
import { THREAD_TIME_BUCKETS, workMetrics } from "../../src/cli/thread-time.js";
import { timelineMarkers } from "../../src/cli/html/markers.js";
import type { SimReport } from "../../src/sim/report.js";
import { sampleReport } from "./fixtures.js";

/** The fixture with a worker context in its metrics, as a real report has. */
function withLedgerMetrics(): SimReport {
  const report = sampleReport();
  report.metrics = [
    ...report.metrics,
    { name: ["worker", "execute", "inc", "thread-cpu", "seconds"], value: 12.5, outcome: "ok" },
    { name: ["worker", "idle", "fetching", "seconds"], value: 3 },
  ];
  return report;
}

describe("thread time in the summary", () => {
  const text = stripAnsi(formatSummary(withLedgerMetrics()));

  it("has one line per worker with the shares of its buckets, and says they close", () => {
    const section = text.slice(text.indexOf("Thread time"), text.indexOf("Fine performance metrics"));
    expect(section).toContain("share of each worker's threads × 4.00 s (the run) spent in each bucket");
    expect(section).toMatch(/worker +executing +failed +cancelled +recompute +fetching +constrained +paused +no work +closes/);
    expect(section).toMatch(/sim:\/\/w0 +68\.8% +6\.3% +– +– +12\.5% +– +3\.1% +9\.4% +✔/);
    expect(section).toMatch(/sim:\/\/w1 +37\.5% +– +6\.3% +6\.3% +25\.0% +6\.3% +– +18\.8% +✔/);
    // buckets nobody has are left out
    expect(section).not.toMatch(/killed|dead/);
  });

  it("says so when a worker's thread time does not close", () => {
    const report = sampleReport();
    report.perWorker[1]!.threadTime.total = 7.5;
    expect(stripAnsi(formatSummary(report))).toMatch(/sim:\/\/w1 .* ✘ -500 ms/);
  });

  it("keeps the worker context out of the fine-metrics table and its total", () => {
    const table = text.slice(text.indexOf("Fine performance metrics"));
    expect(table).not.toMatch(/^ {2}worker /m);
    expect(table).toContain("total 23.4 s (share 100%): execute 19.3 s · gather-dep 2.60 s · get-data 1.50 s");
    expect(fineMetricBreakdown(workMetrics(withLedgerMetrics().metrics)).secondsByContext.map((c) => c.context)).not.toContain("worker");
  });
});

describe("thread time in the HTML report", () => {
  const report = withLedgerMetrics();
  const context = { report, breakdown: fineMetricBreakdown(workMetrics(report.metrics)), prefixColours: new Map<string, string>(), markers: timelineMarkers(report) };

  it("draws one bar per worker whose segments fill the plot, in bucket order, with tooltips", () => {
    const chart = threadTimeChart.render(context);
    const bars = chart.body.split('<g class="bar">').slice(1);
    expect(bars).toHaveLength(2);
    for (const [index, bar] of bars.entries()) {
      const rects = [...bar.matchAll(/<rect class="mark" data-series="([^"]+)" data-tip="([^"]+)" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)];
      const order = rects.map((rect) => THREAD_TIME_BUCKETS.findIndex((bucket) => bucket.key === rect[1]));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      const width = rects.reduce((sum, rect) => sum + Number(rect[4]), 0);
      expect(width).toBeCloseTo(960 - 150 - 90, 0);
      const time = report.perWorker[index]!.threadTime;
      const present = THREAD_TIME_BUCKETS.filter((bucket) => bucket.seconds(time) > 0).map((bucket) => bucket.key);
      expect(rects.map((rect) => rect[1])).toEqual(present);
      expect(rects[0]![2]).toContain(report.perWorker[index]!.address);
      expect(bar).toContain(">100%<");
    }
    expect(chart.legend.map((entry) => entry.series)).toEqual(["ok", "failed", "cancelled", "recompute", "fetching", "constrained", "paused", "no-work"]);
    expect(chart.note).toBe("");
  });

  it("names a worker whose thread time does not close", () => {
    const broken = sampleReport();
    broken.perWorker[0]!.threadTime.total = 9;
    const chart = threadTimeChart.render({ ...context, report: broken });
    expect(chart.body).toContain("gap 1.00 s");
    expect(chart.note).toBe("Thread time does not add up to the threads × the run's length for sim://w0 (1.00 s).");
  });

  it("leaves the worker context out of the page's fine-metrics table", () => {
    const html = renderHtmlReport(report);
    expect(html).toContain('data-chart="thread-time"');
    const table = html.slice(html.indexOf("<h2>Fine performance metrics</h2>"));
    expect(table).not.toContain("<td>worker</td>");
  });
});
