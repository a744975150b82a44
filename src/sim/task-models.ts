// What each task of a graph does on its worker's simulated executor: its CPU and non-CPU
// seconds, its output size, and whether the fault plan fails it this time.
import type { FaultDice } from "./faults.js";
import type { TaskGraph } from "./graph.js";
import { Rng } from "./rng.js";
import type { TaskModel } from "./simulated-executor.js";

export class TaskModels {
  private readonly overrunDice: Rng;

  /** `taskOverrun`: the overheads' mean lateness of a task's non-CPU part, seconds. */
  constructor(
    private readonly graph: TaskGraph,
    private readonly taskOverrun: number,
    private readonly dice: FaultDice,
    seed: number,
    private readonly now: () => number,
  ) {
    this.overrunDice = Rng.derive(seed, "task-overrun");
  }

  model(id: number): TaskModel {
    const g = this.graph;
    const duration = g.duration[id]!;
    const cpu = g.cpuShare[id]!;
    const durations: Record<string, number> = {};
    if (cpu > 0) durations["thread-cpu"] = duration * cpu;
    if (cpu < 1) durations["thread-noncpu"] = duration * (1 - cpu) + this.overrun(duration);
    const fail = this.dice.taskFails(g.prefix[id]!, g.failureProbability[id]!, this.now());
    const model: TaskModel = fail
      ? { durations, outputBytes: g.nbytes[id]!, fail: `simulated failure of ${g.keys[id]}` }
      : { durations, outputBytes: g.nbytes[id]! };
    // Only a GIL-bound task carries the field: the others' models stay as they were.
    return g.gil[id] === 1 ? { ...model, gil: true } : model;
  }

  /**
   * How late a task's sleep ends: exponential with taskOverrun as its mean (a wait for a core
   * is memoryless; dask's measured overruns have a long tail, median below the mean). Drawn
   * from a stream of its own, so the other random choices of a run stay put, and not at all
   * when taskOverrun is 0. CPU work and zero-length tasks do not sleep.
   */
  private overrun(duration: number): number {
    if (this.taskOverrun === 0 || duration === 0) return 0;
    return -this.taskOverrun * Math.log(1 - this.overrunDice.random());
  }
}
