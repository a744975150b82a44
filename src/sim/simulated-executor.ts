// Executes task models instead of code: each modelled activity is a child span of the
// execute root that lasts its modelled seconds on the worker's clock (virtual time in a
// simulation). The result is a SimulatedData of the modelled output size.
import { Reschedule } from "../worker/errors.js";
import type { ExecuteContext, ExecuteRequest, ExecuteResult, Executor } from "../worker/types.js";
import { SimulatedData } from "./simulated-data.js";

/** A simulated task: what it spends its time on, what it outputs, whether it fails. */
export interface TaskModel {
  /** Activity → seconds, run in key order (e.g. `{ "thread-cpu": 0.8, "thread-noncpu": 0.2 }`). */
  readonly durations: Readonly<Record<string, number>>;
  /** Size of the output value in bytes. */
  readonly outputBytes: number;
  /** Fail after the durations: true, or the error message. */
  readonly fail?: boolean | string;
  /** Ask to be rescheduled after the durations. */
  readonly reschedule?: boolean;
  /** Its "thread-cpu" part holds the worker process's interpreter lock (gil.ts); default false: it releases it. */
  readonly gil?: boolean;
  /**
   * Seconds of its "thread-cpu" part that build its output (a spec's `buildBandwidth`): their
   * share of the part's wait for a core (or the GIL) comes off the "thread-noncpu" part after it,
   * down to nothing — the build counts against the duration, as the fidelity tasks' sleep of
   * `duration − elapsed` does. The rest of the part's wait adds, as it always did.
   */
  readonly build?: number;
  /**
   * Seconds of the "thread-noncpu" part that are its sleep's lateness (the overheads'
   * `taskOverrun`), with `build` only: a build's wait that leaves no sleep leaves no lateness
   * either, as `work` does not sleep at all then.
   */
  readonly overrun?: number;
}

/** Runs a part's CPU seconds under its worker's GIL; `onEnd` hears how many it ran (fewer when `signal` aborts it; not called: all of them, first). */
export type GilRun = (seconds: number, signal: AbortSignal, onEnd: (cpuDone: number) => void) => Promise<void>;

/** Seconds a task thread that must take its worker's GIL back now waits for it (copy-holds.ts); 0: none. */
export type GilWake = () => number;

/** The error a failing task model throws. */
export class TaskModelFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TaskModelFailure";
  }
}

export function isTaskModel(value: unknown): value is TaskModel {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { durations?: unknown }).durations === "object" &&
    (value as { durations?: unknown }).durations !== null &&
    typeof (value as { outputBytes?: unknown }).outputBytes === "number"
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

/** Names a task model in errors; built only when one is thrown (this runs once per simulated task). */
function taskModelOf(key: string): string {
  return `task model of ${JSON.stringify(key)}`;
}

