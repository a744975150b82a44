// Keys are data (issue 12, items 7 and 9's audit): `__proto__`, `constructor` and other
// Object.prototype names are ordinary keys in every record src/worker builds from keys —
// get-data replies, their nbytes, the prefix split, gauges, Prometheus labels and help,
// the RealExecutor's argument substitution — and end to end through InProcessTransport.
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent, keySplit, type TaskFinishedMsg } from "../../src/state/index.js";
import {
  InProcessTransport,
  RealExecutor,
  formatFamilies,
  formatFineMetrics,
  taskRef,
  workerGaugeFamilies,
  type GetDataReply,
} from "../../src/worker/index.js";
import { makeCluster, total } from "./helpers.js";
import { parsePrometheus } from "./parse-prometheus.js";

const A = "127.0.0.1:1";
const B = "127.0.0.1:2";
const PROTO_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty"] as const;

/** A record with own properties named like Object.prototype's (a literal `__proto__:` would set the prototype). */
function ownRecord<T>(entries: ReadonlyArray<readonly [string, T]>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) out[key] = value;
  return out;
}

/** Task "use-1", depending on "__proto__" and "constructor" held by worker A (with these sizes). */
function useBothFromA(sizes: readonly [number, number], runSpec: unknown) {
  return ComputeTaskEvent({
    key: "use-1",
    stimulusId: "c1",
    whoHas: ownRecord([["__proto__", [A]] as const, ["constructor", [A]] as const]),
    nbytes: ownRecord([["__proto__", sizes[0]] as const, ["constructor", sizes[1]] as const]),
    runSpec,
  });
}

