import type { ClusterProfile } from "../sim/cluster-spec.js";
import type { SimOptions, SimResult } from "../sim/report.js";
import type { WorkloadSpec } from "../sim/spec.js";
import type { Workload } from "../sim/workloads/index.js";

// What the command needs from the simulator and the spans module, behind one narrow interface:
// main() takes it as a parameter so tests can run the command in-process against a fake, and
// the real one (simulator-adapter.ts) is the only place that knows the simulator's module layout.

export interface WorkloadListing {
  name: string;
  description: string;
}

/** A workload the command can run: a built-in one, or a spec file validated and compiled once. */
export interface CliWorkload {
  name: string;
  /** One line about its size and shape, e.g. "3 task groups, 1,250 tasks". */
  outline: string;
  /** What the simulator runs: a built-in workload's name (generated with the run's options),
   * or the graph compiled from the spec file (simulate() takes it as it is). */
  input: string | Workload;
  /** The spec file as the user named it; absent for a built-in workload. */
  file?: string;
  /** The validated spec of a spec file, for commands that compile it per seed elsewhere (the sweep's threads). */
  spec?: WorkloadSpec;
}

export interface SimulatorApi {
  listWorkloads(): readonly WorkloadListing[];
  /** The built-in workload of that name, or undefined. */
  builtInWorkload(name: string): CliWorkload | undefined;
  /**
   * Reads, validates and compiles a JSON or YAML spec at an absolute `path` (its random draws
   * from `seed`, the simulator's default when absent); throws SpecProblemsError naming each
   * problem and its path within the spec, the file shown as `displayPath` (what the user typed).
   */
  loadWorkloadFile(path: string, displayPath: string, options?: { seed?: number }): CliWorkload;
  /** Reads and validates a cluster profile at an absolute `path`; throws SpecProblemsError naming each problem (the file shown as `displayPath`). */
  loadClusterProfile(path: string, displayPath: string): ClusterProfile;
  simulate(workload: CliWorkload, options: SimOptions): Promise<SimResult>;
  /** The Chrome trace-event JSON of the run's span records (needs `collectSpans`). */
  chromeTrace(result: SimResult): unknown;
}
