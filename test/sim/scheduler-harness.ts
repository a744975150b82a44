// A Scheduler wired to a recording host with a hand-driven clock: tests see what each worker
// receives, answer for the workers (task-finished, steal-response), and move time to run the
// periodic hooks (heartbeats, balance).
import { GraphBuilder, Scheduler, type TaskGraph } from "../../src/sim/index.js";
import type { SchedulerOptions } from "../../src/sim/scheduler.js";
import {
  StealResponseMsg,
  TaskFinishedMsg,
  type ComputeTaskEvent,
  type StateMachineEvent,
  type StealRequestEvent,
} from "../../src/state/index.js";

/** Tasks as `[key, dependencies, nbytes?, duration?]`; the prefix is the key up to its first "-". */
export function graphOf(tasks: Array<[key: string, deps: string[], nbytes?: number, duration?: number]>): TaskGraph {
  const builder = new GraphBuilder();
  for (const [key, , nbytes, duration] of tasks) builder.addTask({ key, prefix: key.split("-")[0]!, duration: duration ?? 1, nbytes: nbytes ?? 100 });
  for (const [key, deps] of tasks) for (const dep of deps) builder.addDependency(builder.idOf(key)!, builder.idOf(dep)!);
  return builder.build("test");
}

/**
 * Gives `graph` the priorities spanwork had before it followed dask.order: the post-order of a
 * depth-first walk from every sink in id order, dependencies in id order. Placement tests whose
 * hand-worked setups assumed them (which root lands on which worker) keep testing placement
 * rather than dask.order (its own tests: dask-order.test.ts).
 */
export function withDepthFirstOrder(graph: TaskGraph): TaskGraph {
  const n = graph.size;
  const order = graph.order as Int32Array;
  const entered = new Uint8Array(n);
  let rank = 0;
  const visit = (task: number): void => {
    entered[task] = 1;
    for (let e = graph.depStart[task]!; e < graph.depStart[task + 1]!; e++) {
      const dep = graph.deps[e]!;
      if (entered[dep] === 0) visit(dep);
    }
    order[task] = rank++;
  };
  for (let root = 0; root < n; root++) if (graph.dependentStart[root] === graph.dependentStart[root + 1]) visit(root);
  return graph;
}

export function harness(graph: TaskGraph, workers: number, nthreads = 1, options: SchedulerOptions & { clock?: boolean } = {}) {
  const inbox: StateMachineEvent[][] = Array.from({ length: workers }, () => []);
  let now = 0;
  const timers: Array<{ at: number; seq: number; callback: () => void }> = [];
  let seq = 0;
  const clock = options.clock === true;
  const scheduler = new Scheduler(
    graph,
    Array.from({ length: workers }, (_, i) => ({ address: `w${i}`, nthreads })),
    {
      deliver: (worker, events) => inbox[worker]!.push(...events),
      requestFlush: () => {},
      runSpec: (id) => ({ id }),
      ...(clock
        ? {
            now: () => now,
            setTimer: (at: number, callback: () => void) => void timers.push({ at, seq: seq++, callback }),
          }
        : {}),
    },
    options,
  );
  const flush = (): StateMachineEvent[][] => {
    scheduler.flush();
    const out = inbox.map((events) => [...events]);
    for (const events of inbox) events.length = 0;
    return out;
  };
  const computes = (events: StateMachineEvent[]): ComputeTaskEvent[] =>
    events.filter((e): e is ComputeTaskEvent => e.kind === "ComputeTaskEvent");
  const stealRequests = (events: StateMachineEvent[]): StealRequestEvent[] =>
    events.filter((e): e is StealRequestEvent => e.kind === "StealRequestEvent");
  const finish = (worker: number, event: ComputeTaskEvent, nbytes = 100, compute?: [start: number, stop: number]): void =>
    scheduler.handleMessage(
      worker,
      TaskFinishedMsg({
        key: event.key,
        runId: event.runId,
        nbytes,
        startstops: compute === undefined ? [] : [{ action: "compute", start: compute[0], stop: compute[1] }],
        stimulusId: "s",
      }),
    );
  const answerSteal = (worker: number, request: StealRequestEvent, state: string | null): void =>
    scheduler.handleMessage(worker, StealResponseMsg({ key: request.key, state, stimulusId: request.stimulusId }));
  /** Moves the clock to `to`, firing due timers in (time, insertion) order. */
  const advance = (to: number): void => {
    for (;;) {
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = timers[0];
      if (next === undefined || next.at > to) break;
      timers.shift();
      now = next.at;
      next.callback();
    }
    now = to;
  };
  const keysOf = (events: StateMachineEvent[][]): string[][] => events.map((e) => computes(e).map((c) => c.key));
  const id = (key: string): number => graph.idOf(key)!;
  return { scheduler, flush, computes, stealRequests, finish, answerSteal, advance, keysOf, id, get now() { return now; }, pendingTimers: () => timers.length };
}
