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
    const build = buildSeconds(g.nbytes[id]!, g.buildBandwidth[id]!, g.buildLatency[id]!);
    const durations: Record<string, number> = {};
    let overrun = 0;
    if (build > 0) overrun = buildDurations(durations, duration, cpu, build, cpu < 1 ? this.overrun(duration) : 0);
    else {
      if (cpu > 0) durations["thread-cpu"] = duration * cpu;
      if (cpu < 1) durations["thread-noncpu"] = duration * (1 - cpu) + this.overrun(duration);
    }
    const fail = this.dice.taskFails(g.prefix[id]!, g.failureProbability[id]!, this.now());
    let model: TaskModel = fail
      ? { durations, outputBytes: g.nbytes[id]!, fail: `simulated failure of ${g.keys[id]}` }
      : { durations, outputBytes: g.nbytes[id]! };
    // Only a task that builds or holds the GIL carries the fields: the others' models stay as they were.
    if (build > 0) model = overrun > 0 ? { ...model, build, overrun } : { ...model, build };
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

/**
 * The CPU seconds of building an output of `nbytes`: a fixed `latency` per value (what a build
 * costs beyond its bytes: fidelity/tools/build_sizes.py fits it) plus the bytes at `bandwidth`
 * (0: no per-byte term). An output of 0 bytes is not built: it costs nothing.
 */
export function buildSeconds(nbytes: number, bandwidth: number, latency: number): number {
  if (nbytes <= 0) return 0;
  return latency + (bandwidth > 0 ? nbytes / bandwidth : 0);
}

/**
 * A task that builds its output (B seconds) first, as the fidelity tasks' `work` does: the
 * build is CPU counted inside the duration D, so the CPU part is c·D + B and the sleep what is
 * left, max(0, (1 − c)·D − B), late by `overrun` when there is one (no sleep, no lateness).
 * The task takes max(D, c·D + B) before any wait for a core. Returns the lateness the sleep carries.
 */
function buildDurations(durations: Record<string, number>, duration: number, cpu: number, build: number, overrun: number): number {
  durations["thread-cpu"] = duration * cpu + build;
  const rest = duration * (1 - cpu) - build;
  if (rest <= 0) return 0;
  durations["thread-noncpu"] = rest + overrun;
  return overrun;
}
