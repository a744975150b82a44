// A task graph in compact form: tasks are dense integer ids, edges in CSR arrays, so a
// million-task graph costs a few typed arrays rather than a million objects.
import { daskOrder } from "./dask-order.js";
import { formatLimit, LIMITS } from "./limits.js";

/** Raised for a graph that cannot run: a dependency cycle, an unknown key, a duplicate key. */
export class GraphError extends Error {
  override readonly name = "GraphError";
}

export interface TaskGraph {
  readonly name: string;
  /** Number of tasks; ids are 0 … size-1. */
  readonly size: number;
  readonly keys: readonly string[];
  /** Task prefix (dask's key_split) of each task; the strings are shared per group. */
  readonly prefix: readonly string[];
  /** Compute seconds of each task. */
  readonly duration: Float64Array;
  /** Output bytes of each task. */
  readonly nbytes: Float64Array;
  /** Fraction of the compute time spent on CPU (the rest is thread-noncpu), 0…1. */
  readonly cpuShare: Float64Array;
  /** 1: the task's CPU part holds its worker's GIL (gil.ts); 0: it releases it. */
  readonly gil: Uint8Array;
  /** Whether any task holds the GIL (no lock is modelled otherwise). */
  readonly anyGil: boolean;
  /** Bytes/s at which each task builds its output as CPU work inside its duration (docs/sim.md, "Tasks that build their output"); 0: it does not. */
  readonly buildBandwidth: Float64Array;
  /** Seconds each task's build costs beyond its bytes (a build: buildLatency + nbytes / buildBandwidth); 0: none. */
  readonly buildLatency: Float64Array;
  /** Probability that one execution of the task raises. */
  readonly failureProbability: Float64Array;
  /** Dependencies of task i: deps[depStart[i] … depStart[i+1]-1]. */
  readonly depStart: Int32Array;
  readonly deps: Int32Array;
  /** Dependents of task i: dependents[dependentStart[i] … dependentStart[i+1]-1]. */
  readonly dependentStart: Int32Array;
  readonly dependents: Int32Array;
  /** 1 for the tasks whose results the client keeps (never freed). */
  readonly isOutput: Uint8Array;
  /** Scheduling priority rank of each task: lower runs first. dask.order.order's ranks, as
   * dask 2022.12.1's scheduler computes them (dask-order.ts). */
  readonly order: Int32Array;
  /** Number of tasks in each task's prefix group (for dask's root-ish test). */
  readonly groupSize: Int32Array;
  /** Total size of the other groups that each task's group depends on (dask's root-ish
   * test: a large group whose dependency groups hold fewer than 5 tasks). */
  readonly groupDependencyTasks: Int32Array;
  /** Dense index of each task's group (dask's TaskGroup: a collection layer; defaults to the
   * prefix), for policies that need group structure beyond the two figures above. */
  readonly group: Int32Array;
  idOf(key: string): number | undefined;
}

export interface TaskInit {
  key: string;
  prefix: string;
  duration: number;
  nbytes: number;
  cpuShare?: number;
  /** Its CPU part holds the GIL (default false). */
  gil?: boolean;
  /** Bytes/s it builds its output at, CPU work counted inside its duration (default: none). */
  buildBandwidth?: number;
  /** Seconds its build costs beyond its bytes (default 0). */
  buildLatency?: number;
  failureProbability?: number;
  /** Group the task belongs to, for the root-ish test; defaults to its prefix. */
  group?: string;
}

/** Grows a graph task by task and edge by edge, then freezes it into a TaskGraph. */
export class GraphBuilder {
  private readonly keys: string[] = [];
  private readonly prefixes: string[] = [];
  private readonly groups: string[] = [];
  private duration = new Float64Array(1024);
  private nbytes = new Float64Array(1024);
  private cpuShare = new Float64Array(1024);
  private gil = new Uint8Array(1024);
  private anyGil = false;
  private buildBandwidth = new Float64Array(1024);
  private buildLatency = new Float64Array(1024);
  private failureProbability = new Float64Array(1024);
  private edgeTask = new Int32Array(4096);
  private edgeDep = new Int32Array(4096);
  private edgeCount = 0;
  private readonly ids = new Map<string, number>();

  get size(): number {
    return this.keys.length;
  }

  idOf(key: string): number | undefined {
    return this.ids.get(key);
  }

  prefixOf(id: number): string {
    return this.prefixes[id]!;
  }

  nbytesOf(id: number): number {
    return this.nbytes[id]!;
  }

