import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHARTS } from "../../src/cli/html/charts.js";
import { timelineMarkers } from "../../src/cli/html/markers.js";
import { renderHtmlReport } from "../../src/cli/html/report-page.js";
import { realSimulator } from "../../src/cli/simulator-adapter.js";
import type { SimReport } from "../../src/sim/report.js";
import { registryNames } from "../../src/util/registry.js";
import { countCharts, evaluateOn, inspectReport, launchChromium, openReport, screenshot, tooltipOf, widestOnScreen } from "./browser.js";
import { sampleReport, sampleTaskRecords } from "./fixtures.js";
import { eventfulRun, hoverDetails, linkedZoom, markersOverTasks } from "./html-interactions.js";

// Screenshots land here for people to look at; the folder is git-ignored (they change with
// every chromium and font update, and would only bloat the history).
const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;
const CHART_IDS: string[] = registryNames(CHARTS);

describe("HTML report in a real browser", () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), "spanwork-html-"));
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("renders every chart with data, offline, without errors", async () => {
    const path = join(dir, "fixture.html");
    writeFileSync(path, renderHtmlReport(sampleReport(), { generator: "spanwork test" }));
    const page = await inspectReport(browser, path, join(ARTIFACTS, "html-report-fixture.png"));
    expect(Object.keys(page.charts).sort()).toEqual([...CHART_IDS].sort());
    for (const id of CHART_IDS) {
      expect(page.charts[id]!.svgElements, `${id} has SVG elements`).toBeGreaterThan(0);
      expect(page.charts[id]!.marks, `${id} has data marks`).toBeGreaterThan(0);
      expect(page.charts[id]!.visibleWidth, `${id} marks have a size on screen`).toBeGreaterThan(0);
    }
    expect(page.consoleErrors).toEqual([]);
    expect(page.requests).toEqual([]);
    expect(page.tooltip).toContain("prefix inc");
  });

  it("renders a real simulated run with transfers and spill", async () => {
    const simulator = realSimulator();
    const workload = simulator.builtInWorkload("shuffle")!;
    const { report } = await simulator.simulate(workload, { size: 300, workers: 4, threads: 2, seed: 3 });
    expect(report.complete).toBe(true);
    expect(report.spill.countWritten).toBeGreaterThan(0);
    const path = join(dir, "shuffle.html");
    writeFileSync(path, renderHtmlReport(report, { generator: "spanwork test" }));
    const page = await inspectReport(browser, path, join(ARTIFACTS, "html-report-shuffle.png"));
    for (const id of CHART_IDS) {
      expect(page.charts[id]!.svgElements, `${id} has SVG elements`).toBeGreaterThan(0);
      expect(page.charts[id]!.marks, `${id} has data marks`).toBeGreaterThan(0);
    }
    expect(page.charts["task-stream"]!.marks).toBeGreaterThanOrEqual(Math.min(report.taskRecords.length, 100));
    expect(page.charts.memory!.marks).toBeGreaterThanOrEqual(2 * report.workers);
    expect(page.consoleErrors).toEqual([]);
    expect(page.requests).toEqual([]);
    expect(page.tooltip).toMatch(/prefix shuffle-/);
  });

  describe("a run with transfers, a worker death and pauses", () => {
    let report: SimReport;
    let path: string;
    beforeAll(async () => {
      report = await eventfulRun();
      path = join(dir, "eventful.html");
      writeFileSync(path, renderHtmlReport(report, { generator: "spanwork test" }));
    });

    it("draws the matrix, the bandwidth and the markers with the run's data", async () => {
      const markers = timelineMarkers(report);
      expect(markers.deaths).toHaveLength(1);
      expect(markers.pauses.length).toBeGreaterThan(1);
      expect(report.transfers.some((t) => t.outcome === "failed")).toBe(true);
      const { page, consoleErrors, requests } = await openReport(browser, path);
      const charts = await countCharts(page);

      const pairs = new Set(report.transfers.map((t) => `${t.from} ${t.to}`));
      expect(await page.locator('figure[data-chart="transfer-matrix"] rect.mark.cell').count()).toBe(2 * pairs.size);
      expect(await page.locator('figure[data-chart="transfer-matrix"] .undelivered').count()).toBeGreaterThan(0);

      const points = await evaluateOn<number[]>(page, 'figure[data-chart="bandwidth"] path.mark', "(paths) => paths.map((path) => Number(path.dataset.points))");
      expect(points.length).toBe(1 + 2 * report.workers);
      for (const count of points) expect(count).toBe(200);
      expect(charts.bandwidth!.visibleWidth).toBeGreaterThan(400);

      const stream = 'figure[data-chart="task-stream"]';
      expect(await page.locator(`${stream} .marker.pause`).count()).toBe(markers.pauses.length);
      expect(await page.locator(`${stream} .marker.death`).count()).toBe(1);
      expect(await page.locator('figure[data-chart="memory"] .marker.death').count()).toBe(1);
      expect(await page.locator('figure[data-chart="memory"] .marker.pause.strip').count()).toBe(markers.pauses.length);
      const pauseWidth = await widestOnScreen(page, `${stream} .marker.pause`);
      expect(pauseWidth).toBeGreaterThan(1);
      expect(charts["task-stream"]!.markers).toBeGreaterThan(markers.pauses.length);

      expect(consoleErrors).toEqual([]);
      expect(requests).toEqual([]);
      await screenshot(page, join(ARTIFACTS, "html-report-eventful.png"));
      await screenshot(page, join(ARTIFACTS, "html-report-eventful-matrix.png"), 'figure[data-chart="transfer-matrix"]');
      await screenshot(page, join(ARTIFACTS, "html-report-eventful-bandwidth.png"), 'figure[data-chart="bandwidth"]');
      await page.context().close();
    });

    it("draws every worker's thread time as one full bar, the dead worker's slots dead after its death", async () => {
      const dead = report.perWorker.filter((worker) => worker.died);
      expect(dead).toHaveLength(1);
      expect(dead[0]!.threadTime.idle.dead).toBeGreaterThan(0);
      expect(report.perWorker.some((worker) => worker.threadTime.idle.paused > 0)).toBe(true);
      const { page, consoleErrors, requests } = await openReport(browser, path);
      const chart = 'figure[data-chart="thread-time"]';
      expect(await page.locator(`${chart} g.bar`).count()).toBe(report.workers);
      // each bar spans the same width on screen: 100% of that worker's thread time (its extent,
      // not the sum of its marks: a segment thinner than the chart's minimum mark is drawn at
      // that minimum, over its neighbour, so a sum grows with the number of thin segments)
      const widths = await evaluateOn<number[]>(
        page,
        `${chart} g.bar`,
        "(bars) => bars.map((bar) => { const boxes = [...bar.querySelectorAll('rect.mark')].map((rect) => rect.getBoundingClientRect()); return Math.max(...boxes.map((box) => box.right)) - Math.min(...boxes.map((box) => box.left)); })",
      );
      for (const width of widths) expect(width).toBeCloseTo(widths[0]!, 0);
      expect(widths[0]!).toBeGreaterThan(500);
      expect(await page.locator(`${chart} rect.mark[data-series="dead"]`).count()).toBe(1);
      expect(await page.locator(`${chart} rect.mark[data-series="paused"]`).count()).toBeGreaterThan(0);
      expect(await page.locator(`${chart} .legend li[data-series="dead"]`).count()).toBe(1);
      expect(await page.locator(`${chart} text.total`).allTextContents()).toEqual(report.perWorker.map(() => "100%"));
      const tip = await tooltipOf(page, `${chart} rect.mark[data-series="dead"]`);
      expect(tip).toContain(dead[0]!.address);
      expect(tip).toMatch(/idle: dead: [\d.]+ m?s \([\d.]+% of 2 × [\d.]+ m?s\)/);
      expect(consoleErrors).toEqual([]);
      expect(requests).toEqual([]);
      await screenshot(page, join(ARTIFACTS, "html-report-eventful-thread-time.png"), chart);
      await page.context().close();
    });

    it("shows details on hover: task, matrix cell, death and pause", async () => {
      await hoverDetails(browser, report, path);
    });

    it("zooms every time chart together by drag and wheel, and resets", async () => {
      await linkedZoom(browser, path, "html-report-eventful");
    });

    it("stays complete without JavaScript", async () => {
      const { page, consoleErrors } = await openReport(browser, path, { javaScript: false });
      const charts = await countCharts(page);
      for (const id of CHART_IDS) expect(charts[id]!.marks, `${id} has data marks`).toBeGreaterThan(0);
      expect(await page.locator(".zoombar").count()).toBe(0);
      expect(consoleErrors).toEqual([]);
      await page.context().close();
    });
  });

  // The same run under other seeds moves its tasks, markers and pauses: seeds 2 and 4 draw a
  // steal's hit line over the first task and a death over the first pause strip. The
  // interactions must not depend on where they fall.
  describe.each([2, 4])("the eventful run with seed %i", (seed) => {
    let report: SimReport;
    let path: string;
    beforeAll(async () => {
      report = await eventfulRun(seed);
      path = join(dir, `eventful-seed${seed}.html`);
      writeFileSync(path, renderHtmlReport(report, { generator: "spanwork test" }));
    });

    it("shows details on hover", async () => {
      expect(timelineMarkers(report).deaths).toHaveLength(1);
      await hoverDetails(browser, report, path);
    });

    it("zooms every time chart together", async () => {
      await linkedZoom(browser, path, `html-report-eventful-seed${seed}`);
    });

    it("keeps a task under a steal marker hoverable, and the marker where no task is", async () => {
      await markersOverTasks(browser, path, "steal");
    });
  });

  it("keeps small task marks under a steal and a death hoverable, and the markers where no task is", async () => {
    // A 20 ms task on w1 under a steal (the other thread idle then), and a task on w0 cut short
    // by its death, ending under the death's line: both under the markers' 9 px hit lines.
    const report = sampleReport({
      taskRecords: [
        ...sampleTaskRecords().filter((record) => record.prefix === "inc"),
        { key: "tiny-0", prefix: "sum", worker: "sim://w1", thread: 0, start: 1.44, end: 1.46, outcome: "ok" },
        { key: "sum-0", prefix: "sum", worker: "sim://w0", thread: 0, start: 3, end: 3.5, outcome: "ok" },
      ],
      faults: [{ time: 3.5, kind: "worker-death", detail: "sim://w0 died" }],
    });
    const path = join(dir, "markers-over-tasks.html");
    writeFileSync(path, renderHtmlReport({ ...report, steals: [{ time: 1.45, key: "inc-9", victim: "sim://w0", thief: "sim://w1", outcome: "confirmed" }] }, { generator: "spanwork test" }));
    await markersOverTasks(browser, path, "steal");
    await markersOverTasks(browser, path, "death");
  });

  it("renders faulty-shuffle (a death and failed transfers)", async () => {
    const simulator = realSimulator();
    const workload = simulator.loadWorkloadFile(new URL("../../workloads/faulty-shuffle.json", import.meta.url).pathname, "faulty-shuffle.json");
    const { report } = await simulator.simulate(workload, {});
    const path = join(dir, "faulty-shuffle.html");
    writeFileSync(path, renderHtmlReport(report, { generator: "spanwork test" }));
    const page = await inspectReport(browser, path, join(ARTIFACTS, "html-report-faulty-shuffle.png"));
    expect(page.charts["task-stream"]!.markers).toBeGreaterThanOrEqual(2);
    expect(page.charts["transfer-matrix"]!.marks).toBeGreaterThan(0);
    expect(page.consoleErrors).toEqual([]);
    expect(page.requests).toEqual([]);
  });
});
