// dask.order.order of dask 2022.12.1, ported line by line: the static priorities the
// scheduler gives every task (distributed/scheduler.py 4266-4281 calls it on the graph's own
// dependencies). It follows /usr/lib/python3/dist-packages/dask/order.py (Debian's
// 2022.12.1+dfsg, the version the fidelity runs used): `order` 84-805, `graph_metrics`
// 808-936, `ndependencies` 939-982, `StrComparable` 985-1009. Names below are dask's.
//
// Where dask iterates a Python set, the result can depend on the process's string hash seed:
// a dependency list of ≥ 1000 pushed unsorted (order.py 357-363), a pool of ≥ 100 equal
// partition keys (585-603, 636-661, 734-741), ≥ 10000 leaves left (797-800). There this port
// iterates in id order (dependents ascending, dependencies as the graph holds them), which is
// one of the orders dask may take; everywhere else the result is dask's exactly
// (test/sim/dask-order.test.ts checks every fixture that is the same under several hash
// seeds). The metrics are dask-order-metrics.ts's, the sort keys dask-order-keys.ts's, the
// walk's bookkeeping and the steps it repeats dask-order-state.ts's; this file is the walk itself.
import { OrderKeys } from "./dask-order-keys.js";
import { graphMetrics, scaledGreater, type OrderGraph } from "./dask-order-metrics.js";
import { OrderState, type Pools } from "./dask-order-state.js";

export type { OrderGraph } from "./dask-order-metrics.js";

/** Rank of each task in dask.order.order (0 runs first). */
export function daskOrder(g: OrderGraph): Int32Array {
  return new DaskOrder(g).run();
}

