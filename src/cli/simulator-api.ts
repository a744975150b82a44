import type { SimOptions, SimResult } from "../sim/report.js";

// What the command needs from the simulator and the spans module, behind one narrow interface:
// main() takes it as a parameter so tests can run the command in-process against a fake, and
// the real one (simulator-adapter.ts) is the only place that knows the simulator's module layout.

export interface WorkloadListing {
  name: string;
  description: string;
}

/** A workload ready to run: a built-in one or a validated spec file. */
export interface Workload {
  name: string;
  /** One line about its size and shape, e.g. "3 task groups, 1,250 tasks". */
  outline: string;
  /** The validated spec, opaque to the command. */
  spec: unknown;
  /** The spec file as the user named it; absent for a built-in workload. */
  file?: string;
}

export interface SimulatorApi {
  listWorkloads(): readonly WorkloadListing[];
  /** The built-in workload of that name, or undefined. */
  builtInWorkload(name: string): Workload | undefined;
  /**
   * Reads and validates a JSON or YAML spec at an absolute `path`; throws SpecProblemsError naming
   * each problem and its path within the spec, the file shown as `displayPath` (what the user typed).
   */
  loadWorkloadFile(path: string, displayPath: string): Workload;
  simulate(workload: Workload, options: SimOptions): Promise<SimResult>;
  /** The Chrome trace-event JSON of the run's span records (needs `collectSpans`). */
  chromeTrace(result: SimResult): unknown;
}
