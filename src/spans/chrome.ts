// Chrome trace-event JSON (the format Perfetto and chrome://tracing open): one complete ("X")
// event per node, microsecond times, metadata events naming processes and threads, and on
// request counter ("C") tracks and flow arrows between slices (flow events "s"/"t"/"f", each
// right after the slice it binds to, so that one slice can be in several flows). Roots map to processes by their
// `worker` attribute and to threads by their `thread` attribute (one track per thread slot);
// roots without a thread slot get lanes, one family per root name (`gather-dep lane 0`, …), so
// that roots overlapping in time never share a thread (X events on one thread must nest).
import { displayName, measurementAttributes, NAME_SEPARATOR } from "./display.js";
import type { AttributeValue, SpanRecord } from "./types.js";

export interface ChromeTraceEvent {
  readonly name: string;
  readonly cat?: string;
  /** X: a slice; M: metadata; C: a counter sample; s, t, f: a flow's start, step and finish. */
  readonly ph: "X" | "M" | "C" | "s" | "t" | "f";
  readonly ts?: number;
  readonly dur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: Readonly<Record<string, AttributeValue | number>>;
  /** The flow a flow event belongs to. */
  readonly id?: number;
  /** On a flow's finish: bind to the enclosing slice (the one it follows), not the next one. */
  readonly bp?: "e";
}

export interface ChromeTrace {
  readonly traceEvents: ChromeTraceEvent[];
  readonly displayTimeUnit: "ms";
}

/** A value track of a process (Perfetto draws one counter track per process, name and key of `values`). */
export interface ChromeCounter {
  readonly pid: number;
  readonly name: string;
  /** Seconds, like span times (epochOffset applies). */
  readonly time: number;
  readonly values: Readonly<Record<string, number>>;
}

/**
 * An arrow through slices of the trace, in order: from the first record to the last, through any
 * in between. A record (a root or any node of one) may be in any number of flows — one producer
 * feeding several consumers, one consumer fed by several producers.
 *
 * Binding: each flow event comes right after the X event of its slice, with the slice's
 * timestamp, process and thread, and one category for every flow event (`FLOW_CATEGORY`: a
 * viewer keys a flow by id, category and name, so its start and finish must share them even
 * when its slices are of different families). Perfetto and chrome://tracing bind a flow event
 * to the slice on top of its thread's stack — with the file's order kept among equal
 * timestamps, exactly that slice. (Flow v2's `bind_id` on the slice itself would not depend on
 * order, but allows one flow per slice.)
 */
export interface ChromeFlow {
  readonly records: readonly SpanRecord[];
  /** Name of the arrow, e.g. the key it carries (default "flow"). */
  readonly name?: string;
}

export interface ChromeTraceOptions {
  /** Seconds added to every time before converting to microseconds (default 0). */
  readonly epochOffset?: number;
  /** Joins a node's name segments (default "/"). */
  readonly separator?: string;
  /** Process of a root (default: by its `worker` attribute, numbered from 1 in order seen). */
  readonly pid?: (root: SpanRecord, index: number) => number;
  /** Thread of a root (default: its numeric `thread` attribute, else a free lane of its family). */
  readonly tid?: (root: SpanRecord, index: number) => number;
  /** Counter samples, emitted sorted by time per process and name. Non-finite values are left out. */
  readonly counters?: readonly ChromeCounter[];
  /** Flow arrows between nodes of `records`; flows naming a record that is not in the trace are left out. */
  readonly flows?: readonly ChromeFlow[];
}

const DEFAULT_PROCESS = "spanwork";
/** Category of every flow event. */
export const FLOW_CATEGORY = "flow";
/** Lanes for roots without a thread slot start here, clear of real thread numbers. */
const FIRST_LANE = 1000;
/** Thread ids reserved per lane family, so that each family's lanes sort together. */
const LANES_PER_FAMILY = 1000;

function microseconds(seconds: number): number {
  return Math.round(seconds * 1e9) / 1e3;
}

function argsOf(record: SpanRecord): Record<string, AttributeValue | number> {
  return { ...record.attributes, ...measurementAttributes(record) };
}

/** Lanes of one process, per family: its first thread id and the end time of each lane. */
type ProcessLanes = Map<string, { readonly base: number; readonly ends: number[] }>;