class DaskOrder extends OrderState {
  run(): Int32Array {
    const n = this.n;
    if (n === 0) return new Int32Array(0);
    this.m = graphMetrics(this.graph);
    this.k = new OrderKeys(this.graph, this.m, this.numNeeded);
    const { result, seen, numNeeded } = this;
    const pk = this.m.partitionKeys;
    const roots: number[] = [];
    const leaves: number[] = [];
    for (let t = 0; t < n; t++) {
      if (this.nDependents(t) === 0) roots.push(t);
      if (this.nDependencies(t) === 0) leaves.push(t);
    }
    this.skipRootNode = roots.length === 1 && n > 1;
    const skipRoot = this.skipRootNode;
    this.root = skipRoot ? roots[0]! : -1;
    const isRoot = (x: number): boolean => skipRoot && x === this.root;

    let innerStack: number[] = [this.minBy(leaves, this.k.initial)];
    const innerStacks: number[][] = [];
    let nextNodes: Pools = new Map();
    let laterNodes: Pools = new Map();
    const outerStack: number[][] = [];
    if (skipRoot) seen[this.root] = 1;
    const singles = new Map<number, number>();
    const laterSingles: number[] = [];
    const push = (pools: Pools, key: number, vals: number[]): void => {
      const list = pools.get(key);
      if (list === undefined) pools.set(key, [vals]);
      else list.push(vals);
    };

    let initStack: number[] = leaves;
    let isInitSorted = false;
    let item = -1;
    let deps: number[] = [];
    let addToInnerStack = false;
    let processSingles = false;

    for (;;) {
      for (;;) {
        if (innerStack.length > 0) {
          item = innerStack.pop()!;
          if (result[item] !== -1) continue;
          if (numNeeded[item] !== 0) {
            if (!isRoot(item)) {
              innerStack.push(item);
              const d = this.notInResult(this.deps.subarray(this.depStart[item]!, this.depStart[item + 1]!));
              if (1 < d.length && d.length < 1000) this.sortDesc(d, this.k.dependencies);
              for (const x of d) {
                innerStack.push(x);
                seen[x] = 1;
              }
            }
            if (singles.size === 0) continue;
            processSingles = true;
          } else {
            deps = this.runAndFollow(item);
            addToInnerStack = !this.finishedNow;
            if (deps.length > 0) {
              for (const dep of deps) numNeeded[dep]!--;
              processSingles = false;
            } else continue;
          }
        } else if (innerStacks.length > 0) {
          innerStack = innerStacks.pop()!;
          continue;
        } else if (singles.size > 0) {
          processSingles = true;
        } else if (laterSingles.length > 0) {
          const acc = this.newUnion();
          for (let single of laterSingles) {
            if (result[single] !== -1) continue;
            for (;;) {
              const dep2 = this.runAndFollow(single);
              if (dep2.length > 0) {
                for (const dep of dep2) numNeeded[dep]!--;
                if (dep2.length === 1) {
                  single = dep2[0]!;
                  if (numNeeded[single] === 0) continue;
                }
                this.union(acc, dep2);
              }
              break;
            }
          }
          laterSingles.length = 0;
          deps = this.notInResult(acc);
          if (deps.length === 0) continue;
          addToInnerStack = false;
          processSingles = true;
        } else break;

        if (processSingles && singles.size > 0) {
          const acc = this.newUnion();
          addToInnerStack = innerStack.length > 0 || innerStacks.length > 0;
          for (const [first, parent] of singles) {
            let single = first;
            if (result[single] !== -1) continue;
            if (addToInnerStack && this.pendingDependents(parent) > 1) {
              laterSingles.push(single);
              continue;
            }
            for (;;) {
              let dep2 = this.runAndFollow(single);
              if (dep2.length > 0) {
                for (const dep of dep2) numNeeded[dep]!--;
                let alreadySeen = false;
                if (addToInnerStack) {
                  const seenPart = dep2.filter((x) => seen[x] === 1);
                  if (seenPart.length > 0) {
                    alreadySeen = true;
                    if (dep2.length === seenPart.length) {
                      if (seenPart.length === 1) {
                        single = seenPart[0]!;
                        if (numNeeded[single] === 0) continue;
                      }
                      break;
                    }
                    dep2 = dep2.filter((x) => seen[x] !== 1);
                  }
                }
                if (dep2.length === 1) {
                  const only = dep2[0]!;
                  if (numNeeded[only] === 0) {
                    if (!alreadySeen) {
                      single = only;
                      continue;
                    }
                    laterSingles.push(only);
                    break;
                  }
                }
                this.union(acc, dep2);
              }
              break;
            }
          }
          deps = this.notInResult(acc);
          singles.clear();
          if (deps.length === 0) continue;
          addToInnerStack = false;
        }

        // 530-771: partition the dependents.
        const seenCount = deps.reduce((c, x) => c + seen[x]!, 0);
        if (seenCount > 0) {
          if (deps.length === seenCount) {
            if (seenCount === 1) {
              const dep = deps[0]!;
              if (numNeeded[dep] === 0) singles.set(dep, item);
            }
            continue;
          }
          addToInnerStack = false;
          deps = deps.filter((x) => seen[x] !== 1);
        }

        if (deps.length === 1) {
          const dep = deps[0]!;
          let key: number;
          if (innerStack.length === 0) {
            if (addToInnerStack) {
              innerStack = [dep];
              seen[dep] = 1;
              continue;
            }
            key = pk[dep]!;
          } else {
            key = pk[dep]!;
            if (key < pk[innerStack[0]!]!) {
              innerStacks.push(innerStack);
              innerStack = [dep];
              seen[dep] = 1;
              continue;
            }
          }
          if (numNeeded[dep] === 0) singles.set(dep, item);
          else if (key < pk[item]!) push(nextNodes, key, deps);
          else push(laterNodes, key, deps);
        } else if (deps.length === 2) {
          let dep = deps[0]!;
          let dep2 = deps[1]!;
          let key = pk[dep]!;
          let key2 = pk[dep2]!;
          if (key2 < key || (key === key2 && this.k.dependents(dep2, dep) < 0)) {
            [dep, dep2] = [dep2, dep];
            [key, key2] = [key2, key];
          }
          if (innerStack.length > 0) {
            const prevKey = pk[innerStack[0]!]!;
            if (key2 < prevKey) {
              innerStacks.push(innerStack);
              innerStacks.push([dep2]);
              innerStack = [dep];
              seen[dep] = 1;
              seen[dep2] = 1;
              if (numNeeded[dep2] === 0) {
                if (processSingles) laterSingles.push(dep2);
                else singles.set(dep2, item);
              }
            } else if (key < prevKey) {
              innerStacks.push(innerStack);
              innerStack = [dep];
              seen[dep] = 1;
              if (numNeeded[dep2] === 0) {
                if (processSingles) laterSingles.push(dep2);
                else singles.set(dep2, item);
              } else if (key2 < pk[item]!) push(nextNodes, key2, [dep2]);
              else push(laterNodes, key2, [dep2]);
            } else this.twoLater(nextNodes, laterNodes, pk[item]!, dep, key, dep2, key2, push);
          } else if (addToInnerStack) {
            if (numNeeded[dep2] === 0) {
              innerStacks.push(innerStack);
              innerStack = [dep];
              seen[dep] = 1;
              singles.set(dep2, item);
            } else if (key === key2 && scaledGreater(this.m, 5, item, 22, dep)) {
              innerStacks.push(innerStack);
              innerStacks.push([dep2]);
              innerStack = [dep];
              seen[dep] = 1;
              seen[dep2] = 1;
            } else {
              innerStacks.push(innerStack);
              innerStack = [dep];
              seen[dep] = 1;
              if (key2 < pk[item]!) push(nextNodes, key2, [dep2]);
              else push(laterNodes, key2, [dep2]);
            }
          } else this.twoLater(nextNodes, laterNodes, pk[item]!, dep, key, dep2, key2, push);
        } else {
          const depPools = new Map<number, number[]>();
          for (const dep of deps) {
            const k = pk[dep]!;
            const pool = depPools.get(k);
            if (pool === undefined) depPools.set(k, [dep]);
            else pool.push(dep);
          }
          const itemKey = pk[item]!;
          if (innerStack.length > 0) {
            const prevKey = pk[innerStack[0]!]!;
            const nowKeys: number[] = [];
            for (const [k, vals] of depPools) {
              if (k < prevKey) nowKeys.push(k);
              else if (k < itemKey) push(nextNodes, k, vals);
              else push(laterNodes, k, vals);
            }
            if (nowKeys.length > 0) {
              innerStacks.push(innerStack);
              if (nowKeys.length > 1) nowKeys.sort((a, b) => b - a);
              for (const k of nowKeys) {
                const pool = depPools.get(k)!;
                if (1 < pool.length && pool.length < 100) this.sortDesc(pool, this.k.dependents);
                for (const dep of pool) {
                  innerStacks.push([dep]);
                  seen[dep] = 1;
                }
              }
              innerStack = innerStacks.pop()!;
            }
          } else {
            if (addToInnerStack) {
              let minKey = Infinity;
              for (const k of depPools.keys()) if (k < minKey) minKey = k;
              const minPool = depPools.get(minKey)!;
              depPools.delete(minKey);
              const len = minPool.length;
              if (len === 1) {
                innerStack = minPool;
                seen[minPool[0]!] = 1;
              } else if (scaledGreater(this.m, 10, item, 11 * len * len, minPool[0]!)) {
                if (len < 100) this.sortDesc(minPool, this.k.dependents);
                for (const dep of minPool) {
                  innerStacks.push([dep]);
                  seen[dep] = 1;
                }
                innerStack = innerStacks.pop()!;
              } else {
                innerStack = [len < 100 ? this.minBy(minPool, this.k.dependents) : minPool.pop()!];
                push(nextNodes, minKey, minPool);
                seen[innerStack[0]!] = 1;
              }
            }
            for (const [k, vals] of depPools) {
              if (k < itemKey) push(nextNodes, k, vals);
              else push(laterNodes, k, vals);
            }
          }
        }
      }

      if (this.i === n) break;

      if (nextNodes.size > 0) {
        const ks = [...nextNodes.keys()].sort((a, b) => b - a);
        for (const k of ks) {
          const lists = nextNodes.get(k)!;
          for (let j = lists.length - 1; j >= 0; j--) outerStack.push(lists[j]!);
        }
        nextNodes = new Map();
      }

      while (outerStack.length > 0) {
        const d = this.notInResult(outerStack.pop()!);
        if (d.length > 0) {
          if (1 < d.length && d.length < 100) this.sortDesc(d, this.k.dependents);
          for (const dep of d) {
            innerStacks.push([dep]);
            seen[dep] = 1;
          }
          break;
        }
      }

      if (innerStacks.length > 0) continue;

      if (laterNodes.size > 0) {
        [nextNodes, laterNodes] = [laterNodes, nextNodes];
        continue;
      }

      if (!isInitSorted) {
        const prevLen = initStack.length;
        initStack = this.notInResult(initStack);
        const N = initStack.length;
        const m = prevLen - N;
        if (m >= N || N + (N - m) * Math.log(N - m) < N * Math.log(N)) {
          item = this.minBy(initStack, this.k.initial);
          continue;
        }
        // At ≥ 10000 leaves dask pops them in its set's (hash) order (797-800): here in id order,
        // which costs no sort of a million keys.
        if (initStack.length < 10000) this.sortDesc(initStack, this.k.initial);
        else initStack.reverse();
        isInitSorted = true;
      }

      if (isRoot(item)) item = this.popInit(initStack);
      while (result[item] !== -1) item = this.popInit(initStack);
      innerStack.push(item);
    }
    return result;
  }
}
