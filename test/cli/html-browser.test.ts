import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../src/cli/html/report-page.js";
import { realSimulator } from "../../src/cli/simulator-adapter.js";
import { inspectReport, launchChromium } from "./browser.js";
import { sampleReport } from "./fixtures.js";

const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;
const CHARTS = ["time-by-activity", "bytes-by-activity", "task-stream", "memory"];

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
    expect(Object.keys(page.charts).sort()).toEqual([...CHARTS].sort());
    for (const id of CHARTS) {
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
    for (const id of CHARTS) {
      expect(page.charts[id]!.svgElements, `${id} has SVG elements`).toBeGreaterThan(0);
      expect(page.charts[id]!.marks, `${id} has data marks`).toBeGreaterThan(0);
    }
    expect(page.charts["task-stream"]!.marks).toBeGreaterThanOrEqual(Math.min(report.taskRecords.length, 100));
    expect(page.charts.memory!.marks).toBeGreaterThanOrEqual(2 * report.workers);
    expect(page.consoleErrors).toEqual([]);
    expect(page.requests).toEqual([]);
    expect(page.tooltip).toMatch(/prefix shuffle-/);
  });
});
