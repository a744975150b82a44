// Cumulative fine-metric totals of one worker, keyed by DigestMetric name + outcome, with a
// since-heartbeat delta view swapped atomically and a scrape that folds in the increments
// of work still in progress.
//
// Values are added with `+` and never scaled, so integer metrics (bytes, counts) stay exact
// integers. Zero increments are kept: a series that exists with value 0 says "this activity
// happened and took no (virtual) time".
import { IN_PROGRESS_OUTCOME, type MetricEntry } from "./types.js";

interface Series {
  readonly name: readonly string[];
  readonly outcome: string;
  value: number;
  /** Increment since the previous heartbeat (valid while the series is in the dirty list). */
  sinceHeartbeat: number;
  dirty: boolean;
}

/** An increment as the span machinery produces it (a DigestMetric is one). */
export interface MetricIncrement {
  readonly name: readonly string[];
  readonly value: number;
  readonly outcome?: string;
}

export interface MetricsStoreOptions {
  /**
   * Source of the increments accrued by work still in progress since the previous call
   * (e.g. `SpanRegistry.scrape`). `scrape()` and `takeSinceHeartbeat()` pull from it and file
   * the increments under the outcome `"running"`.
   */
  inProgress?: () => Iterable<MetricIncrement>;
}

// Series live in a trie keyed by name segment, then by outcome: a digest walks a few Map
// lookups and allocates nothing once its series exists (no joined string key per digest).
interface TrieNode {
  children: Map<string, TrieNode> | undefined;
  byOutcome: Map<string, Series> | undefined;
}

function newNode(): TrieNode {
  return { children: undefined, byOutcome: undefined };
}

const MAX_NAMES_BY_IDENTITY = 10_000;

export class MetricsStore {
  readonly #root: TrieNode = newNode();
  /** Trie node of a frozen name array, by identity (a frozen array's segments cannot change). */
  readonly #byName = new Map<readonly string[], TrieNode>();
  /** Every series in creation order. */
  readonly #series: Series[] = [];
  /** Series with a non-empty since-heartbeat increment, in first-dirtied order. */
  #dirty: Series[] = [];
  readonly #inProgress: (() => Iterable<MetricIncrement>) | undefined;

  constructor(options: MetricsStoreOptions = {}) {
    this.#inProgress = options.inProgress;
  }

  #find(name: readonly string[], outcome: string, create: boolean): Series | undefined {
    let node: TrieNode | undefined = this.#byName.get(name);
    if (node === undefined) {
      node = this.#root;
      for (let i = 0; i < name.length; i++) {
        const segment = name[i] as string;
        let child: TrieNode | undefined = node.children?.get(segment);
        if (child === undefined) {
          if (!create) return undefined;
          child = newNode();
          (node.children ??= new Map()).set(segment, child);
        }
        node = child;
      }
      // Span machinery hands out interned frozen names: remember their node by identity.
      if (Object.isFrozen(name)) {
        if (this.#byName.size >= MAX_NAMES_BY_IDENTITY) this.#byName.clear();
        this.#byName.set(name, node);
      }
    }
    let series = node.byOutcome?.get(outcome);
    if (series === undefined && create) {
      series = { name: Object.freeze(name.slice()), outcome, value: 0, sinceHeartbeat: 0, dirty: false };
      (node.byOutcome ??= new Map()).set(outcome, series);
      this.#series.push(series);
    }
    return series;
  }

  /** Adds `value` to the series `name` × `outcome` (cumulative and since-heartbeat). */
  digest(name: readonly string[], value: number, outcome = ""): void {
    if (name.length < 2) {
      throw new Error(`metric name must be [context, …, activity, unit], got ${JSON.stringify(name)}`);
    }
    if (typeof value !== "number" || Number.isNaN(value)) {
      throw new Error(`metric ${JSON.stringify(name)} got a non-numeric value ${String(value)}`);
    }
    const series = this.#find(name, outcome, true) as Series;
    series.value += value;
    if (series.dirty) series.sinceHeartbeat += value;
    else {
      series.dirty = true;
      series.sinceHeartbeat = value;
      this.#dirty.push(series);
    }
  }

  /** `digest` of an increment, using its own outcome unless `outcome` is given. */
  digestIncrement(increment: MetricIncrement, outcome?: string): void {
    this.digest(increment.name, increment.value, outcome ?? increment.outcome ?? "");
  }

  /** Pulls the in-progress increments (if a source was given) under the outcome "running". */
  collectInProgress(): void {
    if (this.#inProgress === undefined) return;
    for (const increment of this.#inProgress()) this.digestIncrement(increment, IN_PROGRESS_OUTCOME);
  }

  /** Cumulative totals of finished work (and of in-progress increments already collected). */
  totals(): MetricEntry[] {
    return this.#series.map((s) => ({ name: s.name, outcome: s.outcome, value: s.value }));
  }

  /** Cumulative totals including work in progress up to now; never counts anything twice. */
  scrape(): MetricEntry[] {
    this.collectInProgress();
    return this.totals();
  }

  /**
   * The deltas digested since the previous call, including in-progress increments up to
   * now. Taken synchronously in one go: anything digested afterwards (e.g. while the
   * heartbeat is being sent) goes to the next heartbeat.
   */
  takeSinceHeartbeat(): MetricEntry[] {
    this.collectInProgress();
    const taken = this.#dirty;
    this.#dirty = [];
    const out = new Array<MetricEntry>(taken.length);
    for (let i = 0; i < taken.length; i++) {
      const s = taken[i] as Series;
      out[i] = { name: s.name, outcome: s.outcome, value: s.sinceHeartbeat };
      s.dirty = false;
      s.sinceHeartbeat = 0;
    }
    return out;
  }

  /** One series (`outcome` given) or the sum of `name` over all outcomes. */
  get(name: readonly string[], outcome?: string): number {
    if (outcome !== undefined) return this.#find(name, outcome, false)?.value ?? 0;
    let node: TrieNode | undefined = this.#root;
    for (const segment of name) {
      node = node.children?.get(segment);
      if (node === undefined) return 0;
    }
    let sum = 0;
    if (node.byOutcome !== undefined) for (const series of node.byOutcome.values()) sum += series.value;
    return sum;
  }

  /** Number of series. */
  get size(): number {
    return this.#series.length;
  }
}
