// Runs real JavaScript tasks. A runSpec is a task function `(inputs, ctx) => value` or a
// call `{ fn, args }` whose `taskRef(key)` arguments are replaced by dependency values.
//
// Timing: the function runs inside a transparent child span of the execute root (no name
// segment of its own) that measures CPU, so its own time is exported as
// `["execute", prefix, "thread-cpu" | "thread-noncpu"]`, and any span the task code opens
// (`meter("io", …)`, `currentSpan().child(…)`) lands directly under the task
// (`["execute", prefix, "io"]`), with its own CPU taken out of the task's.
// An `async` function gets no CPU split (all its own time is thread-noncpu, like dask's
// `async def` tasks): its CPU reading would include whatever else ran on the event loop
// meanwhile. A plain function that returns a promise gets the CPU of its synchronous part.
import type { Key } from "../state/index.js";
import { processCpuClock, type CpuClock } from "../spans/index.js";
import type { WorkerClock } from "./clock.js";
import type { ExecuteContext, ExecuteRequest, ExecuteResult, Executor } from "./types.js";
import type { Span } from "../spans/index.js";

/** What a task function receives besides its inputs. */
export interface TaskContext {
  readonly key: Key;
  readonly clock: WorkerClock;
  /** Aborted when the worker closes. */
  readonly signal: AbortSignal;
  /** The span the task runs in (also `currentSpan()`). */
  readonly span: Span;
}

/** A task function: gets every dependency value by key. Sync or async. */
export type TaskFunction = (inputs: ReadonlyMap<Key, unknown>, context: TaskContext) => unknown;

/** A call: `fn(...args)` with every `taskRef(key)` in `args` replaced by that dependency's value. */
export interface TaskCall {
  readonly fn: (...args: never[]) => unknown;
  readonly args?: readonly unknown[];
}

export type RealRunSpec = TaskFunction | TaskCall;

const TASK_REF = Symbol.for("spanwork.taskRef");

/** Placeholder for a dependency's value inside `TaskCall.args`. */
export interface TaskRef {
  readonly [TASK_REF]: Key;
}

export function taskRef(key: Key): TaskRef {
  return Object.freeze({ [TASK_REF]: key });
}

export function isTaskRef(value: unknown): value is TaskRef {
  return typeof value === "object" && value !== null && TASK_REF in value;
}

function isTaskCall(value: unknown): value is TaskCall {
  return typeof value === "object" && value !== null && typeof (value as { fn?: unknown }).fn === "function";
}

const MAX_SUBSTITUTION_DEPTH = 32;

function substitute(value: unknown, inputs: ReadonlyMap<Key, unknown>, key: Key, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isTaskRef(value)) {
    const ref = value[TASK_REF];
    if (!inputs.has(ref)) {
      throw new Error(`task ${JSON.stringify(key)}: argument taskRef(${JSON.stringify(ref)}) is not one of its dependencies`);
    }
    return inputs.get(ref);
  }
  if (depth >= MAX_SUBSTITUTION_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => substitute(item, inputs, key, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const substituted = substitute((value as Record<string, unknown>)[k], inputs, key, depth + 1);
    // an own "__proto__" key stays an own key (assignment would set the prototype instead)
    if (k === "__proto__") Object.defineProperty(out, k, { value: substituted, writable: true, enumerable: true, configurable: true });
    else out[k] = substituted;
  }
  return out;
}

/** `processCpuClock` (this thread's CPU seconds, or the process's on Node < 23.9) that can be frozen: after `freeze()` no more CPU accrues. */
class FreezableCpuClock implements CpuClock {
  #frozen: number | undefined;
  constructor(frozen = false) {
    if (frozen) this.#frozen = 0;
  }
  now(): number {
    return this.#frozen ?? processCpuClock.now();
  }
  freeze(): void {
    this.#frozen ??= this.now();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

const AsyncFunction = (async () => undefined).constructor;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return `an object with keys ${JSON.stringify(Object.keys(value).slice(0, 5))}`;
  return typeof value;
}

/** Type name of a value for TaskFinishedMsg.typename. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === "string" && ctor.name !== "" ? ctor.name : "Object";
}

export class RealExecutor implements Executor {
  async execute(task: ExecuteRequest, context: ExecuteContext): Promise<ExecuteResult> {
    const { key, runSpec, dependencies } = task;
    let call: () => unknown;
    let isAsync: boolean;
    if (typeof runSpec === "function") {
      const fn = runSpec as TaskFunction;
      isAsync = fn instanceof AsyncFunction;
      call = () => fn(dependencies, { key, clock: context.clock, signal: context.signal, span: threadSpan });
    } else if (isTaskCall(runSpec)) {
      const fn = runSpec.fn as (...args: unknown[]) => unknown;
      const args = (runSpec.args ?? []).map((arg) => substitute(arg, dependencies, key, 0));
      isAsync = fn instanceof AsyncFunction;
      call = () => fn(...args);
    } else {
      throw new TypeError(
        `task ${JSON.stringify(key)}: runSpec must be a function or { fn, args } for the RealExecutor, got ${describe(runSpec)}`,
      );
    }
    const cpuClock = new FreezableCpuClock(isAsync);
    const threadSpan: Span = context.span.child([], { cpu: cpuClock });
    try {
      let value = threadSpan.asCurrent(call);
      if (isThenable(value)) {
        cpuClock.freeze();
        value = await value;
      }
      return { value, type: typeName(value) };
    } finally {
      threadSpan.end();
    }
  }
}
