// The simulated workers' executor: the SimulatedExecutor (task models on the virtual clock),
// wrapped to write the report's task records without asking the Worker for a span record per
// root.
import { Reschedule } from "../worker/errors.js";
import { SimulatedExecutor, TaskModelFailure, type GilRun, type GilWake } from "./simulated-executor.js";
import type { ExecuteContext, ExecuteRequest, ExecuteResult, Executor } from "../worker/types.js";
import type { TaskRecord } from "./report.js";

export interface TaskRecordSink {
  taskRecord(record: TaskRecord): void;
  /** An injected fault fired (task-failure: the task model raised). */
  countFault(kind: string, time: number): void;
}

export interface RecordingExecutorOptions {
  /** Address of the worker it runs tasks for, written in each record. */
  readonly address: string;
  readonly sink: TaskRecordSink;
  /** The state of a task in its worker's WorkerState: the Worker discards the result of a task
   * released while it ran (state cancelled), and the record says so. */
  readonly taskState: (key: string) => string | undefined;
  /** Wall seconds a task's CPU part of `seconds` takes from now on its host's cores (host-cpu.ts); unset: its CPU seconds. */
  readonly cpuPart?: (seconds: number) => number;
  /** Runs a GIL-holding CPU part of `seconds` under its worker's lock (gil.ts); unset: no task holds it. */
  readonly gil?: GilRun;
  /** Seconds a task thread waits to take its worker's GIL back now, while a copy holds it (copy-holds.ts); unset: it never waits. */
  readonly gilWake?: GilWake;
}

export class RecordingExecutor implements Executor {
  private readonly inner: SimulatedExecutor;
  /** Like the SimulatedExecutor it wraps: records under `context.span` only. */
  readonly explicitSpans = true;
  private readonly address: string;
  private readonly sink: TaskRecordSink;
  private readonly taskState: (key: string) => string | undefined;

  constructor(options: RecordingExecutorOptions) {
    this.address = options.address;
    this.sink = options.sink;
    this.taskState = options.taskState;
    this.inner = new SimulatedExecutor(options.cpuPart, options.gil, options.gilWake);
  }

  execute(task: ExecuteRequest, context: ExecuteContext): Promise<ExecuteResult> {
    const start = context.clock.now();
    const thread = Number(context.span.attributes.thread ?? 0);
    // Inline callbacks and methods rather than named closures: a task costs no extra function objects.
    return this.inner.execute(task, context).then(
      (result) => {
        this.record(task, context, thread, start, this.discarded(task) ? "cancelled" : "ok");
        return result;
      },
      (error: unknown) => {
        const outcome = context.signal.aborted || this.discarded(task) ? "cancelled" : error instanceof Reschedule ? "rescheduled" : "failed";
        if (outcome === "failed" && error instanceof TaskModelFailure) this.sink.countFault("task-failure", context.clock.now());
        this.record(task, context, thread, start, outcome);
        throw error;
      },
    );
  }

  private discarded(task: ExecuteRequest): boolean {
    return this.taskState(task.key) === "cancelled";
  }

  private record(task: ExecuteRequest, context: ExecuteContext, thread: number, start: number, outcome: TaskRecord["outcome"]): void {
    this.sink.taskRecord({ key: task.key, prefix: task.prefix, worker: this.address, thread, start, end: context.clock.now(), outcome });
  }
}
