import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../src/cli/html/report-page.js";
import type { SimReport } from "../../src/sim/report.js";
import { sampleReport } from "./fixtures.js";
import { chartMarkup, count } from "./html-markup.js";

describe("the worker-balance chart", () => {
  it("draws tasks and busy time per worker with the means, and states the balance figures", () => {
    const markup = chartMarkup(renderHtmlReport(sampleReport()), "worker-balance");
    expect(count(markup, /<rect[^>]*data-series="tasks"/g)).toBe(2);
    expect(count(markup, /<rect[^>]*data-series="busy"/g)).toBe(2);
    expect(markup).toContain("Balance, max / mean: tasks 1.00, busy time 1.24");
    expect(markup).toContain("under the dask policy");
    expect(markup).toContain(`data-tip="sim://w0&#10;busy thread-seconds: 6.50 s (1.24 × mean)"`);
  });

  it("says how the steal requests ended, every outcome that occurred", () => {
    const markup = (steals: SimReport["scheduler"]["steals"]) =>
      chartMarkup(renderHtmlReport(sampleReport({ scheduler: { ...sampleReport().scheduler, steals } })), "worker-balance");
    expect(markup({ requested: 13, confirmed: 5, rejected: 6, rescheduled: 0, aborted: 1, unanswered: 1 })).toContain(
      "under the dask policy (13 steal requests: 5 confirmed, 6 rejected, 1 aborted, 1 unanswered).",
    );
    expect(markup({ requested: 1, confirmed: 0, rejected: 0, rescheduled: 1, aborted: 0, unanswered: 0 })).toContain("(1 steal request: 1 rescheduled).");
    expect(markup(sampleReport().scheduler.steals)).toContain("under the dask policy (no steal requests).");
  });

  it("draws at most 64 workers and says how many it left out", () => {
    const many = Array.from({ length: 70 }, (_, i) => ({ ...sampleReport().perWorker[0]!, address: `sim://w${i}` }));
    const markup = chartMarkup(renderHtmlReport(sampleReport({ perWorker: many, workers: 70 })), "worker-balance");
    expect(count(markup, /<rect[^>]*data-series="tasks"/g)).toBe(64);
    expect(markup).toContain("6 more workers not drawn");
  });
});
