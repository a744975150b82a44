import { describe, expect, it } from "vitest";
import { BANDWIDTH_BINS, bandwidthSeries } from "../../src/cli/html/bandwidth-chart.js";
import { CHARTS } from "../../src/cli/html/charts.js";
import { renderHtmlReport } from "../../src/cli/html/report-page.js";
import { MAX_MATRIX_WORKERS } from "../../src/cli/html/transfer-matrix.js";
import { shortWorkerNames } from "../../src/cli/html/worker-names.js";
import type { SimReport, TransferRecord, WorkerSummary } from "../../src/sim/report.js";
import { registryNames } from "../../src/util/registry.js";
import { sampleReport } from "./fixtures.js";
import { chartMarkup, count } from "./html-markup.js";

const MiB = 2 ** 20;

const transfer = (from: string, to: string, bytes: number, start: number, end: number, outcome: TransferRecord["outcome"] = "ok"): TransferRecord => ({ from, to, keys: 1, bytes, start, end, outcome });

/** Two workers that exchange data, one pause and unpause on w0, w1 dying at 3 s, two steals. */
function eventfulReport(): SimReport {
  const report = sampleReport({
    transfers: [
      transfer("sim://w0", "sim://w1", 8 * MiB, 1.4, 1.6),
      transfer("sim://w0", "sim://w1", 0, 1.6, 1.7, "failed"),
      transfer("sim://w1", "sim://w0", 4 * MiB, 2, 2.1),
      transfer("sim://w1", "sim://w0", 0, 2.1, 2.2, "busy"),
    ],
    faults: [
      { time: 1, kind: "pause", detail: "sim://w0 managed memory above the pause fraction" },
      { time: 2, kind: "unpause", detail: "sim://w0 managed memory back below the pause fraction" },
      { time: 3, kind: "worker-death", detail: "sim://w1 died" },
    ],
  });
  return { ...report, steals: [{ time: 0.5, key: "inc-3", victim: "sim://w0", thief: "sim://w1", outcome: "ok" }, { time: 0.7, key: "inc-5", victim: "sim://w1", thief: "sim://w0", outcome: "rejected" }] } as SimReport;
}

describe("the chart registry", () => {
  it("renders every registered chart once, in order, under its registry name", () => {
    const html = renderHtmlReport(eventfulReport());
    const ids = [...html.matchAll(/<figure class="chart" id="([^"]+)"/g)].map((match) => match[1]);
    expect(ids).toEqual(registryNames(CHARTS));
    for (const name of registryNames(CHARTS)) expect(CHARTS[name].description.length).toBeGreaterThan(10);
  });
});

describe("transfer matrix", () => {
  const matrix = chartMarkup(renderHtmlReport(eventfulReport()), "transfer-matrix");

  it("draws a cell per pair of workers that talked, for bytes and for time", () => {
    expect(count(matrix, /<svg class="matrix"/g)).toBe(2);
    expect(count(matrix, /<rect class="mark cell" data-series="bytes"/g)).toBe(2);
    expect(count(matrix, /<rect class="mark cell" data-series="seconds"/g)).toBe(2);
    expect(count(matrix, /class="cell self"/g)).toBe(4);
  });

  it("says bytes, time, count and outcomes on hover, and marks what did not deliver", () => {
    expect(matrix).toContain('data-tip="sim://w0 → sim://w1&#10;8.00 MiB in 300 ms (26.7 MiB/s)&#10;2 transfers: 1 failed, 1 ok"');
    expect(matrix).toContain('data-tip="sim://w1 → sim://w0&#10;4.00 MiB in 200 ms (20.0 MiB/s)&#10;2 transfers: 1 busy, 1 ok"');
    expect(count(matrix, /class="undelivered"/g)).toBe(4);
    expect(matrix).toContain('data-tip="sim://w0 sent 8.00 MiB in all"');
  });

  it(`folds the quietest workers into one row and column beyond ${MAX_MATRIX_WORKERS}`, () => {
    const workers: WorkerSummary[] = Array.from({ length: 20 }, (_, i) => ({ ...sampleReport().perWorker[0]!, address: `tcp://10.0.0.${i}:8786` }));
    const transfers = workers.map((worker, i) => transfer(worker.address, workers[(i + 1) % 20]!.address, (i + 1) * MiB, i, i + 0.5));
    const page = chartMarkup(renderHtmlReport(sampleReport({ perWorker: workers, transfers, workers: 20 })), "transfer-matrix");
    expect(count(page, />others<\/text>/g)).toBe(4);
    expect(page).toContain("The 5 workers with the least traffic are folded into &quot;others&quot;.");
    expect(page).toContain(">10.0.0.19</text>");
  });

  it("shortens addresses only while they stay distinct", () => {
    expect([...shortWorkerNames(["tcp://10.0.0.1:8786", "tcp://10.0.0.2:8786"]).values()]).toEqual(["10.0.0.1", "10.0.0.2"]);
    expect([...shortWorkerNames(["tcp://a:1", "tcp://a:2"]).values()]).toEqual(["a:1", "a:2"]);
    expect([...shortWorkerNames(["tcp://a:1", "inproc://a:1"]).values()]).toEqual(["tcp://a:1", "inproc://a:1"]);
  });
});

