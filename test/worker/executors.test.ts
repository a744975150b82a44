// The executors and the in-process transport on their own, against a bare root span.
import { describe, expect, it } from "vitest";
import { Span, currentSpan, meter, type SpanRecord } from "../../src/spans/index.js";
import {
  InProcessTransport,
  LatencyBandwidthNetwork,
  NetworkError,
  RealClock,
  RealExecutor,
  Reschedule,
  SimulatedExecutor,
  TaskModelFailure,
  VirtualClock,
  isSimulatedData,
  taskRef,
  validateTaskModel,
  workerSizeof,
  type DataServer,
  type ExecuteRequest,
  type GetDataServeOptions,
} from "../../src/index.js";
import { apportion, prefixWeights } from "../../src/worker/prefix-split.js";

function request(runSpec: unknown, dependencies: Record<string, unknown> = {}): ExecuteRequest {
  return { key: "t-1", prefix: "t", runId: 1, runSpec, dependencies: new Map(Object.entries(dependencies)) };
}

function names(record: SpanRecord): string[] {
  return record.children.map((c) => (c.name.length === 0 ? "(thread)" : c.name.join("/")));
}

describe("RealExecutor", () => {
  const clock = new RealClock();

  it("runs a call with taskRef arguments, nested in arrays and objects", async () => {
    const root = new Span(["execute", "t"], { clock }).start();
    const result = await root.asCurrent(() =>
      new RealExecutor().execute(
        request({ fn: (a: number, rest: { b: number[] }) => a + rest.b[0]! + rest.b[1]!, args: [taskRef("a-1"), { b: [taskRef("b-1"), 100] }] }, { "a-1": 1, "b-1": 10 }),
        { span: root, clock, signal: new AbortController().signal },
      ),
    );
    expect(result).toEqual({ value: 111, type: "number" });
  });

  it("a sync task gets a CPU-measured thread node; its own metered spans sit directly under the task", async () => {
    const root = new Span(["execute", "t"], { clock }).start();
    await root.asCurrent(() =>
      new RealExecutor().execute(
        request(() => {
          let x = 0;
          for (let i = 0; i < 200_000; i++) x += Math.sqrt(i);
          meter("io", () => currentSpan()!.addMetric("bytes", 3));
          return x;
        }),
        { span: root, clock, signal: new AbortController().signal },
      ),
    );
    root.end();
    const flat = root.flat().map((f) => `${f.path.join("/")}:${f.unit}`);
    expect(flat).toContain("execute/t/thread-cpu:seconds");
    expect(flat).toContain("execute/t/thread-noncpu:seconds");
    expect(flat).toContain("execute/t/io:bytes");
    expect(root.toRecord().children[0]!.cpuSeconds).toBeGreaterThan(0);
  });

  it("an async task has no CPU measured", async () => {
    const root = new Span(["execute", "t"], { clock }).start();
    await root.asCurrent(() =>
      new RealExecutor().execute(request(async () => 1), { span: root, clock, signal: new AbortController().signal }),
    );
    root.end();
    expect(root.toRecord().children[0]!.cpuSeconds).toBe(0);
  });

  it("rejects a runSpec it cannot run, and a taskRef to a non-dependency", async () => {
    const root = new Span(["execute", "t"], { clock }).start();
    const ctx = { span: root, clock, signal: new AbortController().signal };
    await expect(new RealExecutor().execute(request({ durations: {} }), ctx)).rejects.toThrow(
      /task "t-1": runSpec must be a function or \{ fn, args \} for the RealExecutor, got an object with keys \["durations"\]/,
    );
    await expect(new RealExecutor().execute(request({ fn: (x: unknown) => x, args: [taskRef("zz")] }), ctx)).rejects.toThrow(
      /taskRef\("zz"\) is not one of its dependencies/,
    );
  });
});

