// What a worker's heartbeat tells the scheduler about its running tasks (dask's `executing`:
// key → seconds since it started): an Executor wrapper that remembers each start time.
import type { Key } from "../../state/index.js";
import type { ExecuteContext, ExecuteRequest, ExecuteResult, Executor } from "../../worker/types.js";

export class ExecutionTracker implements Executor {
  readonly explicitSpans: boolean;
  private readonly started = new Map<Key, number>();

  constructor(private readonly inner: Executor) {
    this.explicitSpans = inner.explicitSpans === true;
  }

  execute(task: ExecuteRequest, context: ExecuteContext): Promise<ExecuteResult> {
    const key = task.key;
    this.started.set(key, context.clock.now());
    return this.inner.execute(task, context).finally(() => this.started.delete(key));
  }

  /** Visits every executing task with its start time. */
  visit(visitor: (key: Key, start: number) => void): void {
    for (const [key, start] of this.started) visitor(key, start);
  }
}
