// Opens HTML reports in a real browser (Debian's chromium through playwright-core) and reports
// what a user would see: chart marks, console errors, network requests, tooltips, zooming and
// screenshots.
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { X_UNITS_PER_PX } from "../../src/cli/html/timeline.js";

export const CHROMIUM_PATH = process.env.SPANWORK_CHROMIUM ?? "/usr/bin/chromium";

/** Fails (never skips) when the browser is missing: CI installs it via .ci/run. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`chromium not found at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set SPANWORK_CHROMIUM; the HTML report test needs a real browser`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export type ChartCounts = Record<string, { svgElements: number; marks: number; markers: number; visibleWidth: number }>;

export interface PageInspection {
  /** Per chart id: drawn SVG elements inside it, how many are data marks and markers. */
  charts: ChartCounts;
  consoleErrors: string[];
  /** Every request other than loading the report file itself. */
  requests: string[];
  /** Text of the tooltip after hovering the first task-stream mark the pointer can reach. */
  tooltip: string;
}

// Runs in the page (as a string: this project type-checks without the DOM library).
const COUNT_CHART_ELEMENTS = `(() => {
  const result = {};
  for (const figure of document.querySelectorAll("figure[data-chart]")) {
    const svgs = [...figure.querySelectorAll("svg")];
    const marks = [...figure.querySelectorAll(".mark")];
    result[figure.dataset.chart] = {
      svgElements: svgs.reduce((sum, svg) => sum + svg.querySelectorAll("*").length, 0),
      marks: marks.length,
      markers: figure.querySelectorAll(".marker:not(.hit)").length,
      visibleWidth: Math.max(0, ...marks.map((mark) => mark.getBoundingClientRect().width)),
    };
  }
  return result;
})()`;

export interface OpenedReport {
  page: Page;
  consoleErrors: string[];
  requests: string[];
}

/** Opens the file with every other request refused and recorded, console errors collected. */
export async function openReport(browser: Browser, htmlPath: string, options: { javaScript?: boolean } = {}): Promise<OpenedReport> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, javaScriptEnabled: options.javaScript ?? true });
  const page = await context.newPage();
  const url = pathToFileURL(htmlPath).href;
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  await page.route("**/*", async (route) => {
    const requested = route.request().url();
    if (requested === url) return route.continue();
    requests.push(requested);
    return route.abort();
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, consoleErrors, requests };
}

/**
 * Runs `body` (an arrow function's source, taking the array of elements) on every element the
 * selector matches: a string, as this project type-checks without the DOM library.
 */
export async function evaluateOn<T>(page: Page, selector: string, body: string): Promise<T> {
  return (await page.evaluate(`(${body})([...document.querySelectorAll(${JSON.stringify(selector)})])`)) as T;
}

/** The largest on-screen width of the elements the selector matches. */
export async function widestOnScreen(page: Page, selector: string): Promise<number> {
  return evaluateOn<number>(page, selector, "(nodes) => Math.max(0, ...nodes.map((node) => node.getBoundingClientRect().width))");
}

export async function countCharts(page: Page): Promise<ChartCounts> {
  return (await page.evaluate(COUNT_CHART_ELEMENTS)) as ChartCounts;
}

/** A pointer position in whole CSS pixels of the viewport (the pointer's own resolution). */
export interface ClientPoint {
  x: number;
  y: number;
}

// Runs in the page: scrolls each match into view and returns the first whose centre, rounded to
// whole pixels, the pointer would find the element itself at (nothing drawn over it there).
const FIRST_REACHABLE_CENTRE = `(elements) => {
  for (const [index, element] of elements.entries()) {
    element.scrollIntoView({ block: "center", inline: "center" });
    const box = element.getBoundingClientRect();
    const x = Math.round(box.left + box.width / 2);
    const y = Math.round(box.top + box.height / 2);
    const hit = document.elementFromPoint(x, y);
    if (hit && element.contains(hit)) return { index, x, y };
  }
  return null;
}`;

/**
 * The first element the selector matches that the pointer can reach at its centre, scrolled into
 * view: markers drawn over a task, or a mark narrower than a pixel, must not decide what a hover
 * test hovers. Throws naming the selector when no match is reachable.
 */
export async function reachableCentre(page: Page, selector: string): Promise<{ index: number; point: ClientPoint }> {
  const found = await evaluateOn<{ index: number; x: number; y: number } | null>(page, selector, FIRST_REACHABLE_CENTRE);
  const count = await page.locator(selector).count();
  if (found === null) throw new Error(`none of the ${count} elements matching ${selector} is reachable by the pointer at its centre`);
  return { index: found.index, point: { x: found.x, y: found.y } };
}

/**
 * Hovers the first element of the selector that is reachable at its centre and returns the
 * tooltip's text (lines joined by "\n") with that element's own `data-tip`, to compare.
 */
export async function hoverTip(page: Page, selector: string): Promise<{ text: string; dataTip: string }> {
  const { index, point } = await reachableCentre(page, selector);
  return hoverAt(page, selector, index, point);
}