describe("SimulatedExecutor", () => {
  it("records each modelled activity as a child lasting its seconds", async () => {
    const clock = new VirtualClock();
    const root = new Span(["execute", "t"], { clock }).start();
    const running = new SimulatedExecutor().execute(
      request({ durations: { "thread-cpu": 2, "disk-read": 0, "thread-noncpu": 0.5 }, outputBytes: 123 }),
      { span: root, clock, signal: new AbortController().signal },
    );
    await clock.runUntilIdle();
    const result = await running;
    root.end();
    expect(isSimulatedData(result.value)).toBe(true);
    expect(result.nbytes).toBe(123);
    expect(workerSizeof(result.value)).toBe(123);
    const record = root.toRecord();
    expect(names(record)).toEqual(["thread-cpu", "disk-read", "thread-noncpu"]);
    expect(record.children.map((c) => c.endTime - c.startTime)).toEqual([2, 0, 0.5]);
    expect(clock.now()).toBe(2.5);
  });

  it("fails, reschedules and aborts as modelled", async () => {
    const clock = new VirtualClock();
    const root = new Span(["execute", "t"], { clock }).start();
    const signal = new AbortController().signal;
    const failing = new SimulatedExecutor().execute(request({ durations: {}, outputBytes: 1, fail: true }), { span: root, clock, signal });
    await expect(failing).rejects.toBeInstanceOf(TaskModelFailure);
    await expect(new SimulatedExecutor().execute(request({ durations: {}, outputBytes: 1, reschedule: true }), { span: root, clock, signal })).rejects.toBeInstanceOf(Reschedule);
    const controller = new AbortController();
    const aborted = new SimulatedExecutor().execute(request({ durations: { "thread-cpu": 5 }, outputBytes: 1 }), { span: root, clock, signal: controller.signal });
    controller.abort(new Error("closing"));
    await expect(aborted).rejects.toThrow("closing");
  });

  it("validates task models with errors naming the field", () => {
    expect(() => validateTaskModel(null, "k")).toThrow(/task model of "k": runSpec must be a TaskModel object/);
    expect(() => validateTaskModel({ durations: [], outputBytes: 1 }, "k")).toThrow(/durations must be an object/);
    expect(() => validateTaskModel({ durations: {}, outputBytes: 1.5 }, "k")).toThrow(/outputBytes must be an integer ≥ 0/);
    expect(() => validateTaskModel({ durations: {}, outputBytes: 1, fail: 3 }, "k")).toThrow(/fail must be a boolean or a message/);
    expect(() => validateTaskModel({ durations: {}, outputBytes: 1, reschedule: "yes" }, "k")).toThrow(/reschedule must be a boolean/);
  });
});

describe("InProcessTransport", () => {
  function server(address: string, data: Record<string, unknown>): DataServer & { requests: number } {
    return {
      address,
      requests: 0,
      async getData(keys, options: GetDataServeOptions) {
        this.requests++;
        const root = new Span(["get-data"]).start();
        const found: Record<string, unknown> = {};
        const nbytes: Record<string, number> = {};
        for (const key of keys) if (key in data) {
          found[key] = data[key];
          nbytes[key] = 10;
        }
        await options.send?.({ data: found, nbytes, totalBytes: 10 * Object.keys(found).length, span: root, signal: new AbortController().signal });
        root.end();
        return { status: "OK", data: found, nbytes };
      },
    };
  }

  it("clones through v8 serialize/deserialize when asked, metering both sides", async () => {
    const value = { nested: [1, 2, 3] };
    const transport = new InProcessTransport({ clone: true });
    transport.register(server("a", { "x-1": value }));
    const root = new Span(["gather-dep"]).start();
    const response = await transport.getData("a", ["x-1", "y-1"], { who: "b", signal: new AbortController().signal, span: root });
    root.end();
    expect(response.status).toBe("OK");
    const data = (response as { data: Record<string, unknown> }).data;
    expect(data).toEqual({ "x-1": value });
    expect(data["x-1"]).not.toBe(value);
    expect(names(root.toRecord())).toEqual(["network", "deserialize"]);
    expect(root.toRecord().children[0]!.metrics).toEqual({ bytes: 10 });
  });

  it("an unknown address is a NetworkError naming it", async () => {
    const transport = new InProcessTransport();
    const root = new Span(["gather-dep"]).start();
    await expect(transport.getData("nowhere:1", ["x"], { who: "b", signal: new AbortController().signal, span: root })).rejects.toThrow(
      new NetworkError("no worker at nowhere:1", { peer: "nowhere:1" }),
    );
  });

  it("LatencyBandwidthNetwork takes latency + bytes / bandwidth on the clock", async () => {
    const clock = new VirtualClock();
    const network = new LatencyBandwidthNetwork({ clock, latency: 0.5, bandwidth: 100 });
    const done = network.transfer({ from: "a", to: "b", bytes: 50, keys: 1, signal: new AbortController().signal });
    await clock.runUntilIdle();
    await done;
    expect(clock.now()).toBe(1);
    expect(() => new LatencyBandwidthNetwork({ clock, bandwidth: 0 })).toThrow(/bandwidth must be bytes per second > 0/);
  });
});

describe("prefix split", () => {
  it("apportions integers exactly by largest remainder and floats proportionally", () => {
    const split = prefixWeights("gather-dep", [["a", 1], ["b", 1], ["a", 1], ["c", 0]]);
    expect(split.prefixes).toEqual(["a", "b", "c"]);
    expect(split.weights).toEqual([2, 1, 1]);
    expect(apportion(split, 10, true)).toEqual([5, 3, 2]);
    expect(apportion(split, 1, true)).toEqual([1, 0, 0]);
    const seconds = apportion(split, 1, false);
    expect(seconds[0]).toBeCloseTo(0.5, 12);
    expect(seconds.reduce((x, y) => x + y)).toBeCloseTo(1, 12);
  });
});
