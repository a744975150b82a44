// One run of a sweep, start to line: the same function in a pool thread (sweep-worker.ts) and
// in a plain loop (the benchmark's baseline), so the two measure the same work.
import { simulate } from "../sim/simulate.js";
import type { SweepRun } from "./plan.js";
import { failedResult, resultFromReport, type SweepResult } from "./result.js";

export interface SweepTask {
  run: SweepRun;
  version: string;
}

/** Never rejects: a run that raises becomes a failed result with its error and seed. */
export async function runSweepTask(task: SweepTask): Promise<SweepResult> {
  try {
    const { report } = await simulate(task.run.input, task.run.simOptions);
    return resultFromReport(task.run, report, task.version);
  } catch (error) {
    return failedResult(task.run, error, task.version);
  }
}
