// The sort keys of dask.order (dask-order.ts) as comparators: initial_stack_key,
// dependents_key, dependencies_key and finish_now_key of dask 2022.12.1's order.py, over the
// metrics (dask-order-metrics.ts) and the live count of each task's dependencies not yet
// ordered (num_needed, which the walk lowers as it goes).
import { pythonStrCompare } from "../util/python-str.js";
import type { OrderGraph, OrderMetrics } from "./dask-order-metrics.js";

const nDependents = (g: OrderGraph, x: number): number => g.dependentStart[x + 1]! - g.dependentStart[x]!;
const nDependencies = (g: OrderGraph, x: number): number => g.depStart[x + 1]! - g.depStart[x]!;

export class OrderKeys {
  constructor(
    private readonly g: OrderGraph,
    private readonly m: OrderMetrics,
    private readonly numNeeded: Int32Array,
  ) {}

  /** initial_stack_key (140-169): negative when a sorts before b. */
  readonly initial = (a: number, b: number): number => {
    const ma = this.m.maxDependencies[a]!;
    const mb = this.m.maxDependencies[b]!;
    if (ma !== mb) return ma > mb ? -1 : 1;
    const na = nDependents(this.g, a);
    const nb = nDependents(this.g, b);
    let x = na - this.m.maxHeights[a]!;
    let y = nb - this.m.maxHeights[b]!;
    if (x !== y) return x < y ? -1 : 1;
    x = this.m.minDependencies[a]!;
    y = this.m.minDependencies[b]!;
    if (x !== y) return x < y ? -1 : 1;
    x = na - this.m.minHeights[a]!;
    y = nb - this.m.minHeights[b]!;
    if (x !== y) return x < y ? -1 : 1;
    x = this.m.totalDependents[a]!;
    y = this.m.totalDependents[b]!;
    if (x !== y) return x > y ? -1 : 1;
    if (na !== nb) return na < nb ? -1 : 1;
    return pythonStrCompare(this.g.keys[a]!, this.g.keys[b]!);
  };

  /** dependents_key (174-186). */
  readonly dependents = (a: number, b: number): number => {
    const x = nDependents(this.g, a) - nDependencies(this.g, a) + this.numNeeded[a]!;
    const y = nDependents(this.g, b) - nDependencies(this.g, b) + this.numNeeded[b]!;
    if (x !== y) return x < y ? -1 : 1;
    const ha = this.m.minHeights[a]!;
    const hb = this.m.minHeights[b]!;
    if (ha !== hb) return ha > hb ? -1 : 1;
    return pythonStrCompare(this.g.keys[a]!, this.g.keys[b]!);
  };

  /** dependencies_key (188-218). */
  readonly dependencies = (a: number, b: number): number => {
    let x = this.m.maxDependencies[a]!;
    let y = this.m.maxDependencies[b]!;
    if (x !== y) return x > y ? -1 : 1;
    const na = nDependents(this.g, a);
    const nb = nDependents(this.g, b);
    x = na + this.m.maxHeights[a]!;
    y = nb + this.m.maxHeights[b]!;
    if (x !== y) return x < y ? -1 : 1;
    x = this.m.minDependencies[a]!;
    y = this.m.minDependencies[b]!;
    if (x !== y) return x < y ? -1 : 1;
    x = na + this.m.minHeights[a]!;
    y = nb + this.m.minHeights[b]!;
    if (x !== y) return x < y ? -1 : 1;
    x = this.m.totalDependencies[a]!;
    y = this.m.totalDependencies[b]!;
    if (x !== y) return x > y ? -1 : 1;
    x = na - nDependencies(this.g, a) + this.numNeeded[a]!;
    y = nb - nDependencies(this.g, b) + this.numNeeded[b]!;
    if (x !== y) return x < y ? -1 : 1;
    if (na !== nb) return na < nb ? -1 : 1;
    x = this.m.totalDependents[a]!;
    y = this.m.totalDependents[b]!;
    if (x !== y) return x < y ? -1 : 1;
    return pythonStrCompare(this.g.keys[a]!, this.g.keys[b]!);
  };

  /** finish_now_key (220-222). */
  readonly finishNow = (a: number, b: number): number => {
    const x = nDependencies(this.g, a);
    const y = nDependencies(this.g, b);
    if (x !== y) return x > y ? -1 : 1;
    return pythonStrCompare(this.g.keys[a]!, this.g.keys[b]!);
  };
}