// Runs in the page: like FIRST_REACHABLE_CENTRE, but tries every whole-pixel row of the
// element (the middle first) and every column of a marker's 9 px hit stroke (page-assets.ts),
// the middle first: a thin line partly covered by task marks, or by a steal's hit line drawn
// after it, is reachable where they leave it free.
const FIRST_REACHABLE_POINT = `(elements) => {
  for (const [index, element] of elements.entries()) {
    element.scrollIntoView({ block: "center", inline: "center" });
    const box = element.getBoundingClientRect();
    const middle = box.top + box.height / 2;
    const x = Math.round(box.left + box.width / 2);
    const rows = [];
    for (let y = Math.ceil(box.top); y <= Math.floor(box.bottom); y++) rows.push(y);
    rows.sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle));
    for (const y of rows) {
      for (const dx of [0, -1, 1, -2, 2, -3, 3, -4, 4]) {
        const hit = document.elementFromPoint(x + dx, y);
        if (hit && element.contains(hit)) return { index, x: x + dx, y };
      }
    }
  }
  return null;
}`;

/** Like `hoverTip`, at any point of the element the pointer reaches, not only its centre. */
export async function hoverTipAnywhere(page: Page, selector: string): Promise<{ text: string; dataTip: string }> {
  const found = await evaluateOn<{ index: number; x: number; y: number } | null>(page, selector, FIRST_REACHABLE_POINT);
  if (found === null) throw new Error(`none of the ${await page.locator(selector).count()} elements matching ${selector} is reachable by the pointer`);
  return hoverAt(page, selector, found.index, { x: found.x, y: found.y });
}

/** Hovers a point and returns the tooltip's text with the `data-tip` of the selector's element `index`. */
export async function hoverAt(page: Page, selector: string, index: number, point: ClientPoint): Promise<{ text: string; dataTip: string }> {
  await page.mouse.move(point.x, point.y);
  const tip = page.locator("#tip");
  const text = (await tip.isVisible()) ? await tip.innerText() : "";
  await page.mouse.move(0, 0);
  return { text, dataTip: (await page.locator(selector).nth(index).getAttribute("data-tip")) ?? "" };
}

/** The tooltip's text after hovering the first element of the selector reachable at its centre. */
export async function tooltipOf(page: Page, selector: string): Promise<string> {
  return (await hoverTip(page, selector)).text;
}

/**
 * A time plot's own coordinate mapping: its box on screen (CSS pixels) and the seconds its
 * viewBox shows now, from the plot's `width` attribute, X_UNITS_PER_PX and the frame's `data-end`.
 */
export interface PlotView {
  left: number;
  top: number;
  width: number;
  height: number;
  /** Seconds at the plot's left and right edges. */
  from: number;
  to: number;
  /** The run's end: the right edge unzoomed. */
  end: number;
  viewBox: number[];
}

export async function plotView(page: Page, chart: string): Promise<PlotView> {
  // The box from the plot's own attributes mapped to the screen (its getBoundingClientRect is
  // the box of its content in Chromium, wider than the plot when zoomed).
  const read = await evaluateOn<{ left: number; top: number; width: number; height: number; viewBox: number[]; plotWidth: number; end: number }>(page, `figure[data-chart="${chart}"] svg.plot`, `([plot]) => {
    const m = plot.parentNode.getScreenCTM();
    const [x, y, width, height] = ["x", "y", "width", "height"].map((name) => Number(plot.getAttribute(name)));
    return { left: m.a * x + m.e, top: m.d * y + m.f, width: m.a * width, height: m.d * height, viewBox: plot.getAttribute("viewBox").split(" ").map(Number),
      plotWidth: width, end: Number(plot.closest("g.time-frame").dataset.end) };
  }`);
  const unitsPerSecond = (read.plotWidth * X_UNITS_PER_PX) / read.end;
  const from = read.viewBox[0]! / unitsPerSecond;
  return { left: read.left, top: read.top, width: read.width, height: read.height, from, to: from + read.viewBox[2]! / unitsPerSecond, end: read.end, viewBox: read.viewBox };
}

/** Seconds shown at a viewport x. */
export function secondsAt(view: PlotView, clientX: number): number {
  return view.from + ((clientX - view.left) / view.width) * (view.to - view.from);
}

/** Seconds one screen pixel of the plot spans at its current zoom. */
export function secondsPerPixel(view: PlotView): number {
  return (view.to - view.from) / view.width;
}

/** The whole-pixel pointer position of `seconds`, half-way down the plot; throws if off the plot. */
export function pointAt(view: PlotView, seconds: number): ClientPoint {
  const x = Math.round(view.left + ((seconds - view.from) / (view.to - view.from)) * view.width);
  const y = Math.round(view.top + view.height / 2);
  if (x < view.left || x > view.left + view.width || y < view.top || y > view.top + view.height) {
    throw new Error(`${seconds} s is at (${x}, ${y}), outside the plot's box`);
  }
  return { x, y };
}

export async function screenshot(page: Page, path: string, selector?: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  if (selector === undefined) await page.screenshot({ path, fullPage: true });
  else await page.locator(selector).screenshot({ path });
}

export async function inspectReport(browser: Browser, htmlPath: string, screenshotPath: string): Promise<PageInspection> {
  const { page, consoleErrors, requests } = await openReport(browser, htmlPath);
  const charts = await countCharts(page);
  const firstTask = 'figure[data-chart="task-stream"] rect.mark';
  const tooltip = (await page.locator(firstTask).count()) > 0 ? await tooltipOf(page, firstTask) : "";
  await screenshot(page, screenshotPath);
  await page.context().close();
  return { charts, consoleErrors, requests, tooltip };
}
