// Types of graph-tables.mjs for the TypeScript tests that replay a fidelity graph.
import type { Rng } from "../src/sim/rng.js";
import type { WorkloadSpec } from "../src/sim/index.js";

/** A task of a fidelity set's graphs/CASE.json (sim.mjs dump: the graph dask ran). */
export interface GraphTask {
  key: string;
  prefix: string;
  duration: number;
  nbytes: number;
  deps: string[];
  output: boolean;
}

/** What the table reads of the spec the graph came from: its name, its groups' ways of spending a duration, its cluster. */
export interface NominalSpec {
  readonly name?: string;
  readonly tasks?: readonly object[];
  readonly cluster?: unknown;
}

/** The graph as a spec's per-task table (a WorkloadSpec with `taskTable`). */
export type GraphTableSpec = WorkloadSpec & { taskTable: Array<Record<string, unknown>> };

export function graphTable(graph: { tasks: readonly GraphTask[] }, nominal: NominalSpec, durationOf: (task: GraphTask) => number): GraphTableSpec;
export function jitteredTable(rng: typeof Rng, graph: { tasks: readonly GraphTask[] }, nominal: NominalSpec, ms: number, seed: number): GraphTableSpec;