describe("prototype-named keys are ordinary keys", () => {
  it("getData replies hold them as own keys, with their nbytes", async () => {
    const { workers } = makeCluster([A]);
    const { worker } = workers[0]!;
    worker.updateData(ownRecord(PROTO_KEYS.map((key) => [key, { value: key }] as const)));
    let sent: GetDataReply | undefined;
    const response = await worker.getData([...PROTO_KEYS], {
      who: B,
      send: async (reply) => {
        sent = reply;
      },
    });
    if (response.status !== "OK") throw new Error(`expected OK, got ${response.status}`);
    for (const data of [response.data, sent!.data]) {
      expect(Object.keys(data).sort()).toEqual([...PROTO_KEYS].sort());
      for (const key of PROTO_KEYS) {
        expect(Object.hasOwn(data, key)).toBe(true);
        expect(data[key]).toEqual({ value: key });
      }
    }
    for (const nbytes of [response.nbytes!, sent!.nbytes]) {
      expect(Object.keys(nbytes).sort()).toEqual([...PROTO_KEYS].sort());
      for (const key of PROTO_KEYS) expect(typeof nbytes[key]).toBe("number");
    }
    expect(sent!.totalBytes).toBe(PROTO_KEYS.reduce((sum, key) => sum + response.nbytes![key]!, 0));
  });

  it("a key __proto__ served by a peer reaches the fetching worker and its dependent runs", async () => {
    for (const clone of [false, true]) {
      const transport = new InProcessTransport({ clone });
      const { clock, workers, errors } = makeCluster([A, B], { transport, executor: new RealExecutor() });
      for (const { worker } of workers) transport.register(worker);
      const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
      a.worker.updateData(ownRecord<unknown>([["__proto__", { n: 40 }], ["constructor", 2]]));
      b.worker.handleStimulus(
        useBothFromA([16, 8], { fn: (x: { n: number }, y: number) => x.n + y, args: [taskRef("__proto__"), taskRef("constructor")] }),
      );
      await clock.runUntilIdle();
      expect(errors).toEqual([]);
      const finished = b.outbox.find((m): m is TaskFinishedMsg => m.kind === "TaskFinishedMsg");
      expect(finished?.key, `clone ${clone}`).toBe("use-1");
      expect(b.worker.data.get("use-1")).toBe(42);
      expect(b.worker.state.tasks.get("__proto__")?.state).toBe("memory");
      expect(b.worker.data.get("__proto__")).toEqual({ n: 40 });
      // the transfer is "ok", not "missing", on both sides
      const got = b.worker.scrape();
      expect(got.filter((e) => e.name[0] === "gather-dep").every((e) => e.outcome === "ok")).toBe(true);
      expect(a.worker.scrape().filter((e) => e.name[0] === "get-data").every((e) => e.outcome === "ok")).toBe(true);
    }
  });

  it("the prefix split files transfers of such keys under their own prefixes", async () => {
    const { clock, workers, errors } = makeCluster([A, B]);
    const [a, b] = workers as [(typeof workers)[0], (typeof workers)[0]];
    a.worker.updateData(ownRecord([["__proto__", "x".repeat(100)] as const, ["constructor", "y".repeat(300)] as const]));
    b.worker.handleStimulus(useBothFromA([100, 300], { durations: {}, outputBytes: 1 }));
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    const gathered = b.worker.scrape();
    const served = a.worker.scrape();
    const proto = keySplit("__proto__");
    // gathering side: split by the expected sizes (100 : 300); serving side: by the stored sizes
    const sent = total(served, ["get-data", proto, "network", "bytes"]) + total(served, ["get-data", "constructor", "network", "bytes"]);
    expect(sent).toBeGreaterThan(400);
    expect(total(gathered, ["gather-dep", proto, "network", "bytes"])).toBe(sent / 4);
    expect(total(gathered, ["gather-dep", "constructor", "network", "bytes"])).toBe((sent * 3) / 4);
    expect(total(served, ["get-data", proto, "memory-read", "bytes"])).toBe(a.worker.state.tasks.get("__proto__")!.nbytes);
  });

  it("gauge records have no inherited keys: a state or kind named like Object.prototype's reads as absent", () => {
    const { workers } = makeCluster([A]);
    const gauges = workers[0]!.worker.gauges();
    expect(Object.keys(gauges.inProgress!)).toEqual(["execute", "gather-dep", "get-data", "retry-busy-worker"]);
    for (const name of PROTO_KEYS) {
      expect(gauges.tasks[name]).toBeUndefined();
      expect(gauges.inProgress![name]).toBeUndefined();
    }
  });

  it("Prometheus: label values, gauge label maps and units named like Object.prototype's keys", () => {
    const text = formatFineMetrics([
      { name: ["execute", "__proto__", "constructor", "seconds"], outcome: "ok", value: 1 },
      { name: ["execute", "x", "io", "constructor"], outcome: "ok", value: 2 },
      { name: ["toString", "bytes"], outcome: "ok", value: 3 },
    ]);
    const families = parsePrometheus(text);
    const seconds = families.get("spanwork_fine_seconds_total")!;
    expect(seconds.samples[0]!.labels).toMatchObject({ context: "execute", prefix: "__proto__", activity: "constructor" });
    // the help of an unknown unit names the unit itself, not an inherited Object.prototype member
    expect(families.get("spanwork_fine_constructor_total")!.help).toContain("in constructor:");
    expect(families.get("spanwork_spill_bytes_total")!.samples[0]!.labels).toEqual({ activity: "toString" });

    const gauges = parsePrometheus(formatFamilies(workerGaugeFamilies({ tasks: ownRecord([["__proto__", 2] as const, ["constructor", 3] as const]) })));
    expect(gauges.get("spanwork_worker_tasks")!.samples.map((s) => [s.labels["state"], s.value])).toEqual([
      ["__proto__", 2],
      ["constructor", 3],
    ]);
  });

  it("RealExecutor: an argument object with an own __proto__ key keeps it, with the dependency substituted", async () => {
    const { clock, workers, errors } = makeCluster([A], { executor: new RealExecutor() });
    const { worker } = workers[0]!;
    worker.updateData({ "x-1": 5 });
    let seen: Record<string, unknown> | undefined;
    worker.handleStimulus(
      ComputeTaskEvent({
        key: "use-1",
        stimulusId: "c1",
        whoHas: { "x-1": [A] },
        nbytes: { "x-1": 8 },
        runSpec: {
          // computed keys define own properties, even __proto__
          fn: (options: Record<string, unknown>) => {
            seen = options;
            return 1;
          },
          args: [{ ["__proto__"]: taskRef("x-1"), ["constructor"]: "plain" }],
        },
      }),
    );
    await clock.runUntilIdle();
    expect(errors).toEqual([]);
    expect(Object.hasOwn(seen!, "__proto__")).toBe(true);
    expect(seen!["__proto__"]).toBe(5);
    expect(seen!["constructor"]).toBe("plain");
    // still a plain object for the task code
    expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
  });
});
