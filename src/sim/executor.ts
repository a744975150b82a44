// The simulated workers' executor: the Worker's SimulatedExecutor (task models on the
// virtual clock), wrapped to write the report's task records without asking the Worker
// for a span record per root.
import type { WorkerState } from "../state/index.js";
import { Reschedule } from "../worker/errors.js";
import { SimulatedExecutor, TaskModelFailure } from "../worker/simulated-executor.js";
import type { ExecuteContext, ExecuteRequest, ExecuteResult, Executor } from "../worker/types.js";
import type { TaskRecord } from "./report.js";

export interface TaskRecordSink {
  taskRecord(record: TaskRecord): void;
  /** An injected fault fired (task-failure: the task model raised). */
  countFault(kind: string, time: number): void;
}

export class RecordingExecutor implements Executor {
  private readonly inner = new SimulatedExecutor();
  /** Like the SimulatedExecutor it wraps: records under `context.span` only. */
  readonly explicitSpans = true;
  /** Set once the Worker exists (it is built with this executor). */
  state: WorkerState | null = null;

  constructor(
    private readonly address: string,
    private readonly sink: TaskRecordSink,
  ) {}

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

  /** The Worker discards the result of a task released while it ran (state cancelled). */
  private discarded(task: ExecuteRequest): boolean {
    return this.state?.tasks.get(task.key)?.state === "cancelled";
  }

  private record(task: ExecuteRequest, context: ExecuteContext, thread: number, start: number, outcome: TaskRecord["outcome"]): void {
    this.sink.taskRecord({ key: task.key, prefix: task.prefix, worker: this.address, thread, start, end: context.clock.now(), outcome });
  }
}
