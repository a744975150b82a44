import { describe, expect, it } from "vitest";
import { escapeHtml, truncate } from "../../src/cli/html/escape.js";
import { MAX_MEMORY_PANELS } from "../../src/cli/html/memory-chart.js";
import { renderHtmlReport } from "../../src/cli/html/report-page.js";
import { byteTicks, niceTicks, px, ticksWithin } from "../../src/cli/html/svg.js";
import { MAX_TASK_MARKS } from "../../src/cli/html/task-stream.js";
import { hashedColour } from "../../src/cli/html/palette.js";
import type { MemorySample, SimReport, TaskRecord, WorkerSummary } from "../../src/sim/report.js";
import { sampleReport } from "./fixtures.js";
import { chartMarkup, count } from "./html-markup.js";

describe("renderHtmlReport", () => {
  const html = renderHtmlReport(sampleReport(), { generator: "spanwork 0.1.0" });

  it("is one self-contained document: nothing to fetch", () => {
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).not.toMatch(/<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import|https?:\/\//i);
    expect(html).toContain("Content-Security-Policy");
    expect(count(html, /<script>/g)).toBe(1);
  });

  it("draws the activity, task-stream and memory charts, each with data marks", () => {
    const marks = {
      "time-by-activity": count(chartMarkup(html, "time-by-activity"), /<rect class="mark"/g),
      "bytes-by-activity": count(chartMarkup(html, "bytes-by-activity"), /<rect class="mark"/g),
      "task-stream": count(chartMarkup(html, "task-stream"), /<rect class="mark/g),
      memory: count(chartMarkup(html, "memory"), /<path class="mark/g),
    };
    // 9 seconds rows grouped into 4 stacks; 4 byte rows; 10 tasks; memory and spill for 2 workers.
    expect(marks).toEqual({ "time-by-activity": 9, "bytes-by-activity": 4, "task-stream": 10, memory: 4 });
  });

  it("colours the task stream by prefix, outlines failures and has tooltips", () => {
    const stream = chartMarkup(html, "task-stream");
    expect(stream).toContain('data-tip="sum-1&#10;prefix sum · failed&#10;sim://w1 · thread 0&#10;start 3.00 s · end 3.50 s (500 ms)"');
    expect(count(stream, /class="mark failed"/g)).toBe(1);
    expect(stream).toContain(`<li data-series="inc"><span class="swatch" style="background:${hashedColour("inc")}"></span>inc</li>`);
    expect(stream).toContain(`fill="${hashedColour("sum")}"`);
  });

  it("draws the memory limit and both series per worker", () => {
    const memory = chartMarkup(html, "memory");
    expect(count(memory, /<svg class="panel timeline"/g)).toBe(2);
    expect(count(memory, /class="mark limit"/g)).toBe(2);
    expect(memory).toContain("in memory, peak 250 MiB");
  });

  it("tabulates the fine metrics and the workers", () => {
    expect(html).toContain("<td>execute</td><td>inc</td><td>thread-cpu</td><td>ok</td><td class=\"num\">12.5 s</td><td class=\"num\">53.5%</td>");
    expect(html).toContain('<td class="abnormal">failed</td>');
    expect(html).toContain("<td>sim://w0</td>");
    expect(html).toContain("✔ all 10 tasks finished: 9 in memory, 1 erred, 0 lost");
  });

  it("gives the same bytes for the same report", () => {
    expect(renderHtmlReport(sampleReport(), { generator: "spanwork 0.1.0" })).toBe(html);
  });

  it("escapes every piece of text that comes from the user's spec", () => {
    const evil = `<script>alert("x")</script>`;
    const report = sampleReport({
      workload: evil,
      completion: `done ${evil}`,
      taskRecords: [{ key: `"><img src=x onerror=alert(1)>`, prefix: evil, worker: "sim://w0", thread: 0, start: 0, end: 1, outcome: "ok" }],
      metrics: [{ name: ["execute", evil, "thread-cpu", "seconds"], value: 1, outcome: "ok" }],
      faults: [{ time: 1, kind: evil, detail: evil }],
    });
    const page = renderHtmlReport(report);
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img");
    expect(count(page, /<script>/g)).toBe(1);
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });

  it("keeps the file bounded for large runs and says what it merged", () => {
    const records: TaskRecord[] = [];
    const workers: WorkerSummary[] = [];
    const memory: MemorySample[] = [];
    for (let w = 0; w < 20; w += 1) {
      workers.push({ ...sampleReport().perWorker[0]!, address: `sim://w${w}`, nthreads: 4, peakMemoryBytes: w });
      for (let t = 0; t < 5000; t += 1) memory.push({ time: t / 10, worker: `sim://w${w}`, memoryBytes: (t * 7919 + w) % 1000, spilledBytes: t % 13 });
    }
    for (let i = 0; i < 60_000; i += 1) {
      const start = Math.floor(i / 80) * 0.5;
      records.push({ key: `t-${i}`, prefix: i % 3 === 0 ? "a" : "b", worker: `sim://w${i % 20}`, thread: Math.floor(i / 20) % 4, start, end: start + 0.4, outcome: "ok" });
    }
    const big: SimReport = sampleReport({ workers: 20, threadsPerWorker: 4, taskRecords: records, perWorker: workers, memory, makespan: 500 });
    const page = renderHtmlReport(big);
    const stream = chartMarkup(page, "task-stream");
    expect(count(stream, /<rect class="mark/g)).toBeLessThanOrEqual(MAX_TASK_MARKS);
    expect(stream).toMatch(/short task runs are drawn as [\d,]+ merged rectangles|narrowest rectangles are not drawn/);
    expect(stream).toContain("60,000 task runs on 80 threads.");
    const memoryChart = chartMarkup(page, "memory");
    expect(count(memoryChart, /<svg class="panel timeline"/g)).toBe(MAX_MEMORY_PANELS);
    expect(memoryChart).toContain(`Showing the ${MAX_MEMORY_PANELS} workers with the highest peaks; 8 more are in --json.`);
    expect(page.length).toBeLessThan(2_000_000);
  });

  it("stacks positive values only and names the negative ones", () => {
    const page = renderHtmlReport(
      sampleReport({
        metrics: [
          { name: ["execute", "inc", "thread-cpu", "seconds"], value: 2, outcome: "ok" },
          { name: ["execute", "inc", "other", "seconds"], value: -0.5, outcome: "ok" },
          { name: ["execute", "inc", "serialize", "seconds"], value: 0, outcome: "ok" },
        ],
      }),
    );
    const chart = chartMarkup(page, "time-by-activity");
    expect(count(chart, /<rect class="mark"/g)).toBe(1);
    expect(chart).toContain("Negative values are not drawn: execute · inc · other -500 ms.");
    expect(page).toContain("<td>execute</td><td>inc</td><td>other</td><td>ok</td><td class=\"num\">-500 ms</td>");
    expect(page).not.toContain("<td>serialize</td>");
    expect(page).toContain("1 row of zeros not shown; every row is in --json.");
  });

  it("skips memory samples without numbers instead of drawing NaN", () => {
    const memory = [...sampleReport().memory, { time: 4, worker: "sim://w0" } as unknown as MemorySample];
    const chart = chartMarkup(renderHtmlReport(sampleReport({ memory })), "memory");
    expect(chart).not.toContain("NaN");
    expect(chart).toContain("1 sample without a finite time or byte count skipped.");
  });

  it("renders a run in which nothing happened", () => {
    const page = renderHtmlReport(sampleReport({ taskRecords: [], metrics: [], memory: [], tasks: { total: 0, completed: 0, erred: 0, lost: 0 } }));
    expect(chartMarkup(page, "time-by-activity")).toContain("nothing recorded in this run");
    expect(chartMarkup(page, "task-stream")).toContain("no task ran");
    expect(chartMarkup(page, "memory")).toContain("no memory samples in this report");
  });
});

describe("svg helpers", () => {
  it("picks round ticks that cover the maximum", () => {
    expect(niceTicks(9.3, 5)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0.07, 4)).toEqual([0, 0.02, 0.04, 0.06, 0.08]);
    expect(niceTicks(0)).toEqual([0]);
    expect(ticksWithin(200.1, 4)).toEqual([0, 100, 200]);
    expect(byteTicks(250 * 2 ** 20, 3)).toEqual([0, 100, 200, 300].map((v) => v * 2 ** 20));
  });
  it("rounds coordinates to tenths", () => {
    expect(px(1.26)).toBe("1.3");
    expect(px(-0.01)).toBe("0");
  });
  it("escapes markup and quotes and truncates labels", () => {
    expect(escapeHtml(`<a href="x">'&'</a>\n`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;&#10;");
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("abc", 4)).toBe("abc");
  });
});
