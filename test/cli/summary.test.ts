import { describe, expect, it } from "vitest";
import { createStyle, stripAnsi } from "../../src/cli/format/color.js";
import { formatSummary } from "../../src/cli/summary.js";
import type { SimReport } from "../../src/sim/report.js";
import { sampleReport } from "./fixtures.js";

describe("formatSummary", () => {
  const text = formatSummary(sampleReport());

  it("leads with the configuration and the key figures in human units", () => {
    const lines = text.split("\n");
    expect(lines[0]).toBe("spanwork run · fixture · 2 workers × 2 threads · memory limit 256 MiB · network latency-bandwidth · seed 1");
    expect(text).toContain("makespan    4.00 s (simulated)");
    expect(text).toContain("throughput  2.50 tasks/s over 9 completed tasks");
    expect(text).toContain("transfers   48.0 MiB in 6 transfers");
    expect(text).toContain("spill       64.0 MiB written (16 writes), 16.0 MiB read back (4 reads)");
    expect(text).toContain("faults      none");
  });

  it("groups the digits of the completion line's counts like every other figure", () => {
    const big = sampleReport({ tasks: { total: 1449, completed: 1448, erred: 1, lost: 0 }, completion: "all 1449 tasks finished: 1448 in memory, 1 erred, 0 lost" });
    expect(formatSummary(big)).toContain("✔ all 1,449 tasks finished: 1,448 in memory, 1 erred, 0 lost");
  });

  it("names every steal outcome that occurred, so the counts add up to the requests", () => {
    const line = (steals: SimReport["scheduler"]["steals"]) =>
      formatSummary(sampleReport({ scheduler: { ...sampleReport().scheduler, steals } })).split("\n").find((l) => l.startsWith("  scheduler"));
    expect(line({ requested: 0, confirmed: 0, rejected: 0, rescheduled: 0, aborted: 0, unanswered: 0 })).toBe(
      "  scheduler   dask (stealing=true, stealing-interval=0.1) · no steals",
    );
    expect(line({ requested: 17, confirmed: 8, rejected: 6, rescheduled: 1, aborted: 1, unanswered: 1 })).toBe(
      "  scheduler   dask (stealing=true, stealing-interval=0.1) · 17 steals requested: 8 confirmed, 6 rejected, 1 rescheduled, 1 aborted, 1 unanswered",
    );
    // zero counts are left out
    expect(line({ requested: 9, confirmed: 0, rejected: 8, rescheduled: 0, aborted: 1, unanswered: 0 })).toMatch(/· 9 steals requested: 8 rejected, 1 aborted$/);
  });

  it("states completion", () => {
    expect(text).toContain("✔ all 10 tasks finished: 9 in memory, 1 erred, 0 lost");
    const incomplete = formatSummary(sampleReport({ complete: false, completion: "2 of 10 tasks lost" }));
    expect(incomplete).toContain("✘ 2 of 10 tasks lost");
  });

  it("has a row per worker with utilisation and a bar", () => {
    expect(text).toMatch(/sim:\/\/w0 +2 +81\.3% +█████████▊ +5 +6\.50 s +24\.0 MiB +24\.0 MiB +40\.0 MiB +250 MiB/);
    expect(text).toMatch(/sim:\/\/w1 +2 +50\.0% +██████ +5/);
  });

  it("tabulates the fine metrics by seconds with shares, bytes, counts and outcomes", () => {
    const table = text.slice(text.indexOf("Fine performance metrics"));
    const rows = table.split("\n").filter((line) => /^ {2}(execute|gather-dep|get-data) {2,}/.test(line));
    expect(rows[0]).toMatch(/^ {2}execute +inc +thread-cpu +ok +12\.5 s +53\.5% +█+/);
    expect(rows.some((row) => /execute +sum +failed +failed +500 ms/.test(row))).toBe(true);
    expect(rows.some((row) => /gather-dep +inc +busy +busy +100 ms/.test(row))).toBe(true);
    expect(rows.some((row) => /get-data +– +network +– +1\.50 s +6\.4% +.+48\.0 MiB +–$/.test(row))).toBe(true);
    expect(rows.some((row) => /execute +inc +disk-write +ok +800 ms +3\.4% +.+64\.0 MiB +16$/.test(row))).toBe(true);
    expect(rows.at(-1)).toMatch(/execute +sum +memory-read +ok +– +32\.0 MiB +40$/);
    expect(table).toContain("total 23.4 s (share 100%): execute 19.3 s · gather-dep 2.60 s · get-data 1.50 s");
  });

  it("folds rows beyond the limit into one line that says where the rest is", () => {
    const short = formatSummary(sampleReport(), { maxMetricRows: 3, maxWorkerRows: 1 });
    expect(short).toContain("… 7 smaller rows (");
    expect(short).toContain("every row is in --json");
    expect(short).toContain("… 1 more worker, mean utilisation 50.0% (all workers are in --json)");
  });

  it("leaves rows of zeros out and says so", () => {
    const report = sampleReport({
      metrics: [
        { name: ["execute", "inc", "thread-cpu", "seconds"], value: 2, outcome: "ok" },
        { name: ["execute", "inc", "serialize", "seconds"], value: 0, outcome: "ok" },
        { name: ["execute", "inc", "other", "seconds"], value: -0.25, outcome: "ok" },
      ],
    });
    const summary = formatSummary(report);
    expect(summary).not.toMatch(/serialize/);
    expect(summary).toMatch(/execute +inc +other +ok +-250 ms +-14\.3%/);
    expect(summary).toContain("… 1 row of zeros not shown; every row is in --json");
  });

  it("lists unfinished tasks of an incomplete run", () => {
    const stuck = Array.from({ length: 7 }, (_, i) => ({ key: `x-${i}`, state: "processing", worker: "sim://w0", workerState: "executing" }));
    const summary = formatSummary(sampleReport({ complete: false, completion: "3 of 10 tasks lost", stuck }));
    expect(summary).toContain("✘ 3 of 10 tasks lost\n  · x-0: processing on sim://w0 (executing there)\n");
    expect(summary).toContain("  · … 2 more in --json");
  });

  it("lists faults and marks dead workers", () => {
    const report = sampleReport({
      faults: [{ time: 1.5, kind: "worker-death", detail: "sim://w1" }],
      faultCounts: [{ kind: "worker-death", count: 1, first: 1.5, last: 1.5 }],
      perWorker: sampleReport().perWorker.map((worker, index) => ({ ...worker, died: index === 1 })),
    });
    const withFaults = formatSummary(report);
    expect(withFaults).toContain("faults      1 worker-death\n");
    expect(withFaults).toContain("· 1.50 s: worker-death (sim://w1)");
    expect(withFaults).toContain("sim://w1 (died)");
  });

  it("counts the probabilistic faults by kind, with their first and last time", () => {
    const report = sampleReport({
      faults: [{ time: 1.5, kind: "worker-death", detail: "sim://w1 died" }],
      faultCounts: [
        { kind: "transfer-failure", count: 1204, first: 0.25, last: 30.5 },
        { kind: "worker-death", count: 1, first: 1.5, last: 1.5 },
        { kind: "busy", count: 1, first: 2, last: 2 },
        { kind: "task-failure", count: 3, first: 1, last: 4 },
      ],
    });
    const summary = formatSummary(report);
    expect(summary).toContain("faults      1,204 transfer-failure, 1 worker-death, 1 busy, 3 task-failure\n");
    expect(summary).toContain("· transfer-failure ×1,204, first at 250 ms, last at 30.5 s\n");
    expect(summary).toContain("· 1.50 s: worker-death (sim://w1 died)\n");
    expect(summary).toContain("· 2.00 s: busy\n");
    expect(summary).toContain("· task-failure ×3, first at 1.00 s, last at 4.00 s\n");
  });

  it("says how many tasks the throughput counts: the completed ones", () => {
    const summary = formatSummary(sampleReport({ tasks: { total: 10, completed: 6, erred: 1, lost: 3 }, tasksPerSecond: 1.5 }));
    expect(summary).toContain("throughput  1.50 tasks/s over 6 completed tasks\n");
  });

  it("uses colour only when asked, and the text is the same without it", () => {
    const coloured = formatSummary(sampleReport(), { style: createStyle(true) });
    expect(coloured).toContain("\u001b[");
    expect(text).not.toContain("\u001b[");
    expect(stripAnsi(coloured)).toBe(text);
  });
});
