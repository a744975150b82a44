// The outstanding GatherDeps of one worker state: for each peer, the tasks its GatherDep was
// sent for (what the returning gather walks), the public worker → keys view of them, and
// the tasks still coming (the public `inFlightTasks`).
import type { Key } from "./events.js";
import type { TaskState } from "./task-state.js";

export class InFlightGathers {
  /**
   * worker → the TaskStates of its outstanding GatherDep, in the order of its keys: the
   * returning gather walks these instead of looking each key up in `tasks` again (a hashed
   * lookup in a Map of every task per gathered key: 3 % of W2).
   */
  private readonly sent = new Map<string, readonly TaskState[]>();
  /**
   * The public `inFlightWorkers` (worker → the keys of its GatherDep): built from `sent`
   * the first time anything reads it, and kept up to date from then on. Until then nobody
   * can hold it, and a Set of keys per GatherDep (W2: 408 Sets of 50 keys per run) would be
   * built for nothing.
   */
  private index: Map<string, Set<Key>> | null = null;

  /**
   * How many tasks are in flight: those whose `comingFrom` is set (validateFlight), which
   * only `arrive` and `depart` write. Each is in the list sent to its `comingFrom`.
   */
  private tasksInFlight = 0;
  /**
   * The public `inFlightTasks`: built from `sent` the first time anything reads it, and kept
   * up to date from then on. Until then a Set add and delete per gathered key (W2: 20,000 of
   * each per run, with the Set growing to 400 and shrinking back every round) would keep a
   * Set nothing reads.
   */
  private taskIndex: Set<TaskState> | null = null;

  get size(): number {
    return this.sent.size;
  }

  get taskCount(): number {
    return this.tasksInFlight;
  }

  /** `ts` is now coming from `worker` (whose GatherDep lists it). */
  arrive(ts: TaskState, worker: string): void {
    if (ts.comingFrom === null) this.tasksInFlight++;
    ts.comingFrom = worker;
    if (this.taskIndex !== null) this.taskIndex.add(ts);
  }

  /** `ts` is no longer coming from anywhere (returned, scattered meanwhile, or purged). */
  depart(ts: TaskState): void {
    if (ts.comingFrom === null) return;
    ts.comingFrom = null;
    this.tasksInFlight--;
    if (this.taskIndex !== null) this.taskIndex.delete(ts);
  }

  /** The tasks in flight (built when first read). */
  get tasks(): Set<TaskState> {
    let index = this.taskIndex;
    if (index === null) {
      index = new Set();
      for (const [worker, tasks] of this.sent) {
        for (let i = 0; i < tasks.length; i++) {
          const ts = tasks[i] as TaskState;
          if (ts.comingFrom === worker) index.add(ts);
        }
      }
      this.taskIndex = index;
    }
    return index;
  }

  has(worker: string): boolean {
    return this.sent.has(worker);
  }

  set(worker: string, tasks: readonly TaskState[]): void {
    this.sent.set(worker, tasks);
    if (this.index !== null) this.index.set(worker, keysOf(tasks));
  }

  /** Forget `worker`'s GatherDep; the tasks it was sent for (undefined: none outstanding). */
  take(worker: string): readonly TaskState[] | undefined {
    const tasks = this.sent.get(worker);
    if (tasks === undefined) return undefined;
    this.sent.delete(worker);
    if (this.index !== null) this.index.delete(worker);
    return tasks;
  }

  /** worker → the keys of its outstanding GatherDep, in the order they were sent. */
  get keysByWorker(): Map<string, Set<Key>> {
    let index = this.index;
    if (index === null) {
      index = new Map();
      for (const [worker, tasks] of this.sent) index.set(worker, keysOf(tasks));
      this.index = index;
    }
    return index;
  }
}

function keysOf(tasks: readonly TaskState[]): Set<Key> {
  const keys = new Set<Key>();
  for (let i = 0; i < tasks.length; i++) keys.add((tasks[i] as TaskState).key);
  return keys;
}