describe("bandwidth over time", () => {
  it("spreads each transfer's bytes over its duration, so the bins add up to the bytes moved", () => {
    const transfers = [transfer("a", "b", 8 * MiB, 1.4, 1.6), transfer("b", "a", 3 * MiB, 0.5, 0.5), transfer("a", "b", 0, 0, 1, "failed")];
    const series = bandwidthSeries(transfers, ["a", "b"], 4);
    const bytes = (rates: Float64Array): number => rates.reduce((sum, rate) => sum + rate * series.binWidth, 0);
    expect(series.total).toHaveLength(BANDWIDTH_BINS);
    expect(bytes(series.total)).toBeCloseTo(11 * MiB, 0);
    expect(bytes(series.received.get("b")!)).toBeCloseTo(8 * MiB, 0);
    expect(bytes(series.sent.get("b")!)).toBeCloseTo(3 * MiB, 0);
    expect(Math.max(...series.received.get("b")!)).toBeCloseTo((8 * MiB) / 0.2, 0);
    expect(series.bytesByWorker).toEqual(new Map([["a", 11 * MiB], ["b", 11 * MiB]]));
  });

  it("draws the total and every worker's in and out, each over every bin", () => {
    const chart = chartMarkup(renderHtmlReport(eventfulReport()), "bandwidth");
    expect(count(chart, /data-series="total"[^>]*data-points="200"/g)).toBe(1);
    expect(count(chart, /data-series="received"[^>]*data-points="200"/g)).toBe(2);
    expect(count(chart, /data-series="sent"[^>]*data-points="200"/g)).toBe(2);
    expect(chart).toContain("peak 40.0 MiB/s");
  });

  it("says so when nothing moved", () => {
    expect(chartMarkup(renderHtmlReport(sampleReport({ transfers: [] })), "bandwidth")).toContain("no data moved between workers");
  });
});

describe("markers on the time charts", () => {
  const html = renderHtmlReport(eventfulReport());

  it("marks pauses, the death and steals on the task stream, with their legend", () => {
    const stream = chartMarkup(html, "task-stream");
    expect(count(stream, /class="marker pause"/g)).toBe(1);
    expect(count(stream, /class="marker dead"/g)).toBe(1);
    expect(count(stream, /class="marker death"/g)).toBe(1);
    expect(count(stream, /class="marker steal"/g)).toBe(2);
    expect(stream).toContain("✕ sim://w1");
    expect(stream).toContain('data-tip="steal of inc-5 at 700 ms&#10;sim://w1 → sim://w0&#10;outcome rejected"');
    for (const series of ["pause", "death", "steal"]) expect(stream).toContain(`<li data-series="${series}">`);
  });

  it("marks the same on the memory panel of each worker, and stops a dead worker's lines at its death", () => {
    const memory = chartMarkup(html, "memory");
    expect(count(memory, /class="marker pause faint"/g)).toBe(1);
    expect(count(memory, /class="marker pause strip"/g)).toBe(1);
    expect(count(memory, /class="marker death"/g)).toBe(1);
    expect(count(memory, /class="marker steal"/g)).toBe(2);
    expect(memory).toContain("✕ sim://w1 (died)");
    // w1's samples end at 2 s: its lines end at its death (3 s of 4), not at the end of the run.
    const w1 = memory.slice(memory.indexOf('aria-label="memory of sim://w1"'));
    const spilled = /data-series="spilled"[^>]*d="([^"]+)"/.exec(w1)![1]!;
    expect(spilled.endsWith(`H${0.75 * 398 * 100}`)).toBe(true);
  });

  it("draws no marker when nothing happened", () => {
    const quiet = renderHtmlReport(sampleReport());
    expect(count(quiet, /class="marker /g)).toBe(0);
  });
});

describe("the page script", () => {
  it("is inline, names no address, and the zoomable plots carry what it needs", () => {
    const html = renderHtmlReport(eventfulReport());
    expect(html).not.toMatch(/https?:\/\//);
    const frames = [...html.matchAll(/<g class="time-frame" data-end="([^"]+)" data-ticks="(\d+)"><g class="x-axis">/g)];
    // The task stream, two memory panels, the total and two worker bandwidth panels.
    expect(frames).toHaveLength(6);
    for (const [, end] of frames) expect(Number(end)).toBe(4);
    expect(count(html, /<svg class="plot" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" viewBox="0 0 [\d.]+ [\d.]+" preserveAspectRatio="none"/g)).toBe(6);
  });
});
