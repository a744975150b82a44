// dask 2022.12.1's work stealing (distributed/stealing.py, scheduler.md §7): every processing
// task sits in one of 15 cost levels of its worker (level 0: no dependencies; then by
// transfer time / compute time); every 100 ms `balance` moves tasks from saturated (or busy)
// workers to idle ones, cheapest levels first, when the thief would finish the task before
// the victim gets to it. The request/answer transaction is the core's (steal-request, the
// victim's steal-response); this keeps the costs of the steals in flight.
import type { ClusterView, PolicyContext, StealOutcome } from "../policy.js";
import { UNKNOWN_TASK_DURATION } from "../cluster.js";
import type { WorkerClasses } from "./dask-workers.js";
import { bestByObjective } from "./dask-objective.js";
import { mix32 } from "../../rng.js";

/** stealing.py's LATENCY: seconds charged to every move, to keep small tasks where they are. */
const LATENCY = 0.1;
const LEVELS = 15;
/** stealing.py's fast_tasks (2022.12.1): prefixes never stolen. */
const FAST_TASKS = new Set(["split-shuffle"]);

interface InFlight {
  victim: number;
  thief: number;
  victimDuration: number;
  thiefDuration: number;
}

export class WorkStealing {
  /** Per worker, 15 levels of stealable task ids (insertion order). */
  private readonly stealable: Array<Array<Set<number>>>;
  private readonly keyLevel: Int8Array;
  private readonly keyWorker: Int32Array;
  private readonly inFlight = new Map<number, InFlight>();
  private readonly inFlightOccupancy: Float64Array;
  private readonly inFlightTasks: Int32Array;
  /** Tasks whose cost was computed with the unknown duration, per prefix (scheduler.unknown_durations). */
  private readonly unknownDurations = new Map<number, Set<number>>();
  private readonly fastPrefix: Uint8Array;
  /** Per task, its place in Python's iteration order of a set of TaskStates (see hashOrder). */
  private readonly hash: Uint32Array;
  /** The snapshot of one stealable level being tried (`list(stealable)`), reused. */
  private readonly snapshot: number[] = [];

  constructor(
    private readonly cluster: ClusterView,
    private readonly classes: WorkerClasses,
    private readonly context: PolicyContext,
  ) {
    const workers = cluster.workers.length;
    this.stealable = Array.from({ length: workers }, () => Array.from({ length: LEVELS }, () => new Set<number>()));
    this.keyLevel = new Int8Array(cluster.graph.size).fill(-1);
    this.keyWorker = new Int32Array(cluster.graph.size);
    this.inFlightOccupancy = new Float64Array(workers);
    this.inFlightTasks = new Int32Array(workers);
    this.fastPrefix = Uint8Array.from(cluster.prefixNames, (name) => (FAST_TASKS.has(name) ? 1 : 0));
    this.hash = hashOrder(cluster.graph.size, Math.floor(context.random() * 2 ** 32));
  }

  /** scheduler.py::get_task_duration: the average, else 0.5 s (and re-level the task once its prefix is known). */
  taskDuration(task: number): number {
    const prefix = this.cluster.prefixOf(task);
    const average = this.cluster.durationAverage(prefix);
    if (average >= 0) return average;
    let tasks = this.unknownDurations.get(prefix);
    if (tasks === undefined) this.unknownDurations.set(prefix, (tasks = new Set()));
    tasks.add(task);
    return UNKNOWN_TASK_DURATION;
  }

  /** steal_time_ratio's level, or -1 when the task is never stolen. */
  private level(task: number): number {
    const cluster = this.cluster;
    const g = cluster.graph;
    if (this.fastPrefix[cluster.prefixOf(task)] === 1) return -1;
    if (g.depStart[task] === g.depStart[task + 1]) return 0;
    const compute = this.taskDuration(task);
    if (compute === 0) return -1;
    let bytes = 0;
    for (let e = g.depStart[task]!; e < g.depStart[task + 1]!; e++) bytes += cluster.nbytes(g.deps[e]!);
    const cost = (bytes / cluster.bandwidth + LATENCY) / compute;
    const level = roundHalfEven(Math.log2(cost) + 6);
    if (level < 1) return 1;
    return level >= LEVELS ? -1 : level;
  }

  put(task: number): void {
    const level = this.level(task);
    if (level < 0) return;
    const worker = this.cluster.processingOn(task);
    this.stealable[worker]![level]!.add(task);
    this.keyLevel[task] = level;
    this.keyWorker[task] = worker;
  }

  remove(task: number): void {
    const level = this.keyLevel[task]!;
    if (level < 0) return;
    this.stealable[this.keyWorker[task]!]![level]!.delete(task);
    this.keyLevel[task] = -1;
  }

  /** A task of `prefix` finished: tasks levelled with the unknown duration are levelled again. */
  prefixLearnt(prefix: number): void {
    const tasks = this.unknownDurations.get(prefix);
    if (tasks === undefined) return;
    this.unknownDurations.delete(prefix);
    for (const task of tasks) {
      if (this.cluster.processingOn(task) >= 0 && !this.inFlight.has(task)) {
        this.remove(task);
        this.put(task);
      }
    }
  }

  workerRemoved(worker: number): void {
    for (const level of this.stealable[worker]!) {
      for (const task of level) this.keyLevel[task] = -1;
      level.clear();
    }
  }

  /** The core's answer to one of our requests (or the task left processing first). */
  ended(task: number, victim: number, thief: number, outcome: StealOutcome): void {
    this.removeFromInFlight(task);
    if (outcome === "confirmed") {
      this.remove(task);
      this.put(task);
    }
    if (outcome !== "aborted") {
      this.classes.check(thief);
      this.classes.check(victim);
    }
  }

