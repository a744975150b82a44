// Opens HTML reports in a real browser (Debian's chromium through playwright-core) and reports
// what a user would see: chart marks, console errors, network requests, tooltips, zooming and
// screenshots.
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

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
  /** Text of the tooltip after hovering the first task-stream mark. */
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

/** Hovers the element and returns the tooltip's text, lines joined by "\n". */
export async function tooltipOf(page: Page, selector: string, nth = 0): Promise<string> {
  const target = page.locator(selector).nth(nth);
  await target.scrollIntoViewIfNeeded();
  await target.hover({ force: true });
  const tip = page.locator("#tip");
  const text = (await tip.isVisible()) ? await tip.innerText() : "";
  await page.mouse.move(0, 0);
  return text;
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
