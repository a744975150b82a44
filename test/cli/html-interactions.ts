// What the HTML browser test does with the pointer: hover details and the linked zoom, on a run
// with transfers, a death and pauses. Every pointer position comes from the element or the plot
// it means to act on (its box, its viewBox and the run's end), never from fixed pixel offsets,
// so that a simulated run whose tasks and markers move elsewhere exercises the same behaviour.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { realSimulator } from "../../src/cli/simulator-adapter.js";
import type { SimReport } from "../../src/sim/report.js";
import { evaluateOn, hoverAt, hoverTip, hoverTipAnywhere, openReport, plotView, pointAt, screenshot, secondsAt, secondsPerPixel, tooltipOf, widestOnScreen, type ClientPoint } from "./browser.js";

const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;
const STREAM = 'figure[data-chart="task-stream"]';

/** spill-pressure with little disk pauses workers; a death and flaky transfers on top. */
export async function eventfulRun(seed?: number): Promise<SimReport> {
  const simulator = realSimulator();
  const result = await simulator.simulate(simulator.builtInWorkload("spill-pressure")!, {
    size: 128,
    maxSpill: 600e6,
    faults: [{ kind: "worker-death", worker: 1, at: 10 }, { kind: "transfer-failure", probability: 0.05 }],
    // the one death is the fault's: no nanny terminating a worker whose memory ran full first
    cluster: { memory: { terminate: false } },
    ...(seed === undefined ? {} : { seed }),
  });
  return result.report;
}

async function axisLabels(page: Page): Promise<string[]> {
  return page.locator(`${STREAM} g.x-axis text`).allTextContents();
}

/** Hovers a task run, a matrix cell, the death and a pause, each where nothing covers it. */
export async function hoverDetails(browser: Browser, report: SimReport, path: string): Promise<void> {
  const { page, consoleErrors } = await openReport(browser, path);
  // a single run's mark (runs back to back on one thread slot may be drawn merged)
  const task = await hoverTip(page, `${STREAM} rect.mark:not([data-tip*="runs merged"])`);
  expect(task.text, "the tooltip is the hovered mark's own").toBe(task.dataTip);
  // the tip's first line is the key (exactly: produce-3 is not produce-39), and it names the run's worker and slot
  const record = report.taskRecords.find((r) => task.text.split("\n")[0] === r.key && task.text.includes(`${r.worker} · thread ${r.thread}`));
  expect(record, `a task run named in ${JSON.stringify(task.text)}`).toBeDefined();
  expect(task.text).toContain(`prefix ${record!.prefix} · ${record!.outcome}`);
  expect(task.text).toMatch(/start [\d.]+ m?s · end [\d.]+ m?s/);

  const cell = await tooltipOf(page, 'figure[data-chart="transfer-matrix"] rect.mark.cell');
  expect(cell).toMatch(/^tcp:\/\/\S+ → tcp:\/\/\S+\n[\d.]+ [KMG]iB in [\d.]+ m?s/);
  expect(cell).toMatch(/\d+ transfers?: \d+ (ok|failed|busy)/);

  expect((await hoverTipAnywhere(page, `${STREAM} .marker.hit[data-series="death"]`)).text).toMatch(/died at 10\.0 s/);
  expect(await tooltipOf(page, 'figure[data-chart="memory"] .marker.pause.strip')).toMatch(/paused\n[\d.]+ m?s → [\d.]+ m?s/);
  expect(consoleErrors).toEqual([]);
  await page.context().close();
}

// Runs in the page on the task stream's hit lines: the first point, in whole pixels, inside both
// a hit line's stroke and a task mark (elementsFromPoint lists everything the pointer could hit
// there, in front of one another), with the indices of the two.
const TASK_UNDER_A_MARKER = `(hits) => {
  const marks = [...document.querySelectorAll('${STREAM} rect.mark')];
  for (const [hitIndex, hit] of hits.entries()) {
    hit.scrollIntoView({ block: "center", inline: "center" });
    const h = hit.getBoundingClientRect();
    for (const [markIndex, mark] of marks.entries()) {
      const m = mark.getBoundingClientRect();
      if (m.right < h.left - 5 || m.left > h.right + 5 || m.bottom < h.top || m.top > h.bottom) continue;
      const y = Math.round(m.top + m.height / 2);
      for (let x = Math.ceil(m.left); x <= Math.floor(m.right); x++) {
        const stack = document.elementsFromPoint(x, y);
        if (stack.includes(hit) && stack.includes(mark)) return { hitIndex, markIndex, x, y };
      }
    }
  }
  return null;
}`;

/**
 * A task mark under a steal's (or death's) 9 px hit line shows its own tooltip, and that
 * marker still shows its own where no task covers it. `series`: which markers to look under.
 */
export async function markersOverTasks(browser: Browser, path: string, series: "steal" | "death"): Promise<void> {
  const { page, consoleErrors } = await openReport(browser, path);
  const hits = `${STREAM} .marker.hit[data-series="${series}"]`;
  const found = await evaluateOn<{ hitIndex: number; markIndex: number; x: number; y: number } | null>(page, hits, TASK_UNDER_A_MARKER);
  expect(found, `a task mark under a ${series} marker`).not.toBeNull();
  const markerTip = (await page.locator(hits).nth(found!.hitIndex).getAttribute("data-tip")) ?? "";
  const task = await hoverAt(page, `${STREAM} rect.mark`, found!.markIndex, { x: found!.x, y: found!.y });
  expect(task.text, "the task under the marker shows its own tooltip").toBe(task.dataTip);
  expect(task.text).not.toBe(markerTip);
  const marker = await hoverTipAnywhere(page, hits);
  expect(marker.text, "the marker shows its own where no task is").toBe(marker.dataTip);
  expect(marker.text).toMatch(series === "steal" ? /^steal of \S+ at [\d.]+ m?s\n\S+ → \S+\noutcome \w+$/ : /died at/);
  expect(consoleErrors).toEqual([]);
  await page.context().close();
}

