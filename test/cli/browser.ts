// Opens HTML reports in a real browser (Debian's chromium through playwright-core) and reports
// what a user would see: chart marks, console errors, network requests, a screenshot.
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";

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

export interface PageInspection {
  /** Per chart id: drawn SVG elements inside it, and how many are data marks. */
  charts: Record<string, { svgElements: number; marks: number; visibleWidth: number }>;
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
      visibleWidth: Math.max(0, ...marks.map((mark) => mark.getBoundingClientRect().width)),
    };
  }
  return result;
})()`;

export async function inspectReport(browser: Browser, htmlPath: string, screenshotPath: string): Promise<PageInspection> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
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
  const charts = (await page.evaluate(COUNT_CHART_ELEMENTS)) as PageInspection["charts"];
  let tooltip = "";
  const firstTask = page.locator('figure[data-chart="task-stream"] rect.mark').first();
  if ((await firstTask.count()) > 0) {
    await firstTask.hover({ force: true });
    tooltip = (await page.locator("#tip").textContent()) ?? "";
    await page.mouse.move(0, 0);
  }
  mkdirSync(dirname(screenshotPath), { recursive: true });
  await page.screenshot({ path: screenshotPath, fullPage: true });
  await page.close();
  return { charts, consoleErrors, requests, tooltip };
}