  setNbytes(id: number, nbytes: number): void {
    this.nbytes[id] = nbytes;
  }

  addTask(init: TaskInit): number {
    if (this.ids.has(init.key)) throw new GraphError(`duplicate task key ${JSON.stringify(init.key)}`);
    const id = this.keys.length;
    if (id === LIMITS.tasks) throw new GraphError(`more than ${formatLimit(LIMITS.tasks)} tasks, the limit of a graph`);
    if (id === this.duration.length) this.growTasks();
    this.ids.set(init.key, id);
    this.keys.push(init.key);
    this.prefixes.push(init.prefix);
    this.groups.push(init.group ?? init.prefix);
    this.duration[id] = init.duration;
    this.nbytes[id] = init.nbytes;
    this.cpuShare[id] = init.cpuShare ?? 1;
    this.gil[id] = init.gil === true ? 1 : 0;
    if (init.gil === true) this.anyGil = true;
    this.buildBandwidth[id] = init.buildBandwidth ?? 0;
    this.buildLatency[id] = init.buildLatency ?? 0;
    this.failureProbability[id] = init.failureProbability ?? 0;
    return id;
  }

  /** Task `task` needs the output of task `dependency`. */
  addDependency(task: number, dependency: number): void {
    if (this.edgeCount === LIMITS.dependencies) throw new GraphError(`more than ${formatLimit(LIMITS.dependencies)} dependencies, the limit of a graph`);
    if (this.edgeCount === this.edgeTask.length) {
      this.edgeTask = grow(this.edgeTask);
      this.edgeDep = grow(this.edgeDep);
    }
    this.edgeTask[this.edgeCount] = task;
    this.edgeDep[this.edgeCount] = dependency;
    this.edgeCount++;
  }

  /**
   * Freezes the graph. `outputs` marks the tasks the client keeps (default: every task
   * that nothing depends on). Throws GraphError naming the keys of a dependency cycle.
   */
  build(name: string, outputs?: (id: number) => boolean): TaskGraph {
    const n = this.keys.length;
    if (n === 0) throw new GraphError(`workload "${name}" has no tasks`);
    const depStart = new Int32Array(n + 1);
    for (let e = 0; e < this.edgeCount; e++) depStart[(this.edgeTask[e] as number) + 1]!++;
    for (let i = 0; i < n; i++) depStart[i + 1]! += depStart[i]!;
    const deps = new Int32Array(this.edgeCount);
    const fill = depStart.slice(0, n);
    for (let e = 0; e < this.edgeCount; e++) {
      const task = this.edgeTask[e] as number;
      deps[fill[task]!++] = this.edgeDep[e] as number;
    }
    const { depStart: start, deps: unique } = dedupe(depStart, deps, n);

    const dependentStart = new Int32Array(n + 1);
    for (let e = 0; e < unique.length; e++) dependentStart[(unique[e] as number) + 1]!++;
    for (let i = 0; i < n; i++) dependentStart[i + 1]! += dependentStart[i]!;
    const dependents = new Int32Array(unique.length);
    const cursor = dependentStart.slice(0, n);
    for (let task = 0; task < n; task++) {
      for (let e = start[task]!; e < start[task + 1]!; e++) {
        const dep = unique[e] as number;
        dependents[cursor[dep]!++] = task;
      }
    }
    checkAcyclic(this.keys, start, unique, dependentStart, dependents);

    const isOutput = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const sink = dependentStart[i] === dependentStart[i + 1];
      isOutput[i] = (outputs === undefined ? sink : outputs(i)) ? 1 : 0;
    }
    const { groupSize, groupDependencyTasks, taskGroup } = groupStatistics(this.groups, start, unique);
    const ids = this.ids;
    return {
      name,
      size: n,
      keys: this.keys,
      prefix: this.prefixes,
      duration: this.duration.slice(0, n),
      nbytes: this.nbytes.slice(0, n),
      cpuShare: this.cpuShare.slice(0, n),
      gil: this.gil.slice(0, n),
      anyGil: this.anyGil,
      buildBandwidth: this.buildBandwidth.slice(0, n),
      buildLatency: this.buildLatency.slice(0, n),
      failureProbability: this.failureProbability.slice(0, n),
      depStart: start,
      deps: unique,
      dependentStart,
      dependents,
      isOutput,
      order: daskOrder({ size: n, keys: this.keys, depStart: start, deps: unique, dependentStart, dependents }),
      groupSize,
      groupDependencyTasks,
      group: taskGroup,
      idOf: (key) => ids.get(key),
    };
  }

  private growTasks(): void {
    this.duration = grow(this.duration);
    this.nbytes = grow(this.nbytes);
    this.cpuShare = grow(this.cpuShare);
    this.gil = grow(this.gil);
    this.buildBandwidth = grow(this.buildBandwidth);
    this.buildLatency = grow(this.buildLatency);
    this.failureProbability = grow(this.failureProbability);
  }
}

