// The Chrome trace of a simulated run: every worker's span records as one process per worker
// (named by its address, in the report's order), one track per thread slot and lanes for
// transfers, plus what the spans alone do not show: each worker's memory and spill as counter
// tracks, and an arrow from every get-data that served a transfer to the gather-dep that asked
// for it. (Linking the task that produced a key to the one that consumed it would need the keys
// of each gather-dep and the dependencies of each task in the span records, which the worker
// does not record yet.)
import type { SimResult } from "../sim/report.js";
import { toChromeTrace, type ChromeCounter, type ChromeFlow, type ChromeTrace, type ChromeTraceEvent, type SpanRecord } from "../spans/index.js";

/** The name of the memory counter track of each worker. */
export const MEMORY_COUNTER = "worker memory (bytes)";

export function simulationTrace(result: SimResult): ChromeTrace {
  const workers = [...result.report.perWorker.map((worker) => worker.address), ...result.spanRecords.map((entry) => entry.worker)];
  const pids = new Map<string, number>();
  for (const worker of workers) if (!pids.has(worker)) pids.set(worker, pids.size + 1);
  const counters: ChromeCounter[] = [];
  for (const sample of result.report.memory) {
    const pid = pids.get(sample.worker);
    if (pid !== undefined) counters.push({ pid, name: MEMORY_COUNTER, time: sample.time, values: { "in memory": sample.memoryBytes, spilled: sample.spilledBytes } });
  }
  const trace = toChromeTrace(
    result.spanRecords.map((entry) => entry.record),
    { pid: (_root, index) => pids.get(result.spanRecords[index]!.worker)!, counters, flows: transferFlows(result.spanRecords) },
  );
  const processNames: ChromeTraceEvent[] = [...pids].map(([worker, pid]) => ({ name: "process_name", ph: "M", pid, tid: 0, args: { name: worker } }));
  return { ...trace, traceEvents: [...processNames, ...trace.traceEvents] };
}

/**
 * Pairs each gather-dep root (on the fetching worker, attribute `worker` = the peer) with the
 * get-data root that served it (on that peer, attribute `who` = the fetching worker) and started
 * within it. dask fetches from one peer at a time per worker, so the pair is unambiguous; with
 * several in flight the earliest unpaired one is taken.
 */
export function transferFlows(records: SimResult["spanRecords"]): ChromeFlow[] {
  const served = new Map<string, SpanRecord[]>();
  for (const { worker, record } of records) {
    const who = record.attributes["who"];
    if (record.name[0] !== "get-data" || typeof who !== "string") continue;
    const pair = `${worker}\u0000${who}`;
    let list = served.get(pair);
    if (!list) served.set(pair, (list = []));
    list.push(record);
  }
  for (const list of served.values()) list.sort((a, b) => a.startTime - b.startTime);
  const next = new Map<string, number>();
  const gathers = records
    .filter(({ record }) => record.name[0] === "gather-dep" && typeof record.attributes["worker"] === "string")
    .sort((a, b) => a.record.startTime - b.record.startTime);
  const flows: ChromeFlow[] = [];
  for (const { worker, record: gather } of gathers) {
    const pair = `${String(gather.attributes["worker"])}\u0000${worker}`;
    const list = served.get(pair);
    if (!list) continue;
    let index = next.get(pair) ?? 0;
    while (index < list.length && list[index]!.startTime < gather.startTime) index += 1;
    const serving = list[index];
    if (serving === undefined || serving.startTime > gather.endTime) continue;
    next.set(pair, index + 1);
    flows.push({ records: [serving, gather] });
  }
  return flows;
}
