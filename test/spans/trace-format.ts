// Reads a Chrome trace back the way a viewer would and lists every rule of the Trace Event
// Format it breaks: required fields per phase, complete events that do not nest on their
// thread, flows whose ids do not pair up or point at no slice, counters that go back in time.
// An empty list means the trace is valid for these rules.

interface Event {
  name?: unknown;
  ph?: unknown;
  ts?: unknown;
  dur?: unknown;
  pid?: unknown;
  tid?: unknown;
  args?: unknown;
  bind_id?: unknown;
  flow_in?: unknown;
  flow_out?: unknown;
}

/** Rounding of ts and dur to nanoseconds may leave a child a hair past its parent's end. */
const SLACK_US = 0.002;

const isInteger = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value);
const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

export interface TraceSummary {
  problems: string[];
  slices: number;
  /** Flows by id: the pids of their first and last slice. */
  flows: Map<number, { from: { pid: number; tid: number; ts: number }; to: { pid: number; tid: number; ts: number }; steps: number }>;
  /** Counter samples per `pid/name`. */
  counters: Map<string, number>;
  /** Thread names per pid. */
  threads: Map<number, string[]>;
}

export function checkTrace(json: string): TraceSummary {
  const problems: string[] = [];
  const parsed = JSON.parse(json) as { traceEvents?: unknown };
  if (!Array.isArray(parsed.traceEvents)) return { problems: ["traceEvents is not an array"], slices: 0, flows: new Map(), counters: new Map(), threads: new Map() };
  const events = parsed.traceEvents as Event[];
  const slicesByThread = new Map<string, Array<{ ts: number; end: number; index: number }>>();
  const flowParts = new Map<number, Array<{ role: "out" | "in" | "step"; pid: number; tid: number; ts: number; index: number }>>();
  const counterLast = new Map<string, number>();
  const counters = new Map<string, number>();
  const threads = new Map<number, string[]>();
  let slices = 0;
  events.forEach((event, index) => {
    const where = `event ${index} (${String(event.name)})`;
    if (typeof event.name !== "string") problems.push(`${where}: name is not a string`);
    if (typeof event.ph !== "string") problems.push(`${where}: ph is not a string`);
    if (!isInteger(event.pid) || !isInteger(event.tid)) problems.push(`${where}: pid and tid must be integers`);
    if (event.bind_id !== undefined && event.ph !== "X") problems.push(`${where}: bind_id on a ${String(event.ph)} event`);
    switch (event.ph) {
      case "X": {
        slices += 1;
        if (!isTime(event.ts) || !isTime(event.dur)) {
          problems.push(`${where}: X needs ts and dur ≥ 0`);
          return;
        }
        const thread = `${String(event.pid)}:${String(event.tid)}`;
        let list = slicesByThread.get(thread);
        if (!list) slicesByThread.set(thread, (list = []));
        list.push({ ts: event.ts, end: event.ts + event.dur, index });
        if (event.bind_id !== undefined) {
          if (!isInteger(event.bind_id)) problems.push(`${where}: bind_id must be an integer`);
          const role = event.flow_out === true && event.flow_in === true ? "step" : event.flow_out === true ? "out" : event.flow_in === true ? "in" : undefined;
          if (role === undefined) problems.push(`${where}: bind_id without flow_in or flow_out`);
          else {
            let parts = flowParts.get(event.bind_id as number);
            if (!parts) flowParts.set(event.bind_id as number, (parts = []));
            parts.push({ role, pid: event.pid as number, tid: event.tid as number, ts: event.ts, index });
          }
        }
        return;
      }
      case "M": {
        const args = event.args as { name?: unknown } | undefined;
        if ((event.name === "process_name" || event.name === "thread_name") && typeof args?.name !== "string") problems.push(`${where}: ${event.name} without args.name`);
        if (event.name === "thread_name" && typeof args?.name === "string") {
          const list = threads.get(event.pid as number) ?? [];
          list.push(args.name);
          threads.set(event.pid as number, list);
        }
        return;
      }
      case "C": {
        if (!isTime(event.ts)) problems.push(`${where}: C needs ts ≥ 0`);
        const args = event.args;
        if (typeof args !== "object" || args === null || Object.keys(args).length === 0) problems.push(`${where}: C needs args`);
        else for (const [key, value] of Object.entries(args)) if (typeof value !== "number" || !Number.isFinite(value)) problems.push(`${where}: counter ${key} is not a finite number`);
        const track = `${String(event.pid)}/${String(event.name)}`;
        const last = counterLast.get(track);
        if (last !== undefined && (event.ts as number) < last) problems.push(`${where}: counter ${track} goes back in time (${String(event.ts)} after ${last})`);
        counterLast.set(track, event.ts as number);
        counters.set(track, (counters.get(track) ?? 0) + 1);
        return;
      }
      default:
        problems.push(`${where}: unexpected phase ${String(event.ph)}`);
    }
  });
  for (const [thread, list] of slicesByThread) {
    list.sort((a, b) => a.ts - b.ts || b.end - a.end || a.index - b.index);
    const open: Array<{ end: number; index: number }> = [];
    for (const slice of list) {
      while (open.length > 0 && open[open.length - 1]!.end <= slice.ts + SLACK_US) open.pop();
      const parent = open[open.length - 1];
      if (parent && slice.end > parent.end + SLACK_US) problems.push(`thread ${thread}: event ${slice.index} overlaps event ${parent.index} without nesting`);
      open.push(slice);
    }
  }
  const flows: TraceSummary["flows"] = new Map();
  for (const [id, parts] of flowParts) {
    const outs = parts.filter((part) => part.role === "out");
    const ins = parts.filter((part) => part.role === "in");
    if (outs.length !== 1 || ins.length !== 1) {
      problems.push(`flow ${id}: ${outs.length} start and ${ins.length} end slices (one of each expected)`);
      continue;
    }
    flows.set(id, { from: outs[0]!, to: ins[0]!, steps: parts.length - 2 });
  }
  return { problems, slices, flows, counters, threads };
}
