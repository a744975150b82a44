// The floor under W1: what any implementation of the workload must do in JavaScript, with
// no state machine at all. It builds the same frozen events with the same factories, keeps
// a TaskState per key in a `tasks` Map and a value per key in a `data` Map, and answers
// with the same frozen instructions (Execute, TaskFinishedMsg, ReleaseWorkerDataMsg), four
// tasks executing at a time in index order — but it makes no transitions, recommendations,
// log entries or checks. `npm run bench -- state --only w1,w1-floor [--w1-n N]` prints it
// beside the real thing: the ratio says how much of W1's time is the state machine's, and
// the floor's own large-N loss is what this machine's memory costs before any logic.
import {
  Execute,
  ReleaseWorkerDataMsg,
  TaskFinishedMsg,
  TaskState,
  type Instruction,
} from "../src/state/index.js";
import { computeEvent, executeSuccessEvent, freeEvent } from "./state-events.js";

export interface FloorRun {
  events: number;
  instructions: number;
  instructionsByType: Record<string, number>;
  computeSeconds: number;
  freeSeconds: number;
  /** CPU time of the process over both timed phases. */
  cpuSeconds: number;
}

const NTHREADS = 4;
const EMPTY: Readonly<Record<string, never>> = Object.freeze(Object.create(null) as Record<string, never>);

/**
 * W1's events and instructions through bare Maps, timed as the state suite times W1;
 * `afterCompute` runs untimed between the two phases (the suite samples the heap there).
 */
export function floorIndependent(n: number, afterCompute: () => void = () => {}): FloorRun {
  const keys = Array.from({ length: n }, (_, i) => `t-${i}`);
  const now = (): number => performance.now() / 1000;
  const cpuNow = (): number => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  };
  const tStart = now();
  const cpuStart = cpuNow();
  const tasks = new Map<string, TaskState>();
  const data = new Map<string, unknown>();
  const ready: TaskState[] = [];
  let readyHead = 0;
  let executing = 0;
  const fifo: Execute[] = [];
  let fifoHead = 0;
  const counts = { events: 0, Execute: 0, TaskFinishedMsg: 0, ReleaseWorkerDataMsg: 0 };

  const startReady = (out: Instruction[], stimulusId: string): void => {
    while (executing < NTHREADS && readyHead < ready.length) {
      const ts = ready[readyHead++] as TaskState;
      ts.state = "executing";
      executing++;
      out.push(Execute({ key: ts.key, stimulusId }));
    }
  };
  const deliver = (out: Instruction[]): void => {
    counts.events++;
    for (let i = 0; i < out.length; i++) {
      const ins = out[i] as Instruction;
      counts[ins.kind as "Execute" | "TaskFinishedMsg" | "ReleaseWorkerDataMsg"]++;
      if (ins.kind === "Execute") fifo.push(ins);
    }
  };

  for (let i = 0; i < n; i++) {
    const key = keys[i] as string;
    const ev = computeEvent(key, i);
    const out: Instruction[] = [];
    let ts = tasks.get(ev.key);
    if (ts === undefined) {
      ts = new TaskState(ev.key);
      tasks.set(ev.key, ts);
    }
    ts.priority = Object.freeze([...ev.priority, -i]);
    ts.state = "ready";
    ready.push(ts);
    startReady(out, ev.stimulusId);
    deliver(out);
  }
  while (fifoHead < fifo.length) {
    const ins = fifo[fifoHead++] as Execute;
    const ev = executeSuccessEvent(ins.key);
    const out: Instruction[] = [];
    const ts = tasks.get(ev.key) as TaskState;
    ts.addStartstop({ action: "compute", start: ev.start, stop: ev.stop });
    data.set(ev.key, ev.value);
    ts.state = "memory";
    ts.nbytes = ev.nbytes;
    executing--;
    out.push(
      TaskFinishedMsg({ key: ts.key, runId: 0, nbytes: ts.nbytes, type: null, typename: null, metadata: EMPTY, thread: null, startstops: ts.startstops, stimulusId: ev.stimulusId }),
    );
    startReady(out, ev.stimulusId);
    deliver(out);
  }
  const tCompute = now() - tStart;
  const cpuCompute = cpuNow() - cpuStart;
  afterCompute();

  const t1 = now();
  const cpu1 = cpuNow();
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string;
    const ev = freeEvent(key);
    const out: Instruction[] = [];
    const ts = tasks.get(ev.keys[0] as string) as TaskState;
    data.delete(ts.key);
    tasks.delete(ts.key);
    ts.state = "forgotten";
    out.push(ReleaseWorkerDataMsg({ key: ts.key, stimulusId: ev.stimulusId }));
    deliver(out);
  }
  const tFree = now() - t1;
  const cpuSeconds = cpuCompute + cpuNow() - cpu1;
  if (tasks.size !== 0 || data.size !== 0 || counts.events !== 3 * n) throw new Error("bench state: the W1 floor lost track");
  const { events, ...instructionsByType } = counts;
  return {
    events,
    instructions: counts.Execute + counts.TaskFinishedMsg + counts.ReleaseWorkerDataMsg,
    instructionsByType,
    computeSeconds: tCompute,
    freeSeconds: tFree,
    cpuSeconds,
  };
}
