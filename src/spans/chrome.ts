// Chrome trace-event JSON (the format chrome://tracing and Perfetto open): one complete
// ("X") event per node, microsecond times, plus metadata events naming processes and
// threads. Roots map to processes by their `worker` attribute and to threads by their
// `thread` attribute; roots without a thread slot get lanes so that roots overlapping in
// time never share a thread (X events on one thread must nest).
import { displayName, measurementAttributes, NAME_SEPARATOR } from "./display.js";
import type { AttributeValue, SpanRecord } from "./types.js";

export interface ChromeTraceEvent {
  readonly name: string;
  readonly cat?: string;
  readonly ph: "X" | "M";
  readonly ts?: number;
  readonly dur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: Readonly<Record<string, AttributeValue | number>>;
}

export interface ChromeTrace {
  readonly traceEvents: ChromeTraceEvent[];
  readonly displayTimeUnit: "ms";
}

export interface ChromeTraceOptions {
  /** Seconds added to every time before converting to microseconds (default 0). */
  readonly epochOffset?: number;
  /** Joins a node's name segments (default "/"). */
  readonly separator?: string;
  /** Process of a root (default: by its `worker` attribute, numbered from 1 in order seen). */
  readonly pid?: (root: SpanRecord, index: number) => number;
  /** Thread of a root (default: its numeric `thread` attribute, else a free lane). */
  readonly tid?: (root: SpanRecord, index: number) => number;
}

const DEFAULT_PROCESS = "spanwork";
/** Lanes for roots without a thread slot start here, clear of real thread numbers. */
const FIRST_LANE = 1000;

function microseconds(seconds: number): number {
  return Math.round(seconds * 1e9) / 1e3;
}

function argsOf(record: SpanRecord): Record<string, AttributeValue | number> {
  return { ...record.attributes, ...measurementAttributes(record) };
}

/** Chrome trace-event JSON of the given finished records (roots). */
export function toChromeTrace(records: SpanRecord | readonly SpanRecord[], options: ChromeTraceOptions = {}): ChromeTrace {
  const roots: readonly SpanRecord[] = Array.isArray(records) ? records : [records as SpanRecord];
  const offset = options.epochOffset ?? 0;
  const separator = options.separator ?? NAME_SEPARATOR;
  const events: ChromeTraceEvent[] = [];
  const processIds = new Map<string, number>();
  const namedThreads = new Set<string>();
  // per pid: end time of each lane
  const lanes = new Map<number, number[]>();

  const order = roots.map((root, index) => ({ root, index }));
  order.sort((a, b) => a.root.startTime - b.root.startTime || a.index - b.index);

  for (const { root, index } of order) {
    let pid: number;
    if (options.pid !== undefined) {
      pid = options.pid(root, index);
    } else {
      const worker = root.attributes["worker"];
      const processName = worker === undefined ? DEFAULT_PROCESS : String(worker);
      let known = processIds.get(processName);
      if (known === undefined) {
        known = processIds.size + 1;
        processIds.set(processName, known);
        events.push({ name: "process_name", ph: "M", pid: known, tid: 0, args: { name: processName } });
      }
      pid = known;
    }
    let tid: number;
    const thread = root.attributes["thread"];
    if (options.tid !== undefined) {
      tid = options.tid(root, index);
    } else if (typeof thread === "number") {
      tid = thread;
    } else {
      const ends = lanes.get(pid) ?? [];
      lanes.set(pid, ends);
      let lane = ends.findIndex((end) => end <= root.startTime);
      if (lane === -1) {
        lane = ends.length;
        ends.push(root.endTime);
      } else {
        ends[lane] = root.endTime;
      }
      tid = FIRST_LANE + lane;
    }
    const threadKey = `${pid}:${tid}`;
    if (!namedThreads.has(threadKey)) {
      namedThreads.add(threadKey);
      const threadName = typeof thread === "number" ? `thread ${thread}` : `lane ${tid - FIRST_LANE}`;
      events.push({ name: "thread_name", ph: "M", pid, tid, args: { name: options.tid !== undefined ? `thread ${tid}` : threadName } });
    }
    const emit = (node: SpanRecord, category: string): void => {
      events.push({
        name: displayName(node, separator),
        cat: category,
        ph: "X",
        ts: microseconds(node.startTime + offset),
        dur: microseconds(node.endTime - node.startTime),
        pid,
        tid,
        args: argsOf(node),
      });
      for (const child of node.children) emit(child, category);
    };
    emit(root, root.name[0] ?? "span");
  }
  return { traceEvents: events, displayTimeUnit: "ms" };
}
