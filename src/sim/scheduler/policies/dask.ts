// dask/distributed 2022.12.1's placement (scheduler.md §5–§7): root-ish tasks queue on the
// scheduler and go to the least busy worker with a free slot (worker-saturation 1.1); other
// tasks go where they would start soonest among the holders of their dependencies
// (worker_objective), dependency-free ones round-robin over idle workers; work stealing
// rebalances every 100 ms; the active memory manager drops surplus copies every 2 s. Python's arbitrary set orders are address order here.
import type { ClusterView, DecisionOrigin, PolicyContext, PolicyEntry, ProcessingExit, QueueView, SchedulerPolicy, StealOutcome, Stimulus, WorkerStatus } from "../policy.js";
import { NO_WORKER, QUEUE } from "../policy.js";
import { bestByObjective } from "./dask-objective.js";
import { WorkStealing } from "./dask-stealing.js";
import { WorkerClasses } from "./dask-workers.js";

/** The stimuli after which dask pops its queue (stimulus_queue_slots_maybe_opened). */
const QUEUE_POPPING: ReadonlySet<Stimulus> = new Set<Stimulus>(["task-finished", "task-erred", "long-running", "unpause"]);

const NOTHING: readonly number[] = Object.freeze([]);

/** Per task group: what is_rootish needs (scheduler.md §6.2). */
interface GroupFigures {
  readonly size: Int32Array;
  /** Distinct dependency groups, the group itself included when its tasks depend on each other. */
  readonly dependencyGroups: Int32Array;
  /** Tasks in those dependency groups. */
  readonly dependencyTasks: Float64Array;
}

function groupFigures(cluster: ClusterView): GroupFigures {
  const g = cluster.graph;
  let groups = 0;
  for (let id = 0; id < g.size; id++) groups = Math.max(groups, g.group[id]! + 1);
  const size = new Int32Array(groups);
  for (let id = 0; id < g.size; id++) size[g.group[id]!]!++;
  const seen = Array.from({ length: groups }, () => new Set<number>());
  for (let id = 0; id < g.size; id++) {
    const own = seen[g.group[id]!]!;
    for (let e = g.depStart[id]!; e < g.depStart[id + 1]!; e++) own.add(g.group[g.deps[e]!]!);
  }
  const dependencyGroups = new Int32Array(groups);
  const dependencyTasks = new Float64Array(groups);
  for (let group = 0; group < groups; group++) {
    dependencyGroups[group] = seen[group]!.size;
    for (const other of seen[group]!) dependencyTasks[group]! += size[other]!;
  }
  return { size, dependencyGroups, dependencyTasks };
}

class DaskPolicy implements SchedulerPolicy {
  readonly balanceInterval: number;
  readonly reduceReplicasInterval: number | undefined;
  private readonly cluster: ClusterView;
  private readonly classes: WorkerClasses;
  private readonly stealing: WorkStealing | null;
  private readonly groups: GroupFigures;
  /** Worker-saturation inf only: dask's TaskGroup.last_worker / last_worker_tasks_left. */
  private readonly lastWorker: Int32Array;
  private readonly lastWorkerTasksLeft: Float64Array;
  private readonly unplaced: Int32Array;
  private readonly placedOnce: Uint8Array;
  private readonly candidates: number[] = [];
  private readonly mark: Uint8Array;
  private readonly rank: Int32Array;

  constructor(context: PolicyContext) {
    const cluster = context.cluster;
    this.cluster = cluster;
    const saturation = context.options["worker-saturation"];
    this.classes = new WorkerClasses(cluster, typeof saturation === "number" ? saturation : context.workerSaturation);
    this.stealing = context.options.stealing === false ? null : new WorkStealing(cluster, this.classes, context);
    const interval = context.options["stealing-interval"];
    this.balanceInterval = typeof interval === "number" ? interval : 0.1;
    if (this.stealing === null) this.balance = undefined;
    const amm = context.options["amm-interval"];
    this.reduceReplicasInterval = context.options.amm === false ? undefined : typeof amm === "number" ? amm : 2;
    this.groups = groupFigures(cluster);
    const groups = this.groups.size.length;
    this.lastWorker = new Int32Array(groups).fill(-1);
    this.lastWorkerTasksLeft = new Float64Array(groups);
    this.unplaced = Int32Array.from(this.groups.size);
    this.placedOnce = new Uint8Array(cluster.graph.size);
    this.mark = new Uint8Array(cluster.workers.length);
    this.rank = new Int32Array(cluster.workers.length);
    cluster.byAddress.forEach((w, i) => (this.rank[w] = i));
    // add_worker: every worker starts classified.
    for (const w of cluster.byAddress) this.classes.check(w);
  }

