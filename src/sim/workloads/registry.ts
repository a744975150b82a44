// The built-in workloads, by name, in `spanwork list` order: the CLI's list, its "unknown
// workload" message and simulate("name") all derive from this object. A new workload is one
// new file exporting its BuiltInWorkload plus one line here.
import { registryNames, type Registry } from "../../util/registry.js";
import { chainWorkload } from "./chain.js";
import { mapWorkload } from "./map.js";
import { randomDagWorkload } from "./random-dag.js";
import { shuffleWorkload } from "./shuffle.js";
import { spillPressureWorkload } from "./spill-pressure.js";
import { treeReduceWorkload } from "./tree-reduce.js";
import type { BuiltInWorkload } from "./workload.js";

export const BUILT_IN_WORKLOADS = {
  map: mapWorkload,
  "tree-reduce": treeReduceWorkload,
  shuffle: shuffleWorkload,
  chain: chainWorkload,
  "random-dag": randomDagWorkload,
  "spill-pressure": spillPressureWorkload,
} as const satisfies Registry<BuiltInWorkload>;

export type BuiltInWorkloadName = keyof typeof BUILT_IN_WORKLOADS;

export const BUILT_IN_WORKLOAD_NAMES = registryNames(BUILT_IN_WORKLOADS);

/** Built-in workloads by name, in `spanwork list` order. */
export const builtInWorkloads: Readonly<Record<string, BuiltInWorkload>> = Object.freeze(BUILT_IN_WORKLOADS);
