// Reads a Chrome trace back the way a viewer would and lists every rule of the Trace Event
// Format it breaks: required fields per phase, complete events that do not nest on their
// thread, flows whose ids do not pair up or point at no slice, counters that go back in time.
// An empty list means the trace is valid for these rules.
//
// Flow events ("s", "t", "f") are bound the way Perfetto binds them: in timestamp order (the
// file's order among equal timestamps), to the slice on top of their thread's stack — the
// latest slice begun there that had not ended by the time a later slice began.

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
  id?: unknown;
  bp?: unknown;
  cat?: unknown;
}

/** Rounding of ts and dur to nanoseconds may leave a child a hair past its parent's end. */
const SLACK_US = 0.002;

const isInteger = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value);
const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

export interface TraceSummary {
  problems: string[];
  slices: number;
  /** Flows by id: their first and last slice (`index`: the slice's X event in traceEvents). */
  flows: Map<number, { from: FlowEnd; to: FlowEnd; steps: number }>;
  /** Counter samples per `pid/name`. */
  counters: Map<string, number>;
  /** Thread names per pid. */
  threads: Map<number, string[]>;
}

export interface FlowEnd {
  pid: number;
  tid: number;
  ts: number;
  index: number;
}

export function checkTrace(json: string): TraceSummary {
  const problems: string[] = [];
  const parsed = JSON.parse(json) as { traceEvents?: unknown };
  if (!Array.isArray(parsed.traceEvents)) return { problems: ["traceEvents is not an array"], slices: 0, flows: new Map(), counters: new Map(), threads: new Map() };
  const events = parsed.traceEvents as Event[];
  const slicesByThread = new Map<string, Array<{ ts: number; end: number; index: number }>>();
  const flowParts = new Map<number, Array<{ role: "out" | "in" | "step"; pid: number; tid: number; ts: number; index: number }>>();
  // flow events (v1) per thread, bound to slices once every slice is known
  const flowEventsByThread = new Map<string, Array<{ role: "out" | "in" | "step"; id: number; ts: number; index: number }>>();
  // a viewer keys a flow by id, category and name: its events must agree on the last two
  const flowLabels = new Map<number, string>();
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
      case "s":
      case "t":
      case "f": {
        if (!isTime(event.ts)) problems.push(`${where}: flow event needs ts ≥ 0`);
        if (!isInteger(event.id)) problems.push(`${where}: flow event needs an integer id`);
        if (event.ph === "f" && event.bp !== "e") problems.push(`${where}: a flow finish should bind to its enclosing slice (bp "e")`);
        if (!isTime(event.ts) || !isInteger(event.id)) return;
        const label = JSON.stringify([event.cat, event.name]);
        const known = flowLabels.get(event.id);
        if (known === undefined) flowLabels.set(event.id, label);
        else if (known !== label) problems.push(`${where}: flow ${event.id} has category and name ${label}, not ${known} like its other events`);
        const thread = `${String(event.pid)}:${String(event.tid)}`;
        let list = flowEventsByThread.get(thread);
        if (!list) flowEventsByThread.set(thread, (list = []));
        list.push({ role: event.ph === "s" ? "out" : event.ph === "f" ? "in" : "step", id: event.id, ts: event.ts, index });
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
  for (const [thread, flowEvents] of flowEventsByThread) {
    const [pid, tid] = thread.split(":").map(Number) as [number, number];
    const timeline = [
      ...(slicesByThread.get(thread) ?? []).map((slice) => ({ kind: "slice" as const, ts: slice.ts, end: slice.end, index: slice.index })),
      ...flowEvents.map((flow) => ({ kind: "flow" as const, ts: flow.ts, flow, index: flow.index })),
    ].sort((a, b) => a.ts - b.ts || a.index - b.index);
    const stack: Array<{ end: number; index: number }> = [];
    for (const item of timeline) {
      if (item.kind === "slice") {
        while (stack.length > 0 && stack[stack.length - 1]!.end <= item.ts) stack.pop();
        stack.push({ end: item.end, index: item.index });
        continue;
      }
      const top = stack[stack.length - 1];
      if (top === undefined) {
        problems.push(`event ${item.index} (flow ${item.flow.id}): no slice on thread ${thread} to bind to`);
        continue;
      }
      let parts = flowParts.get(item.flow.id);
      if (!parts) flowParts.set(item.flow.id, (parts = []));
      parts.push({ role: item.flow.role, pid, tid, ts: item.ts, index: top.index });
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