  balance: (() => void) | undefined = () => this.stealing!.balance();

  decideWorker(task: number, origin: DecisionOrigin): number {
    if (origin === "queued") return this.rootishQueuingEnabled();
    if (origin === "no-worker" || !this.isRootish(task)) return this.nonRootish(task);
    return this.classes.saturation === Infinity ? this.rootishQueuingDisabled(task) : this.rootishQueuingEnabled();
  }

  releaseQueued(stimulus: Stimulus, queue: QueueView): readonly number[] {
    if (!QUEUE_POPPING.has(stimulus) || queue.size === 0) return NOTHING;
    let slots = 0;
    for (const w of this.cluster.byAddress) if (this.classes.idleTaskCount[w] === 1) slots += this.classes.slots(w);
    if (slots <= 0) return NOTHING;
    // peekn(n) into a recommendations dict, drained last-in-first-out: the worst of the batch first.
    return queue.peek(slots).reverse();
  }

  onProcessing(task: number, worker: number): void {
    this.classes.check(worker);
    if (this.placedOnce[task] === 0) {
      this.placedOnce[task] = 1;
      this.unplaced[this.cluster.graph.group[task]!]!--;
    }
    this.stealing?.put(task);
  }

  onLeftProcessing(task: number, worker: number, exit: ProcessingExit): void {
    if (this.cluster.workers[worker]!.status !== "closed") this.classes.check(worker);
    if (this.stealing === null) return;
    this.stealing.remove(task);
    if (exit === "memory") this.stealing.prefixLearnt(this.cluster.prefixOf(task));
  }

  onLongRunning(task: number, worker: number): void {
    this.stealing?.remove(task);
    this.classes.check(worker);
  }

  onWorkerStatus(worker: number, status: WorkerStatus): void {
    if (status === "running") this.classes.check(worker);
    else if (status === "paused") this.classes.leftRunning(worker);
    else {
      this.classes.removed(worker);
      this.stealing?.workerRemoved(worker);
    }
  }

  onStealEnded(task: number, victim: number, thief: number, outcome: StealOutcome): void {
    this.stealing?.ended(task, victim, thief, outcome);
  }

  /** scheduler.py::is_rootish (no restrictions in the simulator). */
  private isRootish(task: number): boolean {
    const group = this.cluster.graph.group[task]!;
    return (
      this.groups.size[group]! > 2 * this.cluster.totalThreads &&
      this.groups.dependencyGroups[group]! < 5 &&
      this.groups.dependencyTasks[group]! < 5
    );
  }

  /** decide_worker_rootish_queuing_enabled: the least busy worker with a free slot. */
  private rootishQueuingEnabled(): number {
    const classes = this.classes;
    if (classes.idleTaskCountSize === 0) return QUEUE;
    let best = -1;
    let bestLoad = Infinity;
    for (const w of this.cluster.byAddress) {
      if (classes.idleTaskCount[w] === 0) continue;
      const ws = this.cluster.workers[w]!;
      const load = ws.processing.size / ws.nthreads;
      if (load < bestLoad) {
        best = w;
        bestLoad = load;
      }
    }
    return best;
  }

  /** decide_worker_rootish_queuing_disabled: batches of a group's tasks on one worker. */
  private rootishQueuingDisabled(task: number): number {
    const cluster = this.cluster;
    const pool = this.pool(true);
    if (pool.length === 0) return NO_WORKER;
    const group = cluster.graph.group[task]!;
    const last = this.lastWorker[group]!;
    let ws: number;
    if (last >= 0 && this.lastWorkerTasksLeft[group]! && cluster.workers[last]!.status === "running") {
      ws = last;
    } else {
      ws = bestByObjective(cluster, task, pool);
      this.lastWorkerTasksLeft[group] = Math.floor((this.groups.size[group]! / cluster.totalThreads) * cluster.workers[ws]!.nthreads);
    }
    this.lastWorker[group] = this.unplaced[group]! > 1 ? ws : -1;
    this.lastWorkerTasksLeft[group]! -= 1;
    return ws;
  }

