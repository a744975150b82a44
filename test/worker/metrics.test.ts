// Fine metrics of a worker: no leakage between concurrent tasks, no pile-up over long
// chains, exact integers, heartbeats that lose nothing, in-progress scrapes that never
// count twice, Prometheus text, the HTTP endpoint.
import { get } from "node:http";
import { describe, expect, it } from "vitest";
import { currentSpan, meter, spanTreeProblems, type SpanRecord } from "../../src/spans/index.js";
import { ComputeTaskEvent, type TaskFinishedMsg } from "../../src/state/index.js";
import { RealExecutor, type TaskContext } from "../../src/worker/index.js";
import { MemoryStore, asRecord, makeCluster, total } from "./helpers.js";
import { parsePrometheus } from "./parse-prometheus.js";

function httpGet(url: string): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, contentType: String(response.headers["content-type"]), body }),
      );
    }).on("error", reject);
  });
}

const A = "127.0.0.1:1";
const B = "127.0.0.1:2";

describe("metrics", () => {
  it("three concurrent tasks each recording 10 counts: no leakage", async () => {
    const { clock, workers, errors } = makeCluster([A], { executor: new RealExecutor(), worker: { nthreads: 3 } });
    const { worker } = workers[0]!;
    const task = (delay: number) => async (_inputs: ReadonlyMap<string, unknown>, ctx: TaskContext) => {
      for (let i = 0; i < 10; i++) {
        await meter("io", async () => {
          currentSpan()!.addMetric("count", 1);
          await ctx.clock.sleep(delay);
        });
        currentSpan()!.addMetric("records", 2);
      }
    };
    worker.handleStimulus(
      ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: task(0.1) }),
      ComputeTaskEvent({ key: "b-1", stimulusId: "c2", runSpec: task(0.3) }),
      ComputeTaskEvent({ key: "c-1", stimulusId: "c3", runSpec: task(0.7) }),
    );
    await clock.run({ until: 0.05 });
    expect(worker.state.executing.size).toBe(3);
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    const m = worker.scrape();
    for (const [prefix, delay] of [["a", 0.1], ["b", 0.3], ["c", 0.7]] as const) {
      expect(total(m, ["execute", prefix, "io", "count"])).toBe(10);
      expect(total(m, ["execute", prefix, "io", "seconds"])).toBeCloseTo(10 * delay, 9);
      // the task's own metrics sit on its transparent thread node: path ["execute", prefix]
      expect(total(m, ["execute", prefix, "records"])).toBe(20);
    }
    expect(currentSpan()).toBeUndefined();
  });

  it("1000 chained tasks: no pile-up of context or spans", async () => {
    const records: SpanRecord[] = [];
    let next = 1;
    const { clock, workers, errors } = makeCluster([A], {
      worker: {
        validate: false,
        onSpanRecord: (r) => records.push(r),
        send: (message) => {
          if (message.kind !== "TaskFinishedMsg" || next >= 1000) return;
          const i = next++;
          // like a scheduler: the next link arrives on a later turn
          queueMicrotask(() =>
            workers[0]!.worker.handleStimulus(
              ComputeTaskEvent({
                key: `t-${i}`,
                stimulusId: `compute-${i}`,
                whoHas: { [`t-${i - 1}`]: [A] },
                nbytes: { [`t-${i - 1}`]: 8 },
                runSpec: { durations: { "thread-cpu": 0.001 }, outputBytes: 8 },
              }),
            ),
          );
        },
      },
    });
    const { worker } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({ key: "t-0", stimulusId: "compute-0", runSpec: { durations: { "thread-cpu": 0.001 }, outputBytes: 8 } }),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect(worker.state.tasks.get("t-999")?.state).toBe("memory");
    expect(worker.spanRegistry.size).toBe(0);
    expect(worker.outstanding).toBe(0);
    expect(currentSpan()).toBeUndefined();
    const executes = records.filter((r) => r.attributes["key"] !== undefined);
    expect(executes).toHaveLength(1000);
    // every record is its own root with only leaf activities under it: depth 1, no nesting of tasks
    const depth = (r: SpanRecord): number => 1 + Math.max(0, ...r.children.map(depth));
    expect(Math.max(...records.map(depth))).toBe(2);
    for (const r of records) expect(spanTreeProblems(r)).toEqual([]);
    // 1000 × 0.001 s, each exact to a quantum (2^-30 s)
    expect(total(worker.scrape(), ["execute", "t", "thread-cpu", "seconds"], "ok")).toBeCloseTo(1, 5);
  });

  it("integers stay integers, also when a transfer is split over prefixes", async () => {
    const { clock, workers } = makeCluster([A, B], { worker: { memoryLimit: 1, spill: { store: new MemoryStore() } } });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "p-1": "x".repeat(1001), "q-1": "y".repeat(2002), "r-1": "z".repeat(3) });
    b.worker.handleStimulus(
      ComputeTaskEvent({
        key: "s-1",
        stimulusId: "c1",
        whoHas: { "p-1": [A], "q-1": [A], "r-1": [A] },
        nbytes: { "p-1": 1001, "q-1": 2002, "r-1": 3 },
        runSpec: { durations: { "thread-cpu": 1 }, outputBytes: 7 },
      }),
    );
    await clock.runUntilIdle();
    const m = b.worker.scrape();
    const integral = m.filter((e) => e.name[e.name.length - 1] !== "seconds");
    expect(integral.length).toBeGreaterThan(10);
    for (const e of integral) expect(Number.isInteger(e.value)).toBe(true);
    // the network bytes of the one transfer, split exactly by prefix
    const received = ["p", "q", "r"].map((p) => total(m, ["gather-dep", p, "network", "bytes"]));
    const sent = a.worker.state.tasks;
    expect(received.reduce((x, y) => x + y)).toBe(sent.get("p-1")!.nbytes! + sent.get("q-1")!.nbytes! + sent.get("r-1")!.nbytes!);
    // the unsplit view: seconds over prefixes add up to the transfer's network time
    const seconds = ["p", "q", "r"].map((p) => total(m, ["gather-dep", p, "network", "seconds"]));
    expect(seconds.reduce((x, y) => x + y)).toBeCloseTo(0.01 + received.reduce((x, y) => x + y) / 1e6, 9);
    expect(seconds[1]! / seconds[0]!).toBeCloseTo(2002 / 1001, 6);
  });

  it("metrics digested during a heartbeat are not lost", async () => {
    const { clock, workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    const heartbeats: Array<Record<string, number>> = [];
    const model = (s: number) => ({ durations: { "thread-cpu": s }, outputBytes: 1 });
    worker.handleStimulus(
      ComputeTaskEvent({ key: "a-1", stimulusId: "c1", runSpec: model(1) }),
      ComputeTaskEvent({ key: "b-1", stimulusId: "c2", runSpec: model(1) }),
    );
    await clock.run({ until: 1 });
    // a heartbeat is taken, and while it is "being sent" (2 s) the second task finishes
    const sending = (async () => {
      const deltas = worker.heartbeat();
      await clock.sleep(2);
      heartbeats.push(asRecord(deltas));
    })();
    await clock.runUntilIdle();
    await sending;
    heartbeats.push(asRecord(worker.heartbeat()));
    expect(heartbeats[0]!["execute/a/thread-cpu/seconds|ok"]).toBe(1);
    expect(heartbeats[1]!["execute/b/thread-cpu/seconds|ok"]).toBe(1);
    const summed: Record<string, number> = {};
    for (const h of heartbeats) for (const [k, v] of Object.entries(h)) summed[k] = (summed[k] ?? 0) + v;
    expect(summed).toEqual(asRecord(worker.scrape()));
  });

  it("a scrape in the middle of a long task shows in-progress time; final totals unchanged", async () => {
    async function run(scrapeAt: number[]) {
      const { clock, workers } = makeCluster([A]);
      const { worker } = workers[0]!;
      worker.handleStimulus(
        ComputeTaskEvent({ key: "long-1", stimulusId: "c1", runSpec: { durations: { "thread-cpu": 6, "thread-noncpu": 4 }, outputBytes: 8 } }),
      );
      const scrapes: Array<Record<string, number>> = [];
      for (const t of scrapeAt) {
        await clock.run({ until: t });
        scrapes.push(asRecord(worker.scrape()));
      }
      await clock.runUntilIdle();
      return { scrapes, final: worker.scrape() };
    }
    const withScrapes = await run([4, 8]);
    const without = await run([]);
    // the thread-time ledger counts the running task on its slot the same way (docs/worker.md, "Thread time")
    expect(withScrapes.scrapes[0]).toEqual({ "execute/long/thread-cpu/seconds|running": 4, "worker/execute/long/thread-cpu/seconds|running": 4 });
    expect(withScrapes.scrapes[1]).toEqual({
      "execute/long/thread-cpu/seconds|running": 6,
      "execute/long/thread-noncpu/seconds|running": 2,
      "worker/execute/long/thread-cpu/seconds|running": 6,
      "worker/execute/long/thread-noncpu/seconds|running": 2,
    });
    const byName = (entries: typeof without.final) => {
      const out: Record<string, number> = {};
      for (const e of entries) out[e.name.join("/")] = (out[e.name.join("/")] ?? 0) + e.value;
      return out;
    };
    expect(byName(withScrapes.final)).toEqual(byName(without.final));
    expect(total(withScrapes.final, ["execute", "long", "thread-noncpu", "seconds"], "ok")).toBe(2);
    expect(total(without.final, ["execute", "long", "thread-noncpu", "seconds"], "ok")).toBe(4);
  });

  it("an in-progress transfer is scraped split by prefix", async () => {
    const { clock, workers } = makeCluster([A, B], { latency: 2 });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData({ "x-1": 1 });
    b.worker.handleStimulus(
      ComputeTaskEvent({ key: "y-1", stimulusId: "c", whoHas: { "x-1": [A] }, nbytes: { "x-1": 8 }, runSpec: { durations: {}, outputBytes: 1 } }),
    );
    await clock.run({ until: 1 });
    // b's thread idles while its task's dependency is in flight; a's has nothing to run
    expect(asRecord(b.worker.scrape())).toEqual({ "gather-dep/x/network/seconds|running": 1, "worker/idle/fetching/seconds|": 1 });
    expect(asRecord(a.worker.scrape())).toEqual({
      "worker/idle/no-work/seconds|": 1,
      "get-data/x/memory-read/bytes|running": 8,
      "get-data/x/memory-read/count|running": 1,
      "get-data/x/network/bytes|running": 8,
      "get-data/x/network/seconds|running": 1,
      "memory-read/bytes|running": 8,
      "memory-read/count|running": 1,
    });
  });

  it("accesses outside any span are attributed to an unattributed root", async () => {
    const { workers } = makeCluster([A], { worker: { memoryLimit: 1, spill: { store: new MemoryStore() } } });
    const { worker } = workers[0]!;
    worker.updateData({ "x-1": "hello" });
    expect(worker.data.get("x-1")).toBe("hello");
    const m = worker.scrape();
    expect(total(m, ["handle-stimulus", "update-data", "disk-write", "count"], "ok")).toBe(1);
    expect(total(m, ["unattributed", "disk-read", "count"], "ok")).toBe(1);
    expect(worker.evict()).toBe(-1);
    // every spill access is in the global counters, which match the SpillBuffer's own
    for (const [key, value] of worker.spillBuffer!.cumulativeMetrics) {
      const [activity, unit] = key.split("/") as [string, string];
      if (unit !== "seconds") expect(total(m, [activity, unit])).toBe(value);
    }
  });

  it("manual evict() is metered under memory-monitor", () => {
    const { workers } = makeCluster([A], { worker: { spill: { store: new MemoryStore() } } });
    const { worker } = workers[0]!;
    worker.updateData({ "x-1": "hello" });
    expect(worker.evict()).toBeGreaterThan(0);
    expect(worker.spillBuffer!.slow.has("x-1")).toBe(true);
    expect(total(worker.scrape(), ["memory-monitor", "disk-write", "count"], "ok")).toBe(1);
  });
});