/** Chrome trace-event JSON of the given finished records (roots). */
export function toChromeTrace(records: SpanRecord | readonly SpanRecord[], options: ChromeTraceOptions = {}): ChromeTrace {
  const roots: readonly SpanRecord[] = Array.isArray(records) ? records : [records as SpanRecord];
  const offset = options.epochOffset ?? 0;
  const separator = options.separator ?? NAME_SEPARATOR;
  const events: ChromeTraceEvent[] = [];
  const processIds = new Map<string, number>();
  const namedThreads = new Set<string>();
  const lanes = new Map<number, ProcessLanes>();
  const flowEvents = flowPoints(roots, options.flows ?? []);

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
    let threadName: string;
    const thread = root.attributes["thread"];
    if (options.tid !== undefined) {
      tid = options.tid(root, index);
      threadName = `thread ${tid}`;
    } else if (typeof thread === "number") {
      tid = thread;
      threadName = `thread ${thread}`;
    } else {
      const family = root.name[0] ?? "span";
      const lane = freeLane(lanes, pid, family, root);
      tid = lane.tid;
      threadName = `${family} lane ${lane.lane}`;
    }
    const threadKey = `${pid}:${tid}`;
    if (!namedThreads.has(threadKey)) {
      namedThreads.add(threadKey);
      events.push({ name: "thread_name", ph: "M", pid, tid, args: { name: threadName } });
    }
    const emit = (node: SpanRecord, category: string): void => {
      const ts = microseconds(node.startTime + offset);
      events.push({
        name: displayName(node, separator),
        cat: category,
        ph: "X",
        ts,
        dur: microseconds(node.endTime - node.startTime),
        pid,
        tid,
        args: argsOf(node),
      });
      const points = flowEvents.get(node);
      if (points !== undefined) {
        for (const point of points) events.push({ name: point.name, cat: FLOW_CATEGORY, ph: point.ph, ts, pid, tid, id: point.id, ...(point.ph === "f" ? { bp: "e" as const } : {}) });
      }
      for (const child of node.children) emit(child, category);
    };
    emit(root, root.name[0] ?? "span");
  }
  events.push(...counterEvents(options.counters ?? [], offset));
  return { traceEvents: events, displayTimeUnit: "ms" };
}

/** The first lane of the root's family on that process that is free when the root starts. */
function freeLane(lanes: Map<number, ProcessLanes>, pid: number, family: string, root: SpanRecord): { tid: number; lane: number } {
  let processLanes = lanes.get(pid);
  if (!processLanes) lanes.set(pid, (processLanes = new Map()));
  let familyLanes = processLanes.get(family);
  if (!familyLanes) {
    familyLanes = { base: FIRST_LANE + processLanes.size * LANES_PER_FAMILY, ends: [] };
    processLanes.set(family, familyLanes);
  }
  const { ends } = familyLanes;
  let lane = ends.findIndex((end) => end <= root.startTime);
  if (lane === -1) {
    lane = ends.length;
    ends.push(root.endTime);
  } else {
    ends[lane] = root.endTime;
  }
  // A family with more concurrent roots than its block of ids continues far above every block.
  const tid = lane < LANES_PER_FAMILY ? familyLanes.base + lane : FIRST_LANE * LANES_PER_FAMILY + familyLanes.base + lane;
  return { tid, lane };
}

interface FlowPoint {
  readonly id: number;
  readonly ph: "s" | "t" | "f";
  readonly name: string;
}

/**
 * Numbers the flows from 1 (in the order given, leaving out flows through a record that is not
 * in the trace) and lists, per record, the flow events that follow its slice: start on the
 * first record, steps between, finish on the last.
 */
function flowPoints(roots: readonly SpanRecord[], flows: readonly ChromeFlow[]): Map<SpanRecord, FlowPoint[]> {
  const points = new Map<SpanRecord, FlowPoint[]>();
  if (flows.length === 0) return points;
  const inTrace = new Set<SpanRecord>();
  const visit = (node: SpanRecord): void => {
    inTrace.add(node);
    for (const child of node.children) visit(child);
  };
  for (const root of roots) visit(root);
  let id = 0;
  for (const flow of flows) {
    const { records } = flow;
    if (records.length < 2) throw new Error(`a Chrome trace flow needs at least two records (got ${records.length})`);
    if (!records.every((record) => inTrace.has(record))) continue;
    id += 1;
    const name = flow.name ?? "flow";
    records.forEach((record, position) => {
      const ph = position === 0 ? "s" : position === records.length - 1 ? "f" : "t";
      let list = points.get(record);
      if (list === undefined) points.set(record, (list = []));
      list.push({ id, ph, name });
    });
  }
  return points;
}

function counterEvents(counters: readonly ChromeCounter[], offset: number): ChromeTraceEvent[] {
  const usable = counters
    .map((counter, index) => ({ counter, index, values: Object.entries(counter.values).filter(([, value]) => Number.isFinite(value)) }))
    .filter(({ counter, values }) => Number.isFinite(counter.time) && values.length > 0);
  usable.sort((a, b) => a.counter.pid - b.counter.pid || (a.counter.name < b.counter.name ? -1 : a.counter.name > b.counter.name ? 1 : 0) || a.counter.time - b.counter.time || a.index - b.index);
  return usable.map(({ counter, values }) => ({ name: counter.name, ph: "C", ts: microseconds(counter.time + offset), pid: counter.pid, tid: 0, args: Object.fromEntries(values) }));
}
