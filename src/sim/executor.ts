// The simulated workers' executor: the Worker's SimulatedExecutor (task models on the
// virtual clock), wrapped to write the report's task records without asking the Worker
// for a span record per root.
import type { WorkerState } from "../state/index.js";
import { Reschedule } from "../worker/errors.js";
import { SimulatedExecutor } from "../worker/simulated-executor.js";
import type { ExecuteContext, ExecuteRequest, ExecuteResult, Executor } from "../worker/types.js";
import type { TaskRecord } from "./report.js";

export interface TaskRecordSink {
  taskRecord(record: TaskRecord): void;
}

export class RecordingExecutor implements Executor {
  private readonly inner = new SimulatedExecutor();
  /** Set once the Worker exists (it is built with this executor). */
  state: WorkerState | null = null;

  constructor(
    private readonly address: string,
    private readonly sink: TaskRecordSink,
  ) {}

  async execute(task: ExecuteRequest, context: ExecuteContext): Promise<ExecuteResult> {
    const start = context.clock.now();
    const thread = Number(context.span.attributes.thread ?? 0);
    let outcome: TaskRecord["outcome"] = "ok";
    try {
      const result = await this.inner.execute(task, context);
      // The Worker discards the result of a task released while it ran (state cancelled).
      if (this.state?.tasks.get(task.key)?.state === "cancelled") outcome = "cancelled";
      return result;
    } catch (error) {
      outcome = context.signal.aborted ? "cancelled" : error instanceof Reschedule ? "rescheduled" : "failed";
      if (outcome === "failed" && this.state?.tasks.get(task.key)?.state === "cancelled") outcome = "cancelled";
      throw error;
    } finally {
      this.sink.taskRecord({ key: task.key, prefix: task.prefix, worker: this.address, thread, start, end: context.clock.now(), outcome });
    }
  }
}
