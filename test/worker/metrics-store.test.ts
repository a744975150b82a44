import { describe, expect, it } from "vitest";
import { MetricsStore } from "../../src/worker/metrics-store.js";
import {
  escapeLabelValue,
  fineMetricFamilies,
  formatFamilies,
  formatFineMetrics,
  sanitizeMetricName,
  workerGaugeFamilies,
} from "../../src/worker/prometheus.js";
import { parsePrometheus } from "./parse-prometheus.js";

describe("MetricsStore", () => {
  it("keys series by name and outcome and keeps integers integers", () => {
    const store = new MetricsStore();
    for (let i = 0; i < 1000; i++) store.digest(["execute", "x", "disk-write", "bytes"], 1_000_003, "ok");
    store.digest(["execute", "x", "disk-write", "bytes"], 7, "failed");
    expect(store.get(["execute", "x", "disk-write", "bytes"], "ok")).toBe(1_000_003_000);
    expect(Number.isInteger(store.get(["execute", "x", "disk-write", "bytes"], "ok"))).toBe(true);
    expect(store.get(["execute", "x", "disk-write", "bytes"])).toBe(1_000_003_007);
    expect(store.size).toBe(2);
  });

  it("rejects malformed names and values", () => {
    const store = new MetricsStore();
    expect(() => store.digest(["seconds"], 1)).toThrow(/context/);
    expect(() => store.digest(["a", "b", "seconds"], Number.NaN)).toThrow(/non-numeric/);
  });

  it("swaps the since-heartbeat view atomically: nothing digested during a heartbeat is lost", async () => {
    const store = new MetricsStore();
    store.digest(["execute", "x", "other", "seconds"], 1, "ok");
    const first = store.takeSinceHeartbeat();
    // the heartbeat is in flight; more metrics arrive
    await Promise.resolve();
    store.digest(["execute", "x", "other", "seconds"], 2, "ok");
    expect(first).toEqual([{ name: ["execute", "x", "other", "seconds"], outcome: "ok", value: 1 }]);
    expect(store.takeSinceHeartbeat()).toEqual([{ name: ["execute", "x", "other", "seconds"], outcome: "ok", value: 2 }]);
    expect(store.takeSinceHeartbeat()).toEqual([]);
    expect(store.get(["execute", "x", "other", "seconds"], "ok")).toBe(3);
  });

  it("files in-progress increments under outcome running, in scrape and heartbeat", () => {
    let pending = [{ name: ["execute", "x", "thread-cpu", "seconds"], value: 4 }];
    const store = new MetricsStore({
      inProgress: () => {
        const out = pending;
        pending = [];
        return out;
      },
    });
    expect(store.scrape()).toEqual([{ name: ["execute", "x", "thread-cpu", "seconds"], outcome: "running", value: 4 }]);
    store.digest(["execute", "x", "thread-cpu", "seconds"], 1, "ok");
    expect(store.get(["execute", "x", "thread-cpu", "seconds"])).toBe(5);
    expect(store.takeSinceHeartbeat()).toHaveLength(2);
  });
});

describe("Prometheus text", () => {
  it("escapes label values and sanitizes names", () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    expect(sanitizeMetricName("bytes")).toBe("bytes");
    expect(sanitizeMetricName("1 weird-unit/s")).toBe("_1_weird_unit_s");
  });

  it("round-trips through a strict parser", () => {
    const store = new MetricsStore();
    store.digest(["execute", 'we"ird\\pre\nfix', "thread-cpu", "seconds"], 1.25, "ok");
    store.digest(["execute", "inc", "disk-write", "bytes"], 4096, "ok");
    store.digest(["execute", "inc", "disk-write", "count"], 2, "cancelled");
    store.digest(["gather-dep", "inc", "network", "seconds"], 0.5, "running");
    store.digest(["get-data", "network", "seconds"], 0.25, "ok");
    store.digest(["execute", "inc", "io", "weird unit"], 3, "ok");
    store.digest(["disk-write", "bytes"], 4096, "ok");
    store.digest(["disk-write", "bytes"], 10, "cancelled");
    const text = formatFamilies([
      ...fineMetricFamilies(store.totals()),
      ...workerGaugeFamilies({ tasks: { memory: 3, disk: 1, executing: 0 }, memory: { managed: 10, spilled: 20 } }),
    ]);
    const parsed = parsePrometheus(text);
    expect([...parsed.keys()]).toEqual([
      "spanwork_fine_seconds_total",
      "spanwork_fine_bytes_total",
      "spanwork_fine_count_total",
      // "weird unit" is no metric-name fragment: its series go to one family with a unit label
      "spanwork_fine_total",
      "spanwork_spill_bytes_total",
      "spanwork_worker_tasks",
      "spanwork_worker_memory_bytes",
    ]);
    const seconds = parsed.get("spanwork_fine_seconds_total");
    expect(seconds?.type).toBe("counter");
    expect(seconds?.samples).toEqual([
      {
        name: "spanwork_fine_seconds_total",
        labels: { context: "execute", prefix: 'we"ird\\pre\nfix', activity: "thread-cpu", outcome: "ok" },
        value: 1.25,
      },
      {
        name: "spanwork_fine_seconds_total",
        labels: { context: "gather-dep", prefix: "inc", activity: "network", outcome: "running" },
        value: 0.5,
      },
      {
        name: "spanwork_fine_seconds_total",
        labels: { context: "get-data", prefix: "", activity: "network", outcome: "ok" },
        value: 0.25,
      },
    ]);
    expect(parsed.get("spanwork_spill_bytes_total")?.samples).toEqual([
      { name: "spanwork_spill_bytes_total", labels: { activity: "disk-write" }, value: 4106 },
    ]);
    expect(parsed.get("spanwork_worker_tasks")?.type).toBe("gauge");
    expect(parsed.get("spanwork_worker_tasks")?.samples.map((s) => [s.labels.state, s.value])).toEqual([
      ["memory", 3],
      ["disk", 1],
      ["executing", 0],
    ]);
  });
});

describe("formatFineMetrics", () => {
  it("writes exactly what formatFamilies(fineMetricFamilies(...)) writes", () => {
    const store = new MetricsStore();
    store.digest(["execute", 'a"b\\c\nd', "thread-cpu", "seconds"], 0.1, "ok");
    store.digest(["execute", "x", "disk-write", "bytes"], 10, "ok");
    store.digest(["gather-dep", "x", "network", "seconds"], 2, "running");
    store.digest(["handle-stimulus", "compute-task", "other", "seconds"], 0, "ok");
    store.digest(["p2p", "w", "x", "send", "count"], 3, "ok");
    store.digest(["disk-read", "count"], 4, "ok");
    store.digest(["x", "y", "1/s"], 5, "");
    const entries = store.totals();
    expect(formatFineMetrics(entries)).toBe(formatFamilies(fineMetricFamilies(entries)));
    // the first qualifier is the prefix, nested ones the path
    expect({ ...parsePrometheus(formatFineMetrics(entries)).get("spanwork_fine_count_total")!.samples[0]!.labels }).toMatchObject({ prefix: "w", path: "x" });
  });
});