/** Checks a task model, throwing an error that names the key and the field. */
export function validateTaskModel(value: unknown, key: string): TaskModel {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${taskModelOf(key)}: runSpec must be a TaskModel object { durations, outputBytes }, got ${describe(value)}`);
  }
  const model = value as Record<string, unknown>;
  const durations = model.durations;
  if (typeof durations !== "object" || durations === null || Array.isArray(durations)) {
    throw new TypeError(`${taskModelOf(key)}: durations must be an object of activity → seconds, got ${describe(durations)}`);
  }
  for (const activity in durations) {
    if (!Object.hasOwn(durations, activity)) continue;
    const seconds = (durations as Record<string, unknown>)[activity];
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
      throw new TypeError(`${taskModelOf(key)}: durations.${activity} must be a finite number of seconds ≥ 0, got ${describe(seconds)}`);
    }
  }
  const outputBytes = model.outputBytes;
  if (typeof outputBytes !== "number" || !Number.isInteger(outputBytes) || outputBytes < 0) {
    throw new TypeError(`${taskModelOf(key)}: outputBytes must be an integer ≥ 0, got ${describe(outputBytes)}`);
  }
  if (model.fail !== undefined && typeof model.fail !== "boolean" && typeof model.fail !== "string") {
    throw new TypeError(`${taskModelOf(key)}: fail must be a boolean or a message, got ${describe(model.fail)}`);
  }
  if (model.reschedule !== undefined && typeof model.reschedule !== "boolean") {
    throw new TypeError(`${taskModelOf(key)}: reschedule must be a boolean, got ${describe(model.reschedule)}`);
  }
  if (model.gil !== undefined && typeof model.gil !== "boolean") {
    throw new TypeError(`${taskModelOf(key)}: gil must be a boolean, got ${describe(model.gil)}`);
  }
  if (model.build !== undefined && (typeof model.build !== "number" || !Number.isFinite(model.build) || model.build < 0)) {
    throw new TypeError(`${taskModelOf(key)}: build must be a finite number of seconds ≥ 0, got ${describe(model.build)}`);
  }
  if (model.overrun !== undefined && (typeof model.overrun !== "number" || !Number.isFinite(model.overrun) || model.overrun < 0)) {
    throw new TypeError(`${taskModelOf(key)}: overrun must be a finite number of seconds ≥ 0, got ${describe(model.overrun)}`);
  }
  return value as TaskModel;
}

export class SimulatedExecutor implements Executor {
  /** Records under `context.span` only. */
  readonly explicitSpans = true;

  /**
   * `cpuPart`: how many wall seconds a "thread-cpu" activity takes from now when the task's
   * thread shares the host's cores (host-cpu.ts). The excess is time the thread was runnable
   * without a core: dask's thread_time does not count it, so it shows as a "thread-noncpu"
   * activity after the CPU part.
   * `gil`: runs the CPU seconds of a part that holds the GIL (`model.gil`) under its worker's
   * lock (gil.ts), resolving when they are done; the wall time beyond them shows the same way.
   * `gilWake`: how long the thread waits to take the GIL back as a part that let go of it ends
   * (its sleep, a CPU part that releases it), while a copy that does not let go holds it: the
   * thread is late, and the wait is part of the task's time, shown as "thread-noncpu" — the
   * sleep's own span goes on, as its `taskOverrun` does; a CPU part's follows its wait for a core.
   */
  constructor(
    private readonly cpuPart?: (seconds: number) => number,
    private readonly gil?: GilRun,
    private readonly gilWake?: GilWake,
  ) {}

  async execute(task: ExecuteRequest, context: ExecuteContext): Promise<ExecuteResult> {
    const model = validateTaskModel(task.runSpec, task.key);
    const { span, clock, signal } = context;
    const build = model.build ?? 0;
    // What the build's wait took off the sleep after it (its duration counts the build).
    let buildWait = 0;
    for (const activity in model.durations) {
      let seconds = model.durations[activity] as number;
      if (buildWait > 0 && activity === "thread-noncpu") {
        // What is left of the sleep, its lateness only while some sleep is.
        const left = seconds - buildWait;
        seconds = left > (model.overrun ?? 0) ? left : 0;
        buildWait = 0;
        if (seconds === 0) continue;
      }
      if (this.gil !== undefined && model.gil === true && activity === "thread-cpu" && seconds > 0) {
        buildWait = buildShare(build, await holdingGil(span, seconds, this.gil, clock, signal), seconds);
        continue;
      }
      // Its wall time is decided as it starts (the host's threads now); the CPU seconds come first.
      const wait = this.cpuPart !== undefined && activity === "thread-cpu" && seconds > 0 ? this.cpuPart(seconds) - seconds : 0;
      if (activity === "thread-cpu") buildWait = buildShare(build, wait, seconds);
      const child = span.child(activity);
      try {
        // a zero-length activity costs no timer (and no step of a virtual clock)
        if (seconds > 0) await clock.sleep(seconds, signal);
        else signal.throwIfAborted();
        // The sleep returns once the thread has the GIL back: its lateness is the sleep's (no await when it has it).
        const late = activity !== "thread-cpu" && seconds > 0 && this.gilWake !== undefined ? this.gilWake() : 0;
        if (late > 0) await clock.sleep(late, signal);
      } finally {
        child.end();
      }
      if (activity !== "thread-cpu" || seconds === 0) continue;
      if (wait > 0) await waitForCore(span, wait, clock, signal);
      // A CPU part that let go of the GIL takes it back; a build's wait comes off the sleep, as its wait for a core does.
      const gilWait = this.gilWake === undefined ? 0 : this.gilWake();
      if (gilWait > 0) {
        buildWait += buildShare(build, gilWait, seconds);
        await waitForCore(span, gilWait, clock, signal);
      }
    }
    if (model.reschedule === true) throw new Reschedule(`task model of ${JSON.stringify(task.key)} asked to be rescheduled`);
    if (model.fail !== undefined && model.fail !== false) {
      throw new TaskModelFailure(
        typeof model.fail === "string" ? model.fail : `task model of ${JSON.stringify(task.key)} failed as modelled`,
      );
    }
    return { value: SimulatedData(task.key, model.outputBytes), nbytes: model.outputBytes, type: "SimulatedData" };
  }
}

/** One piece of work at one speed: the build's share of a CPU part's `wait` is its share of the part's seconds. */
function buildShare(build: number, wait: number, seconds: number): number {
  return build > 0 && wait > 0 ? (wait * Math.min(build, seconds)) / seconds : 0;
}

/**
 * A CPU part under the GIL: its end is known only when it comes (later holders slow it), so its
 * children are written afterwards — its CPU seconds first, then the wait, as for a core.
 * Resolves with the wait.
 */
async function holdingGil(
  span: ExecuteContext["span"],
  seconds: number,
  gil: GilRun,
  clock: ExecuteContext["clock"],
  signal: AbortSignal,
): Promise<number> {
  const start = clock.now();
  // A part cancelled while it shared the lock ran less CPU than the wall time it held a thread;
  // a lock that never says (an embedder's own GilRun) ran its CPU seconds first.
  let cpuDone: number | undefined;
  try {
    await gil(seconds, signal, (cpu) => (cpuDone = cpu));
  } finally {
    const end = clock.now();
    const cpuEnd = Math.min(end, start + (cpuDone ?? seconds));
    span.child("thread-cpu", { startTime: start }).end(cpuEnd);
    if (end > cpuEnd) span.child("thread-noncpu", { startTime: cpuEnd }).end(end);
  }
  // Its wait: the wall seconds beyond its CPU seconds.
  return Math.max(0, clock.now() - start - seconds);
}

/** A CPU part's wait for a core, as the "thread-noncpu" child it shows as. */
async function waitForCore(span: ExecuteContext["span"], seconds: number, clock: ExecuteContext["clock"], signal: AbortSignal): Promise<void> {
  const child = span.child("thread-noncpu");
  try {
    await clock.sleep(seconds, signal);
  } finally {
    child.end();
  }
}
