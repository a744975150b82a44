// Flattening a span tree into series: one entry per (path, unit), exclusive times in whole
// quanta (see float.ts) so that every sum is exact. Shared by `flat()`,
// `toDigestMetrics()` and the registry's scrape, which differ only in how they name the
// root's own time and whether open nodes are evaluated up to a given time.
//
// This runs once per finished task, so it avoids building strings and arrays: paths are
// interned (paths.ts), equal series are found by comparing path nodes (a linear scan while
// a tree has few series, an index beyond that), and keys are made only when needed.
import { fromQuanta, quantaBetween, toQuanta } from "./float.js";
import { SERIES_SEPARATOR, seriesKey } from "./keys.js";
import { ROOT_PATH, type PathNode } from "./paths.js";
import { SECONDS, THREAD_CPU, THREAD_NONCPU, type FlatMetric, type SpanTreeNode } from "./types.js";

export { SERIES_SEPARATOR, seriesKey };

export class Series {
  constructor(
    readonly node: PathNode,
    readonly unit: string,
    /** Time series hold whole quanta; metric series hold their float sum. */
    readonly isTime: boolean,
    public amount: number,
  ) {}

  /** Frozen name segments of the series' path. */
  get path(): readonly string[] {
    return this.node.path;
  }

  /** Key in `SpanRecord.exported`. */
  get key(): string {
    return this.node.keyWith(this.unit);
  }
}

/** Pair of series holding one CPU-split node path. */
export interface SplitPair {
  readonly cpu: Series;
  readonly noncpu: Series;
}

export interface Breakdown {
  readonly series: Series[];
  readonly splits: readonly SplitPair[];
}

export interface CollectOptions {
  /** Evaluate open nodes up to this time; without it every node must have ended. */
  readonly now?: number | undefined;
  /** Name the root's own time `[...rootPath, rootActivity]` (DigestMetrics use `other`). */
  readonly rootActivity?: string | undefined;
}

/** Up to this many series, duplicates are found by a linear scan. */
const LINEAR_SCAN_LIMIT = 24;
const NO_SPLITS: readonly SplitPair[] = Object.freeze([]);

function samePath(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i -= 1) if (a[i] !== b[i]) return false;
  return true;
}

class Collector {
  readonly series: Series[] = [];
  #index: Map<string, Series> | undefined = undefined;
  splits: SplitPair[] | undefined = undefined;
  cpuOfLastNode = 0;

  constructor(
    readonly base: number,
    readonly now: number | undefined,
    readonly rootActivity: string | undefined,
  ) {}

  add(node: PathNode, unit: string, isTime: boolean, amount: number): Series {
    const series = this.series;
    let entry: Series | undefined;
    if (this.#index !== undefined) {
      entry = this.#index.get(node.keyWith(unit));
    } else {
      for (let i = 0; i < series.length; i += 1) {
        const candidate = series[i]!;
        if (candidate.unit !== unit) continue;
        const other = candidate.node;
        if (other === node || ((!other.interned || !node.interned) && samePath(other.path, node.path))) {
          entry = candidate;
          break;
        }
      }
    }
    if (entry !== undefined) {
      entry.amount += amount;
      return entry;
    }
    entry = new Series(node, unit, isTime, amount);
    series.push(entry);
    if (this.#index !== undefined) {
      this.#index.set(entry.key, entry);
    } else if (series.length > LINEAR_SCAN_LIMIT) {
      this.#index = new Map(series.map((s) => [s.key, s]));
    }
    return entry;
  }
}

function describe(path: readonly string[]): string {
  return path.length === 0 ? "(unnamed span)" : path.join("/");
}

