import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../../src/lab/compare.js";
import type { AxisLabel } from "../../src/lab/plan.js";
import type { SweepResult } from "../../src/lab/result.js";
import { inspectReport, launchChromium } from "./browser.js";
import { spanworkInProcess } from "./in-process.js";

const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;

function result(workload: string, options: Record<string, AxisLabel>, seed: number, makespan: number): SweepResult {
  return {
    key: `${workload}:${JSON.stringify(options)}:${seed}`,
    workload,
    seed,
    options,
    version: "test",
    makespan,
    complete: true,
    transfer: { count: 3, bytes: 3 * 2 ** 20 },
    spill: { bytesWritten: 2 ** 20, bytesRead: 0 },
    utilisation: 0.75,
    balance: 0.9,
    activities: [
      { context: "execute", activity: "thread-cpu", seconds: makespan * 3, bytes: 0 },
      { context: "execute", activity: "disk-write", seconds: 0.5, bytes: 2 ** 20 },
      { context: "gather-dep", activity: "network", seconds: 1.5, bytes: 3 * 2 ** 20 },
    ],
  };
}

function lines(results: readonly SweepResult[]): string {
  return results.map((entry) => `${JSON.stringify(entry)}\n`).join("");
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-compare-"));
  const seeds = [1, 2, 3, 4, 5];
  writeFileSync(
    join(dir, "a.jsonl"),
    lines([
      ...seeds.map((seed) => result("shuffle", { scheduler: "dask", workers: 4 }, seed, 10 + seed / 10)),
      ...seeds.map((seed) => result("shuffle", { scheduler: "locality", workers: 4 }, seed, 9 + seed / 10)),
    ]),
  );
  writeFileSync(
    join(dir, "b.jsonl"),
    lines([
      ...seeds.map((seed) => result("shuffle", { scheduler: "dask", workers: 8 }, seed, 6 + seed / 10)),
      ...seeds.map((seed) => result("shuffle", { scheduler: "locality", workers: 8 }, seed, seed % 2 === 0 ? 6.5 - seed / 10 : 5.5 + seed / 10)),
      { ...result("map<script>", { scheduler: "dask", workers: 4 }, 1, 1), makespan: null, error: "SimulationError: \u001b[31mboom" },
      result("map<script>", { scheduler: "dask", workers: 4 }, 2, 1),
    ]),
  );
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function spanwork(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return spanworkInProcess(args, dir);
}

describe("spanwork compare", () => {
  it("prints a table per workload, each configuration against its baseline", async () => {
    const outcome = await spanwork(["compare", "a.jsonl", "b.jsonl", "--baseline", "scheduler=dask"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const text = outcome.stdout;
    expect(text).toContain("shuffle · 4 configurations · seeds 1–5 · baseline: each against scheduler=dask");
    const row = (label: string): string => text.split("\n").find((line) => line.trimStart().startsWith(label))!;
    expect(row("scheduler=locality workers=4")).toMatch(/\s5\s+9\.30 s\s+9\.10 s – 9\.50 s\s+0\.90\s+faster \(5\/5 seeds\)\s+3\.00 MiB\s+1\.00 MiB\s+75\.0%\s+0\.90$/);
    expect(row("scheduler=locality workers=8")).toMatch(/\s0\.95\s+within spread\s/);
    expect(row("scheduler=dask workers=8")).toMatch(/\s–\s+baseline\s/);
    // The failed run is counted and shown with its error, its escape byte escaped.
    expect(text).toContain("map<script> · 1 configuration · seeds 1–2");
    expect(text).toContain("✘ scheduler=dask workers=4 seed 1: SimulationError: \\u001b[31mboom");
    expect(text).not.toContain("\u001b");
  });

  it("writes the comparison as JSON, on stdout with --json -", async () => {
    const outcome = await spanwork(["compare", "a.jsonl", "b.jsonl", "--json", "-"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const comparison = JSON.parse(outcome.stdout) as Comparison;
    expect(comparison.workloads.map((workload) => workload.workload)).toEqual(["map<script>", "shuffle"]);
    const shuffle = comparison.workloads[1]!;
    expect(shuffle.configurations[0]!.label).toBe("scheduler=dask workers=4");
    expect(shuffle.configurations.map((configuration) => configuration.baseline.label)).toEqual(Array(4).fill("scheduler=dask workers=4"));
    expect(shuffle.configurations[2]!.makespan).toMatchObject({ n: 5, median: 9.3, min: 9.1, max: 9.5 });
  });

  it("rejects a baseline that names no axis or no value, and files that are not results", async () => {
    expect((await spanwork(["compare", "a.jsonl", "--baseline", "policy=dask"])).stderr).toBe('error: --baseline: "policy" is not an axis of these results (axes: scheduler, workers)\n');
    expect((await spanwork(["compare", "a.jsonl", "--baseline", "workers=16"])).stderr).toBe("error: --baseline: workers=16 is not a value of axis workers (4)\n");
    writeFileSync(join(dir, "junk.jsonl"), "[1, 2]\n");
    expect(await spanwork(["compare", "junk.jsonl"])).toMatchObject({ code: 2, stderr: "error: junk.jsonl:1: not a sweep result line (a JSON object with key, workload, seed, options and makespan)\n" });
    expect((await spanwork(["compare", "nothing.jsonl"])).stderr).toBe("error: nothing.jsonl: no such file\n");
  });

  it("writes one self-contained page with a box plot and stacked bars per workload", async () => {
    const outcome = await spanwork(["compare", "a.jsonl", "b.jsonl", "--html", "compare.html", "--baseline", "scheduler=dask"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/wrote compare\.html \(HTML comparison, [\d.]+ KiB\)\n$/);
    const html = readFileSync(join(dir, "compare.html"), "utf8");
    expect(html).toContain("default-src 'none'");
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("map&lt;script&gt;");
    // Five seed dots and a box per configuration; a bar per configuration and context.
    const shuffleBoxes = html.split('data-chart="makespan-1"')[1]!.split("</figure>")[0]!;
    expect(shuffleBoxes.match(/class="mark seed"/g)).toHaveLength(20);
    expect(shuffleBoxes.match(/class="mark box"/g)).toHaveLength(4);
    const bars = html.split('data-chart="activities-1"')[1]!.split("</figure>")[0]!;
    expect(bars.match(/class="bar"/g)).toHaveLength(8);
    // Configurations side by side, in table order.
    const labels = [...bars.matchAll(/data-tip="(scheduler=[^"]+ · [a-z-]+)"/g)].map((match) => match[1]);
    expect(labels.slice(0, 4)).toEqual(["scheduler=dask workers=4 · execute", "scheduler=dask workers=4 · gather-dep", "scheduler=dask workers=8 · execute", "scheduler=dask workers=8 · gather-dep"]);
  });
});

describe("spanwork compare --html in a real browser", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("renders every chart offline, without errors or requests", async () => {
    const outcome = await spanwork(["compare", "a.jsonl", "b.jsonl", "--html", "browser.html"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const page = await inspectReport(browser, join(dir, "browser.html"), join(ARTIFACTS, "compare-page.png"));
    expect(Object.keys(page.charts).sort()).toEqual(["activities-0", "activities-1", "makespan-0", "makespan-1"]);
    expect(page.charts["makespan-1"]!.marks).toBe(24);
    expect(page.charts["activities-1"]!.marks).toBe(12);
    for (const chart of Object.values(page.charts)) expect(chart.visibleWidth).toBeGreaterThan(0);
    expect(page.consoleErrors).toEqual([]);
    expect(page.requests).toEqual([]);
  });
});