async function drag(page: Page, from: ClientPoint, to: ClientPoint): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.mouse.up();
}

/**
 * Zooms the task stream by a drag, Ctrl + wheel and Shift + wheel and checks that every time
 * chart follows, then resets by the button and by double-click. Positions are times of the run
 * mapped through the plot's own box and viewBox; tolerances are one screen pixel of the plot.
 */
export async function linkedZoom(browser: Browser, path: string, artifacts: string): Promise<void> {
  const { page, consoleErrors } = await openReport(browser, path);
  const plot = page.locator(`${STREAM} svg.plot`);
  await plot.scrollIntoViewIfNeeded();
  const full = await plotView(page, "task-stream");
  const [, , fullWidth, height] = full.viewBox;
  const original = await axisLabels(page);
  const widest = `${STREAM} rect.mark`;
  const widthBefore = await widestOnScreen(page, widest);
  const bar = page.locator(`${STREAM} .zoombar`);
  expect(await bar.locator("span").textContent()).toMatch(/^Drag to zoom/);
  expect(await bar.locator("button").isHidden()).toBe(true);

  // Drag from a quarter to half of the run: a 4× zoom on [25%, 50%].
  await drag(page, pointAt(full, full.end * 0.25), pointAt(full, full.end * 0.5));
  const zoomed = await plotView(page, "task-stream");
  const pixel = secondsPerPixel(full);
  expect(Math.abs(zoomed.from - full.end * 0.25), "the zoom starts where the drag did").toBeLessThanOrEqual(pixel);
  expect(Math.abs(zoomed.to - full.end * 0.5), "the zoom ends where the drag did").toBeLessThanOrEqual(pixel);
  expect(zoomed.viewBox[3]).toBe(height);
  // the other time charts show the same span: the same share of their own width
  expect((await plotView(page, "memory")).from / full.end).toBeCloseTo(zoomed.from / full.end, 6);
  expect((await plotView(page, "memory")).to / full.end).toBeCloseTo(zoomed.to / full.end, 6);
  expect((await plotView(page, "bandwidth")).from / full.end).toBeCloseTo(zoomed.from / full.end, 6);
  expect((await plotView(page, "bandwidth")).to / full.end).toBeCloseTo(zoomed.to / full.end, 6);
  expect(await axisLabels(page)).not.toEqual(original);
  expect(await bar.locator("span").textContent()).toMatch(/^Showing [\d.]+ s to [\d.]+ s of [\d.]+ s\.$/);
  expect(await bar.locator("button").isVisible()).toBe(true);
  // the marks scale with the zoom (the widest is the same mark before and after)
  const widthAfter = await widestOnScreen(page, widest);
  expect(Math.abs(widthAfter - (widthBefore * fullWidth!) / zoomed.viewBox[2]!)).toBeLessThanOrEqual(1);
  await screenshot(page, join(ARTIFACTS, `${artifacts}-zoomed.png`), STREAM);
  await screenshot(page, join(ARTIFACTS, `${artifacts}-zoomed-memory.png`), 'figure[data-chart="memory"]');

  // Ctrl + wheel zooms in around the pointer: the time under it stays. Shift + wheel pans.
  // (The screenshots scrolled the page: the plot's box is read again.)
  await plot.scrollIntoViewIfNeeded();
  const beforeWheel = await plotView(page, "task-stream");
  // off the middle, so that zooming around the middle instead would show
  const at = pointAt(beforeWheel, beforeWheel.from + (beforeWheel.to - beforeWheel.from) * 0.3);
  await page.mouse.move(at.x, at.y);
  await page.keyboard.down("Control");
  await page.mouse.wheel(0, -200);
  await page.keyboard.up("Control");
  await expect.poll(async () => (await plotView(page, "task-stream")).viewBox[2]!).toBeLessThan(zoomed.viewBox[2]! * 0.8);
  const wheeled = await plotView(page, "task-stream");
  expect(Math.abs(secondsAt(wheeled, at.x) - secondsAt(beforeWheel, at.x)), "the time under the pointer stays").toBeLessThanOrEqual(secondsPerPixel(wheeled));
  await page.keyboard.down("Shift");
  await page.mouse.wheel(0, 100);
  await page.keyboard.up("Shift");
  await expect.poll(async () => (await plotView(page, "task-stream")).viewBox[0]!).toBeGreaterThan(wheeled.viewBox[0]!);
  expect((await plotView(page, "task-stream")).viewBox[2]).toBeCloseTo(wheeled.viewBox[2]!, 3);

  // Reset by the button, then zoom again and reset by double-click.
  await bar.locator("button").click();
  expect((await plotView(page, "task-stream")).viewBox).toEqual([0, 0, fullWidth, height]);
  expect(await axisLabels(page)).toEqual(original);
  expect(await bar.locator("button").isHidden()).toBe(true);
  await plot.scrollIntoViewIfNeeded();
  const reset = await plotView(page, "task-stream");
  await drag(page, pointAt(reset, reset.end * 0.6), pointAt(reset, reset.end * 0.7));
  expect(Math.abs((await plotView(page, "task-stream")).from - reset.end * 0.6)).toBeLessThanOrEqual(secondsPerPixel(reset));
  const middle = pointAt(reset, reset.end * 0.5);
  await page.mouse.dblclick(middle.x, middle.y);
  expect((await plotView(page, "task-stream")).viewBox).toEqual([0, 0, fullWidth, height]);
  expect(consoleErrors).toEqual([]);
  await page.context().close();
}