function grow<T extends Float64Array | Int32Array | Uint8Array>(array: T): T {
  const bigger = new (array.constructor as new (n: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** Sorts each task's dependency list and drops repeated edges. */
function dedupe(depStart: Int32Array, deps: Int32Array, n: number): { depStart: Int32Array; deps: Int32Array } {
  const outStart = new Int32Array(n + 1);
  const out = new Int32Array(deps.length);
  let w = 0;
  for (let task = 0; task < n; task++) {
    outStart[task] = w;
    const from = depStart[task]!;
    const to = depStart[task + 1]!;
    if (to - from > 1) deps.subarray(from, to).sort();
    let previous = -1;
    for (let e = from; e < to; e++) {
      const dep = deps[e]!;
      if (dep !== previous) out[w++] = dep;
      previous = dep;
    }
  }
  outStart[n] = w;
  return { depStart: outStart, deps: w === out.length ? out : out.slice(0, w) };
}

/** Kahn's algorithm; on failure walks the leftover tasks to name one actual cycle. */
function checkAcyclic(
  keys: readonly string[],
  depStart: Int32Array,
  deps: Int32Array,
  dependentStart: Int32Array,
  dependents: Int32Array,
): void {
  const n = keys.length;
  const remaining = new Int32Array(n);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    remaining[i] = depStart[i + 1]! - depStart[i]!;
    if (remaining[i] === 0) stack.push(i);
  }
  let visited = 0;
  while (stack.length > 0) {
    const task = stack.pop()!;
    visited++;
    for (let e = dependentStart[task]!; e < dependentStart[task + 1]!; e++) {
      const dependent = dependents[e]!;
      if (--remaining[dependent]! === 0) stack.push(dependent);
    }
  }
  if (visited === n) return;
  // Every leftover task has a leftover dependency; follow them until one repeats.
  let task = remaining.findIndex((r) => r > 0);
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  while (!seenAt.has(task)) {
    seenAt.set(task, path.length);
    path.push(task);
    let next = -1;
    for (let e = depStart[task]!; e < depStart[task + 1]!; e++) {
      if (remaining[deps[e]!]! > 0) {
        next = deps[e]!;
        break;
      }
    }
    task = next;
  }
  // The walk went from a task to one of its dependencies: start the cycle at its smallest id.
  const cycle = path.slice(seenAt.get(task)!);
  const first = cycle.indexOf(Math.min(...cycle));
  const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
  rotated.push(rotated[0]!);
  throw new GraphError(`dependency cycle (a → b: a needs b): ${rotated.map((t) => keys[t]).join(" → ")}`);
}

function groupStatistics(
  groups: readonly string[],
  depStart: Int32Array,
  deps: Int32Array,
): { groupSize: Int32Array; groupDependencyTasks: Int32Array; taskGroup: Int32Array } {
  const n = groups.length;
  const groupIndex = new Map<string, number>();
  const taskGroup = new Int32Array(n);
  const sizes: number[] = [];
  for (let i = 0; i < n; i++) {
    let g = groupIndex.get(groups[i]!);
    if (g === undefined) {
      g = sizes.length;
      groupIndex.set(groups[i]!, g);
      sizes.push(0);
    }
    taskGroup[i] = g;
    sizes[g]!++;
  }
  const dependencyGroups = sizes.map(() => new Set<number>());
  for (let i = 0; i < n; i++) {
    const own = taskGroup[i]!;
    for (let e = depStart[i]!; e < depStart[i + 1]!; e++) {
      const other = taskGroup[deps[e]!]!;
      if (other !== own) dependencyGroups[own]!.add(other);
    }
  }
  const dependencyTasks = dependencyGroups.map((set) => {
    let total = 0;
    for (const g of set) total += sizes[g]!;
    return total;
  });
  const groupSize = new Int32Array(n);
  const groupDependencyTasks = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    groupSize[i] = sizes[taskGroup[i]!]!;
    groupDependencyTasks[i] = Math.min(dependencyTasks[taskGroup[i]!]!, 2 ** 31 - 1);
  }
  return { groupSize, groupDependencyTasks, taskGroup };
}
