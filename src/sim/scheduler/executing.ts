// What a worker's heartbeat tells the scheduler about its running tasks (dask's `executing`:
// key → seconds since it started): an Executor wrapper that remembers each start time. Ended
// runs are forgotten when a heartbeat visits them (the worker's state says whether the task is
// still running), so a task costs one Map write and no extra promise.
import type { Key } from "../../state/index.js";
import type { ExecuteContext, ExecuteRequest, ExecuteResult, Executor } from "../../worker/types.js";

export class ExecutionTracker implements Executor {
  readonly explicitSpans: boolean;
  private readonly started = new Map<Key, number>();

  constructor(
    private readonly inner: Executor,
    /** True while the worker still runs `key` (executing or long-running). */
    private readonly running: (key: Key) => boolean,
  ) {
    this.explicitSpans = inner.explicitSpans === true;
  }

  execute(task: ExecuteRequest, context: ExecuteContext): Promise<ExecuteResult> {
    this.started.set(task.key, context.clock.now());
    return this.inner.execute(task, context);
  }

  /** Visits every running task with its start time. */
  visit(visitor: (key: Key, start: number) => void): void {
    for (const [key, start] of this.started) {
      if (this.running(key)) visitor(key, start);
      else this.started.delete(key);
    }
  }
}