  private combinedOccupancy(worker: number): number {
    return this.cluster.workers[worker]!.occupancy + this.inFlightOccupancy[worker]!;
  }

  private combinedProcessing(worker: number): number {
    return this.cluster.workers[worker]!.processing.size + this.inFlightTasks[worker]!;
  }

  private removeFromInFlight(task: number): void {
    const info = this.inFlight.get(task);
    if (info === undefined) return;
    this.inFlight.delete(task);
    this.inFlightOccupancy[info.thief]! -= info.thiefDuration;
    this.inFlightOccupancy[info.victim]! += info.victimDuration;
    this.inFlightTasks[info.victim]!++;
    this.inFlightTasks[info.thief]!--;
    if (this.inFlight.size === 0) this.inFlightOccupancy.fill(0);
  }

  private moveTaskRequest(task: number, victim: number, thief: number): void {
    if (this.inFlight.has(task)) return;
    this.remove(task);
    const compute = this.taskDuration(task);
    const victimDuration = compute + this.cluster.commCost(task, victim);
    const thiefDuration = compute + this.cluster.commCost(task, thief);
    if (!this.context.requestSteal(task, thief)) return;
    this.inFlight.set(task, { victim, thief, victimDuration, thiefDuration });
    this.inFlightOccupancy[victim]! -= victimDuration;
    this.inFlightOccupancy[thief]! += thiefDuration;
    this.inFlightTasks[victim]!--;
    this.inFlightTasks[thief]!++;
  }

  /** stealing.py::balance. */
  balance(): void {
    const cluster = this.cluster;
    const classes = this.classes;
    // Thieves in address order (dask: a set; ties in min() go to the first).
    const thieves: number[] = [];
    for (const w of cluster.byAddress) if (classes.idle[w] === 1) thieves.push(w);
    if (thieves.length === 0 || thieves.length === cluster.workerCount) return;
    const isThief = new Uint8Array(cluster.workers.length);
    for (const w of thieves) isThief[w] = 1;
    let victims: number[] = [];
    if (classes.saturatedCount > 0) {
      for (const w of cluster.byAddress) if (classes.saturated[w] === 1) victims.push(w);
    } else {
      victims = this.topByOccupancy(10).filter(
        (w) => this.combinedOccupancy(w) > 0.2 && this.combinedProcessing(w) > cluster.workers[w]!.nthreads && isThief[w] === 0,
      );
      if (victims.length === 0) return;
    }
    if (victims.length < 20) {
      const occupancy = new Map(victims.map((w) => [w, this.combinedOccupancy(w)]));
      victims.sort((a, b) => occupancy.get(b)! - occupancy.get(a)!);
    }
    for (let level = 0; level < LEVELS; level++) {
      if (thieves.length === 0) break;
      for (const victim of victims) {
        const stealable = this.stealable[victim]![level]!;
        if (stealable.size === 0 || thieves.length === 0) continue;
        const snapshot = this.snapshot;
        snapshot.length = 0;
        for (const task of stealable) snapshot.push(task);
        if (snapshot.length > 1) snapshot.sort(this.byHash);
        for (const task of snapshot) {
          if (thieves.length === 0) break;
          if (this.keyLevel[task]! < 0 || cluster.processingOn(task) !== victim) {
            stealable.delete(task);
            continue;
          }
          const thief = this.thief(task, thieves);
          if (!cluster.workers[victim]!.processing.has(task)) {
            stealable.delete(task);
            continue;
          }
          const occThief = this.combinedOccupancy(thief);
          const occVictim = this.combinedOccupancy(victim);
          const commThief = cluster.commCost(task, thief);
          const commVictim = cluster.commCost(task, victim);
          const compute = this.taskDuration(task);
          if (occThief + commThief + compute <= occVictim - (commVictim + compute) / 2) {
            this.moveTaskRequest(task, victim, thief);
            if (!classes.unoccupied(thief, this.combinedOccupancy(thief), this.combinedProcessing(thief))) {
              thieves.splice(thieves.indexOf(thief), 1);
            }
            stealable.delete(task);
          }
        }
        classes.check(victim, this.combinedOccupancy(victim));
      }
    }
  }

  private readonly byHash = (a: number, b: number): number => this.hash[a]! - this.hash[b]!;

  /** _get_thief without restrictions: the thief where the task would start first. */
  private thief(task: number, thieves: readonly number[]): number {
    return bestByObjective(this.cluster, task, thieves);
  }

  /** tlz.topk(k, workers, combined occupancy): largest first, earlier (address order) first on ties. */
  private topByOccupancy(k: number): number[] {
    const ranked: Array<{ worker: number; occupancy: number }> = [];
    for (const w of this.cluster.byAddress) {
      if (this.cluster.workers[w]!.status === "closed") continue;
      ranked.push({ worker: w, occupancy: this.combinedOccupancy(w) });
    }
    ranked.sort((a, b) => b.occupancy - a.occupancy);
    return ranked.slice(0, k).map((entry) => entry.worker);
  }
}

/**
 * A stand-in for the order in which Python iterates a set of TaskStates: by hash, and a
 * TaskState's hash is its key's, which CPython salts per process (PYTHONHASHSEED) — an order
 * unrelated to when the tasks were assigned, fixed within a run. Here a seeded permutation
 * (`mix32` of id ^ salt). Insertion order would be wrong in a way that matters: the
 * oldest tasks of a victim are the ones it is already executing, so they would always be asked
 * for first and refused.
 */
export function hashOrder(tasks: number, salt: number): Uint32Array {
  const hash = new Uint32Array(tasks);
  for (let id = 0; id < tasks; id++) hash[id] = mix32(id ^ salt);
  return hash;
}

/** Python's round(): halves go to the even neighbour. */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
