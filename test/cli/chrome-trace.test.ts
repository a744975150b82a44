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
      const events = (JSON.parse(text) as { traceEvents: Array<{ ph: string; name: string; pid: number; tid: number; ts?: number; dur?: number; args?: Record<string, unknown>; bind_id?: number }> }).traceEvents;
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

      // Every get-data that served data is linked to the gather-dep that asked for it, across workers.
      const served = result.spanRecords.filter(({ record }) => record.name[0] === "get-data");
      expect(served.length).toBeGreaterThan(0);
      expect(summary.flows.size).toBe(served.length);
      for (const flow of summary.flows.values()) {
        const from = events.find((e) => e.bind_id !== undefined && e.pid === flow.from.pid && e.ts === flow.from.ts && e.name === "get-data")!;
        const to = events.find((e) => e.bind_id === from.bind_id && e.name === "gather-dep")!;
        expect(to, "the flow ends on a gather-dep").toBeDefined();
        expect(from.args!["who"]).toBe([...pidOf].find(([, pid]) => pid === to.pid)![0]);
        expect(to.args!["worker"]).toBe([...pidOf].find(([, pid]) => pid === from.pid)![0]);
        expect(to.ts!).toBeLessThanOrEqual(from.ts!);
      }

      // Memory and spill as one counter track per worker, a sample for each finite report sample.
      for (const worker of result.report.perWorker) {
        const samples = result.report.memory.filter((s) => s.worker === worker.address && Number.isFinite(s.memoryBytes) && Number.isFinite(s.spilledBytes));
        expect(summary.counters.get(`${pidOf.get(worker.address)}/${MEMORY_COUNTER}`) ?? 0).toBe(samples.length);
      }
    });
  }
});
