// The bookkeeping dask.order.order (dask 2022.12.1's order.py) keeps while it walks, and the
// steps the walk repeats on it: `result` and `i`, `seen`, `num_needed`, the single root skipped
// (skip_root_node, 392-396), the dependents set a task just run leaves (371-400), the sets dask
// builds with `|=` and `set_difference`, and where a pair of dependents waits (620-629,
// 680-689). In dask all of it is locals and inline code of `order`; here a class the walk
// (dask-order.ts) extends, so that file is order()'s loop alone and reads against dask's.
import type { OrderKeys } from "./dask-order-keys.js";
import type { OrderGraph, OrderMetrics } from "./dask-order-metrics.js";

/** next_nodes / later_nodes: partition key → the lists of dependents waiting under it. */
export type Pools = Map<number, number[][]>;

/** The walk's state over one graph (one `order` call); dask's names where it has them. */
export class OrderState {
  protected readonly n: number;
  protected readonly depStart: Int32Array;
  protected readonly deps: Int32Array;
  protected readonly dStart: Int32Array;
  protected readonly dents: Int32Array;
  protected readonly numNeeded: Int32Array;
  protected readonly result: Int32Array;
  protected readonly seen: Uint8Array;
  /** Set membership stamps for the unions dask builds with `|=`. */
  protected readonly mark: Int32Array;
  protected stamp = 0;
  /** 1: the single root was removed from this task's dependents set (order.py 392-396). */
  protected readonly rootRemoved: Uint8Array;
  /** dask's metrics of every task, computed when run() starts (graphMetrics). */
  protected m!: OrderMetrics;
  /** dask's sort keys over them (OrderKeys), made with the metrics. */
  protected k!: OrderKeys;
  protected readonly graph: OrderGraph;
  protected i = 0;
  protected skipRootNode = false;
  protected root = -1;
  /** Set by runAndFollow: ready root dependents ran at once (dask's finish_now), so nothing joins the inner stack. */
  protected finishedNow = false;

  constructor(g: OrderGraph) {
    const n = g.size;
    this.n = n;
    this.graph = g;
    this.depStart = g.depStart;
    this.deps = g.deps;
    this.dStart = g.dependentStart;
    this.dents = g.dependents;
    this.numNeeded = new Int32Array(n);
    for (let t = 0; t < n; t++) this.numNeeded[t] = g.depStart[t + 1]! - g.depStart[t]!;
    this.result = new Int32Array(n).fill(-1);
    this.seen = new Uint8Array(n);
    this.mark = new Int32Array(n);
    this.rootRemoved = new Uint8Array(n);
  }

  protected nDependents(x: number): number {
    return this.dStart[x + 1]! - this.dStart[x]!;
  }

  protected nDependencies(x: number): number {
    return this.depStart[x + 1]! - this.depStart[x]!;
  }

  protected sortDesc(list: number[], cmp: (a: number, b: number) => number): void {
    list.sort((a, b) => cmp(b, a));
  }

  protected minBy(list: Iterable<number>, cmp: (a: number, b: number) => number): number {
    let best = -1;
    for (const x of list) if (best === -1 || cmp(x, best) < 0) best = x;
    if (best === -1) throw new Error("dask.order: min() of an empty sequence");
    return best;
  }

  /** The dependents set of a task just run, as order.py 371-400 (and 417-438, 458-479)
   * leave it: ready root dependents run now, the skipped root is taken out. */
  protected runAndFollow(item: number): number[] {
    const { dStart, dents, result, numNeeded } = this;
    result[item] = this.i++;
    const out: number[] = [];
    if (this.m.minHeights[item] === 1) {
      const finishNow: number[] = [];
      for (let e = dStart[item]!; e < dStart[item + 1]!; e++) {
        const dep = dents[e]!;
        if (this.nDependents(dep) === 0 && numNeeded[dep] === 1) finishNow.push(dep);
        else out.push(dep);
      }
      if (finishNow.length > 0) {
        if (finishNow.length > 1) finishNow.sort(this.k.finishNow);
        for (const dep of finishNow) result[dep] = this.i++;
        this.finishedNow = true;
        return out;
      }
      this.finishedNow = false;
      if (this.skipRootNode) {
        numNeeded[this.root]!--;
        const at = out.indexOf(this.root);
        if (at < 0) throw new Error("dask.order: the single root is not a dependent (KeyError in dask)");
        out.splice(at, 1);
        this.rootRemoved[item] = 1;
      }
      return out;
    }
    this.finishedNow = false;
    for (let e = dStart[item]!; e < dStart[item + 1]!; e++) out.push(dents[e]!);
    return out;
  }

  /** set_difference(list, result), keeping the list's order. */
  protected notInResult(list: Iterable<number>): number[] {
    const out: number[] = [];
    for (const x of list) if (this.result[x] === -1) out.push(x);
    return out;
  }

  /** `into |= from` for a set begun with newUnion (its members stamped, so a test is O(1)). */
  protected union(into: number[], from: readonly number[]): void {
    for (const x of from) {
      if (this.mark[x] !== this.stamp) {
        this.mark[x] = this.stamp;
        into.push(x);
      }
    }
  }

  protected newUnion(): number[] {
    this.stamp++;
    return [];
  }

  /** len(set_difference(dependents[parent], result)) (order.py 452). */
  protected pendingDependents(parent: number): number {
    let count = 0;
    for (let e = this.dStart[parent]!; e < this.dStart[parent + 1]!; e++) {
      const d = this.dents[e]!;
      if (this.result[d] === -1 && !(this.rootRemoved[parent] === 1 && d === this.root)) count++;
    }
    return count;
  }

  /** init_stack.pop(): dask would raise on an empty stack, so the port does too. */
  protected popInit(stack: number[]): number {
    const x = stack.pop();
    if (x === undefined) throw new Error("dask.order: pop from an empty init stack");
    return x;
  }

  /** 620-629 and 680-689: both dependents wait in next_nodes or later_nodes. */
  protected twoLater(
    nextNodes: Pools,
    laterNodes: Pools,
    itemKey: number,
    dep: number,
    key: number,
    dep2: number,
    key2: number,
    push: (pools: Pools, key: number, vals: number[]) => void,
  ): void {
    if (key2 < itemKey) {
      push(nextNodes, key, [dep]);
      push(nextNodes, key2, [dep2]);
    } else if (key < itemKey) {
      push(nextNodes, key, [dep]);
      push(laterNodes, key2, [dep2]);
    } else {
      push(laterNodes, key, [dep]);
      push(laterNodes, key2, [dep2]);
    }
  }
}