describe("Prometheus", () => {
  it("exposes fine metrics, task states and spill gauges that parse back", async () => {
    const { clock, workers } = makeCluster([A], { worker: { memoryLimit: 1, spill: { store: new MemoryStore() } } });
    const { worker } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({ key: "inc-1", stimulusId: "c1", runSpec: { durations: { "thread-cpu": 1 }, outputBytes: 100 } }),
      ComputeTaskEvent({ key: "slow-1", stimulusId: "c2", runSpec: { durations: { "thread-cpu": 10 }, outputBytes: 100 } }),
    );
    await clock.run({ until: 3 });
    const parsed = parsePrometheus(worker.prometheus());
    const seconds = parsed.get("spanwork_fine_seconds_total")!;
    expect(seconds.type).toBe("counter");
    const sample = (labels: Record<string, string>) =>
      seconds.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    expect(sample({ context: "execute", prefix: "inc", activity: "thread-cpu", outcome: "ok" })).toBe(1);
    expect(sample({ context: "execute", prefix: "slow", activity: "thread-cpu", outcome: "running" })).toBe(2);
    for (const s of seconds.samples) {
      // the thread-time ledger's names have one more qualifier: ["worker", "execute", prefix, activity, "seconds"]
      if (s.labels["context"] === "worker" && s.labels["prefix"] === "execute") expect(Object.keys(s.labels)).toEqual(["context", "prefix", "path", "activity", "outcome"]);
      else expect(Object.keys(s.labels)).toEqual(["context", "prefix", "activity", "outcome"]);
    }
    expect(sample({ context: "worker", prefix: "execute", path: "slow", activity: "thread-cpu", outcome: "running" })).toBe(2);
    expect(sample({ context: "worker", prefix: "execute", path: "inc", activity: "thread-cpu", outcome: "ok" })).toBe(1);
    expect(parsed.get("spanwork_fine_bytes_total")!.samples.length).toBeGreaterThan(0);
    expect(parsed.get("spanwork_spill_count_total")!.samples).toContainEqual({
      name: "spanwork_spill_count_total",
      labels: { activity: "disk-write" },
      value: 1,
    });
    const tasks = Object.fromEntries(parsed.get("spanwork_worker_tasks")!.samples.map((s) => [s.labels.state, s.value]));
    expect(tasks).toEqual({ disk: 1, executing: 1 });
    const memory = Object.fromEntries(parsed.get("spanwork_worker_memory_bytes")!.samples.map((s) => [s.labels.type, s.value]));
    expect(memory.managed).toBe(0);
    expect(memory.spilled).toBeGreaterThan(0);
    expect(parsed.get("spanwork_worker_in_progress")!.samples.find((s) => s.labels.kind === "execute")!.value).toBe(1);
  });

  it("serveMetrics binds 127.0.0.1 and serves /metrics", async () => {
    const { workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    worker.updateData({ "x-1": 1 });
    const server = await worker.serveMetrics();
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const response = await httpGet(server.url);
      expect(response.status).toBe(200);
      expect(response.contentType).toContain("text/plain; version=0.0.4");
      const parsed = parsePrometheus(response.body);
      expect(parsed.get("spanwork_worker_tasks")!.samples).toEqual([
        { name: "spanwork_worker_tasks", labels: { state: "memory" }, value: 1 },
      ]);
      expect((await httpGet(server.url.replace("/metrics", "/other"))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe("typed results", () => {
  it("TaskFinishedMsg carries the thread slot and the type name", async () => {
    const { clock, workers } = makeCluster([A], { executor: new RealExecutor(), worker: { nthreads: 2 } });
    const { worker, outbox } = workers[0]!;
    worker.handleStimulus(
      ComputeTaskEvent({ key: "m-1", stimulusId: "c1", runSpec: () => new Map([[1, 2]]) }),
      ComputeTaskEvent({ key: "n-1", stimulusId: "c2", runSpec: async () => 3 }),
    );
    await clock.runUntilIdle();
    const finished = outbox.filter((m): m is TaskFinishedMsg => m.kind === "TaskFinishedMsg");
    expect(finished.map((m) => [m.key, m.thread]).sort()).toEqual([["m-1", 0], ["n-1", 1]]);
    expect(worker.threads.size).toBe(0);
  });
});

describe("scrapes never change the totals", () => {
  async function lifecycle(scrapeEvery: number | null) {
    const { clock, workers } = makeCluster([A, B], {
      latency: 0.5,
      bandwidth: 1e5,
      worker: { memoryLimit: 1, spill: { store: new MemoryStore(1e-5) } },
    });
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.handleStimulus(
      ComputeTaskEvent({ key: "x-1", stimulusId: "c1", runSpec: { durations: { "thread-cpu": 2, "thread-noncpu": 1 }, outputBytes: 50_000 } }),
      ComputeTaskEvent({ key: "z-1", stimulusId: "c2", runSpec: { durations: { "thread-cpu": 1 }, outputBytes: 25_000 } }),
    );
    const scraped: Array<ReturnType<typeof a.worker.scrape>> = [];
    let t = 0;
    const runToIdle = async () => {
      await clock.settle(); // async work starts on a later turn
      while (clock.pending > 0) {
        t += scrapeEvery ?? 1000;
        await clock.run({ until: t });
        if (scrapeEvery !== null) scraped.push(a.worker.scrape(), b.worker.scrape());
      }
    };
    await runToIdle();
    b.worker.handleStimulus(
      ComputeTaskEvent({
        key: "y-1",
        stimulusId: "c3",
        whoHas: { "x-1": [A], "z-1": [A] },
        nbytes: { "x-1": 50_000, "z-1": 25_000 },
        runSpec: { durations: { "thread-cpu": 1.5 }, outputBytes: 10 },
      }),
    );
    await runToIdle();
    expect(b.worker.state.tasks.get("y-1")?.state).toBe("memory");
    expect(scraped.length > 0).toBe(scrapeEvery !== null);
    const byName: Record<string, number> = {};
    for (const e of [...a.worker.scrape(), ...b.worker.scrape()]) {
      if (e.value < 0) throw new Error(`negative ${e.name.join("/")} ${e.outcome} ${e.value} (every ${scrapeEvery})`);
      // idle thread time depends on when one looks (each run ends at another time); it closes
      if (e.name[0] === "worker" && e.name[1] === "idle") continue;
      byName[e.name.join("/")] = (byName[e.name.join("/")] ?? 0) + e.value;
    }
    for (const { worker } of workers) expect(Math.abs(worker.threadTime().gap)).toBeLessThan(1e-9 * worker.threadTime().capacity);
    return byName;
  }

  it("totals by name equal those of a run without scrapes, whatever the scrape times", async () => {
    const reference = await lifecycle(null);
    expect(reference["gather-dep/x/network/bytes"]).toBe(50_000);
    expect(reference["gather-dep/z/network/bytes"]).toBe(25_000);
    for (const every of [0.07, 0.3, 1.1]) {
      const scraped = await lifecycle(every);
      expect(Object.keys(scraped).sort()).toEqual(Object.keys(reference).sort());
      for (const [name, value] of Object.entries(reference)) {
        if (name.endsWith("/seconds")) expect(scraped[name]).toBeCloseTo(value, 9);
        else expect(scraped[name]).toBe(value);
      }
    }
  });
});