/** Returns the node's duration in quanta; leaves its inclusive CPU quanta in `cpuOfLastNode`. */
function walk(node: SpanTreeNode, parentPath: PathNode, isRoot: boolean, out: Collector): number {
  const start = node.startTime;
  const segments = node.name;
  const path = segments.length === 0 ? parentPath : parentPath.descend(segments);
  const now = out.now;
  if (start === undefined || (now !== undefined && start > now)) {
    out.cpuOfLastNode = 0;
    return 0;
  }
  let end = node.endTime;
  if (end === undefined) {
    if (now === undefined) {
      throw new Error(`span ${describe(path.path)} is still open: end it before flattening or exporting it`);
    }
    end = now;
  } else if (now !== undefined && end > now) {
    end = now;
  }
  const duration = quantaBetween(out.base, end) - quantaBetween(out.base, start);

  // Own entries first so that a flat list reads top-down; amounts are filled in below.
  const split = node.cpuSplit === true;
  let ownTime: Series | undefined;
  let cpuSeries: Series | undefined;
  let noncpuSeries: Series | undefined;
  if (split) {
    // A split node's own time is two activities under its path, even for a root.
    cpuSeries = out.add(path.child(THREAD_CPU), SECONDS, true, 0);
    noncpuSeries = out.add(path.child(THREAD_NONCPU), SECONDS, true, 0);
    (out.splits ??= []).push({ cpu: cpuSeries, noncpu: noncpuSeries });
  } else {
    const own = isRoot && out.rootActivity !== undefined ? path.child(out.rootActivity) : path;
    ownTime = out.add(own, SECONDS, true, 0);
  }
  const metrics = node.metrics;
  for (const unit in metrics) out.add(path, unit, false, metrics[unit]!);

  let childQuanta = 0;
  let childCpu = 0;
  const children = node.children;
  for (let i = 0; i < children.length; i += 1) {
    childQuanta += walk(children[i]!, path, false, out);
    childCpu += out.cpuOfLastNode;
  }
  const exclusive = duration - childQuanta;

  let cpu = childCpu;
  const cpuSeconds = node.cpuSeconds;
  if (cpuSeconds !== undefined) cpu = toQuanta(cpuSeconds);
  if (split) {
    // CPU comes from another clock: keep the wall-clock exclusive time exact and let CPU
    // only say how much of it was on-CPU.
    const cpuExclusive = Math.min(Math.max(cpu - childCpu, 0), Math.max(exclusive, 0));
    cpuSeries!.amount += cpuExclusive;
    noncpuSeries!.amount += exclusive - cpuExclusive;
  } else {
    ownTime!.amount += exclusive;
  }
  if (segments.length > 0 && node.attributes["aggregate"] === true) {
    const activity = ROOT_PATH.child(segments[segments.length - 1]!);
    out.add(activity, SECONDS, true, exclusive);
    for (const unit in metrics) out.add(activity, unit, false, metrics[unit]!);
  }
  out.cpuOfLastNode = cpu;
  return duration;
}

/** Flattens a tree into series (see `CollectOptions`). */
export function collectSeries(root: SpanTreeNode, options: CollectOptions = {}): Breakdown {
  if (root.startTime === undefined) {
    throw new Error(`span ${describe(root.name)} was never started`);
  }
  const out = new Collector(root.startTime, options.now, options.rootActivity);
  walk(root, ROOT_PATH, true, out);
  return { series: out.series, splits: out.splits ?? NO_SPLITS };
}

/** The value of a series in seconds or in its unit. */
export function seriesValue(entry: Series): number {
  return entry.isTime ? fromQuanta(entry.amount) : entry.amount;
}

/**
 * `FlatMetric[]` of a finished tree: one `seconds` entry per node path holding its
 * exclusive time, one entry per metric unit; equal (path, unit) entries summed.
 */
export function flat(spanOrRecord: SpanTreeNode): FlatMetric[] {
  const { series } = collectSeries(spanOrRecord);
  const result: FlatMetric[] = new Array<FlatMetric>(series.length);
  for (let i = 0; i < series.length; i += 1) {
    const entry = series[i]!;
    result[i] = { path: entry.path.slice(), unit: entry.unit, value: seriesValue(entry) };
  }
  return result;
}
