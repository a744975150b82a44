import { describe, expect, it } from "vitest";
import { MEMORY_COUNTER, simulationTrace } from "../../src/cli/chrome-trace.js";
import { realSimulator } from "../../src/cli/simulator-adapter.js";
import type { SimResult } from "../../src/sim/report.js";
import { checkTrace } from "../spans/trace-format.js";

const simulator = realSimulator();

async function run(name: "shuffle" | "faulty-shuffle"): Promise<SimResult> {
  const workload = name === "shuffle" ? simulator.builtInWorkload("shuffle")! : simulator.loadWorkloadFile(new URL("../../workloads/faulty-shuffle.json", import.meta.url).pathname, "faulty-shuffle.json");
  return simulator.simulate(workload, name === "shuffle" ? { size: 300, seed: 3, collectSpans: true } : { collectSpans: true });
}

describe("the Chrome trace of a simulated run, parsed back", () => {
  for (const name of ["shuffle", "faulty-shuffle"] as const) {
    it(`is valid and complete for ${name}`, async () => {
      const result = await run(name);
      const text = JSON.stringify(simulationTrace(result));
      const summary = checkTrace(text);
      expect(summary.problems).toEqual([]);
      const events = (JSON.parse(text) as { traceEvents: Array<{ ph: string; name: string; pid: number; tid: number; ts?: number; dur?: number; args?: Record<string, unknown>; id?: number }> }).traceEvents;
      const pidOf = new Map(events.filter((e) => e.name === "process_name").map((e) => [String(e.args!["name"]), e.pid]));
      expect([...pidOf.keys()]).toEqual(result.report.perWorker.map((worker) => worker.address));

      // One track per thread slot: every task run sits on the track of its slot, named after it
      // (its execute slice starts earlier when it first reads its inputs).
      for (const record of result.report.taskRecords.slice(0, 200)) {
        const pid = pidOf.get(record.worker)!;
        const within = (e: { ts?: number; dur?: number }): boolean => e.ts! <= record.start * 1e6 + 0.01 && e.ts! + e.dur! >= record.end * 1e6 - 0.01;
        const slice = events.find((e) => e.ph === "X" && e.pid === pid && e.args?.["key"] === record.key && within(e));
        expect(slice, `${record.key} on ${record.worker}`).toBeDefined();
        expect(slice!.tid).toBe(record.thread);
        expect(summary.threads.get(pid)).toContain(`thread ${record.thread}`);
      }

      // Every flow references existing slices, and its ends make sense for its kind.
      const flowName = new Map(events.filter((e) => e.ph === "s").map((e) => [e.id!, e.name]));
      const slice = (end: { index: number }) => events[end.index]!;
      for (const [id, flow] of summary.flows) {
        expect(slice(flow.from).ph, `flow ${id} starts on a slice`).toBe("X");
        expect(slice(flow.to).ph, `flow ${id} ends on a slice`).toBe("X");
      }
      const flows = [...summary.flows].map(([id, flow]) => ({ name: flowName.get(id)!, from: slice(flow.from), to: slice(flow.to) }));

      // Every get-data that served data is linked to the gather-dep that asked for it, across workers.
      const served = result.spanRecords.filter(({ record }) => record.name[0] === "get-data");
      expect(served.length).toBeGreaterThan(0);
      const transfers = flows.filter((flow) => flow.name === "transfer");
      expect(transfers.length).toBe(served.length);
      for (const { from, to } of transfers) {
        expect([from.name, to.name]).toEqual(["get-data", "gather-dep"]);
        expect(from.args!["who"]).toBe([...pidOf].find(([, pid]) => pid === to.pid)![0]);
        expect(to.args!["worker"]).toBe([...pidOf].find(([, pid]) => pid === from.pid)![0]);
        expect(to.ts!).toBeLessThanOrEqual(from.ts!);
      }

      // The data's way: each key from the task that produced it, through the gather-dep that
      // fetched it, to every task that read it; nothing flows back in time.
      const keysOf = (e: (typeof events)[number], attribute: string) => (e.args?.[attribute] as string[] | undefined) ?? [];
      const data = flows.filter((flow) => flow.name !== "transfer");
      expect(data.length).toBeGreaterThan(transfers.length);
      for (const { name: key, from, to } of data) {
        const produced = from.name.startsWith("execute/") && from.args!["key"] === key;
        const fetched = from.name === "gather-dep" && keysOf(from, "toGather").includes(key);
        expect(produced || fetched, `${key} comes from ${from.name}`).toBe(true);
        if (to.name === "gather-dep") expect(produced && keysOf(to, "toGather").includes(key)).toBe(true);
        else expect(keysOf(to, "dependencies"), `${key} is read by ${to.name}`).toContain(key);
        expect(from.ts! + from.dur!).toBeLessThanOrEqual(to.ts! + 0.01);
      }
      // every dependency read by a task that succeeded arrived by some arrow
      const inbound = new Set(data.filter(({ to }) => to.name !== "gather-dep").map(({ name, to }) => `${to.pid}:${to.ts}:${String(to.args!["key"])}:${name}`));
      for (const e of events) {
        if (e.ph !== "X" || !e.name.startsWith("execute/") || e.args?.["outcome"] !== "ok") continue;
        for (const key of keysOf(e, "dependencies")) expect(inbound.has(`${e.pid}:${e.ts}:${String(e.args["key"])}:${key}`), `${key} into ${String(e.args["key"])}`).toBe(true);
      }

      // Memory and spill as one counter track per worker, a sample for each finite report sample.
      for (const worker of result.report.perWorker) {
        const samples = result.report.memory.filter((s) => s.worker === worker.address && Number.isFinite(s.memoryBytes) && Number.isFinite(s.spilledBytes));
        expect(summary.counters.get(`${pidOf.get(worker.address)}/${MEMORY_COUNTER}`) ?? 0).toBe(samples.length);
      }
    });
  }
});