  /** decide_worker_non_rootish, with decide_worker for tasks that have dependencies. */
  private nonRootish(task: number): number {
    const cluster = this.cluster;
    if (cluster.runningCount === 0) return NO_WORKER;
    const someoneNotRunning = cluster.runningCount < cluster.workerCount;
    const g = cluster.graph;
    if (g.depStart[task] !== g.depStart[task + 1] || someoneNotRunning) return this.decideAmongHolders(task, someoneNotRunning);
    // No dependencies, not root-ish (a small group), every worker running.
    const pool = this.pool(false);
    if (pool.length < 20) {
      let ws = pool[0]!;
      let occupancy = cluster.workers[ws]!.occupancy;
      for (let i = 1; i < pool.length; i++) {
        const o = cluster.workers[pool[i]!]!.occupancy;
        if (o < occupancy) {
          ws = pool[i]!;
          occupancy = o;
        }
      }
      if (occupancy === 0) {
        const start = cluster.assignments % pool.length;
        for (let i = 0; i < pool.length; i++) {
          const w = pool[(i + start) % pool.length]!;
          if (cluster.workers[w]!.occupancy === 0) {
            ws = w;
            break;
          }
        }
      }
      return ws;
    }
    return pool[cluster.assignments % pool.length]!;
  }

  /** The idle workers in address order, else every worker (`running` for the queuing-disabled path). */
  private pool(runningOnly: boolean): number[] {
    const pool: number[] = [];
    const order = this.cluster.byAddress;
    if (this.classes.idleCount > 0) {
      for (const w of order) if (this.classes.idle[w] === 1) pool.push(w);
      return pool;
    }
    for (const w of order) {
      const status = this.cluster.workers[w]!.status;
      if (status === "running" || (!runningOnly && status !== "closed")) pool.push(w);
    }
    return pool;
  }

  /** Module-level decide_worker: holders of the dependencies (∩ running when someone is not), the objective among several. */
  private decideAmongHolders(task: number, validIsRunning: boolean): number {
    const cluster = this.cluster;
    const g = cluster.graph;
    const candidates = this.candidates;
    candidates.length = 0;
    for (let e = g.depStart[task]!; e < g.depStart[task + 1]!; e++) {
      for (const w of cluster.whoHas(g.deps[e]!)) {
        if (this.mark[w] === 1) continue;
        if (validIsRunning && cluster.workers[w]!.status !== "running") continue;
        this.mark[w] = 1;
        candidates.push(w);
      }
    }
    for (const w of candidates) this.mark[w] = 0;
    if (candidates.length === 0) {
      for (const w of cluster.byAddress) if (cluster.workers[w]!.status === "running") candidates.push(w);
    }
    if (candidates.length === 0) return NO_WORKER;
    if (candidates.length === 1) return candidates[0]!;
    candidates.sort((a, b) => this.rank[a]! - this.rank[b]!);
    return bestByObjective(cluster, task, candidates);
  }
}

export const daskPolicy: PolicyEntry = {
  description: "dask 2022.12.1: root-ish queuing (worker-saturation 1.1), earliest start among dependency holders, work stealing every 100 ms",
  options: {
    stealing: { type: "boolean", default: true, description: "work stealing (distributed.scheduler.work-stealing)" },
    "stealing-interval": { type: "number", default: 0.1, description: "seconds between balance() calls (work-stealing-interval)" },
    "worker-saturation": { type: "number", description: "root-ish slots per thread, inf disables queuing (default: the run's, 1.1)" },
    amm: { type: "boolean", default: true, description: "the active memory manager's ReduceReplicas drops copies no waiter needs (active-memory-manager.start)" },
    "amm-interval": { type: "number", default: 2, description: "seconds between its rounds (active-memory-manager.interval)" },
  },
  create: (context) => new DaskPolicy(context),
};
