// The Chrome trace of a simulated run: every worker's span records as one process per worker
// (named by its address, in the report's order), one track per thread slot and lanes for
// transfers, plus what the spans alone do not show: each worker's memory and spill as counter
// tracks, an arrow from every get-data that served a transfer to the gather-dep that asked for
// it, and the data's way from the task that produced a key to each task that consumed it —
// through the gather-dep that fetched it (execute roots carry their `dependencies`, gather-dep
// roots the keys they fetched, `toGather`) or straight on the same worker.
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
    { pid: (_root, index) => pids.get(result.spanRecords[index]!.worker)!, counters, flows: [...transferFlows(result.spanRecords), ...dataFlows(result.spanRecords)] },
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
    flows.push({ records: [serving, gather], name: "transfer" });
  }
  return flows;
}

/** The records of one worker that made a key available there: its own execution, or a gather-dep that fetched it; by end time. */
type Sources = Map<string, SpanRecord[]>;

function addSource(sources: Map<string, Sources>, worker: string, key: string, record: SpanRecord): void {
  let byKey = sources.get(worker);
  if (!byKey) sources.set(worker, (byKey = new Map()));
  let list = byKey.get(key);
  if (!list) byKey.set(key, (list = []));
  list.push(record);
}

/** The latest of `list` (sorted by end) that ended by `time`. */
function latestBy(list: readonly SpanRecord[] | undefined, time: number): SpanRecord | undefined {
  if (list === undefined) return undefined;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (list[mid]!.endTime <= time) low = mid + 1;
    else high = mid;
  }
  return low > 0 ? list[low - 1] : undefined;
}

function stringList(value: unknown): readonly string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The data's way, one arrow per key (named after it): from the execution that produced it to
 * each gather-dep that fetched it from that worker, and from whatever made it available on a
 * worker — a gather-dep that fetched it, or its execution there — to each execution there that
 * read it. The source taken is the latest that succeeded (outcome ok) and ended by the time the
 * fetch or the consumer started; a key available otherwise (scattered, or fetched before the
 * trace began) has no arrow.
 */
export function dataFlows(records: SimResult["spanRecords"]): ChromeFlow[] {
  const produced = new Map<string, Sources>();
  const available = new Map<string, Sources>();
  const consumers: Array<{ worker: string; record: SpanRecord }> = [];
  const fetches: Array<{ worker: string; record: SpanRecord }> = [];
  for (const entry of records) {
    const { worker, record } = entry;
    const ok = record.attributes["outcome"] === "ok";
    if (record.name[0] === "execute") {
      const key = record.attributes["key"];
      if (ok && typeof key === "string") {
        addSource(produced, worker, key, record);
        addSource(available, worker, key, record);
      }
      if (stringList(record.attributes["dependencies"]).length > 0) consumers.push(entry);
    } else if (record.name[0] === "gather-dep" && ok) {
      for (const key of stringList(record.attributes["toGather"])) addSource(available, worker, key, record);
      if (typeof record.attributes["worker"] === "string") fetches.push(entry);
    }
  }
  for (const sources of [produced, available]) for (const byKey of sources.values()) for (const list of byKey.values()) list.sort((a, b) => a.endTime - b.endTime);
  const flows: ChromeFlow[] = [];
  for (const { record: gather } of fetches) {
    const peer = produced.get(String(gather.attributes["worker"]));
    for (const key of stringList(gather.attributes["toGather"])) {
      const producer = latestBy(peer?.get(key), gather.startTime);
      if (producer !== undefined) flows.push({ records: [producer, gather], name: key });
    }
  }
  for (const { worker, record: consumer } of consumers) {
    const here = available.get(worker);
    for (const key of stringList(consumer.attributes["dependencies"])) {
      const source = latestBy(here?.get(key), consumer.startTime);
      if (source !== undefined) flows.push({ records: [source, consumer], name: key });
    }
  }
  return flows;
}
