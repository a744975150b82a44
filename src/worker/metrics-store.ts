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

const SEPARATOR = "\u001f";
const OUTCOME_SEPARATOR = "\u001e";

function seriesKey(name: readonly string[], outcome: string): string {
  return name.join(SEPARATOR) + OUTCOME_SEPARATOR + outcome;
}

function add(map: Map<string, Series>, key: string, name: readonly string[], outcome: string, value: number): void {
  const series = map.get(key);
  if (series === undefined) map.set(key, { name, outcome, value });
  else series.value += value;
}

function entries(map: ReadonlyMap<string, Series>): MetricEntry[] {
  const out: MetricEntry[] = [];
  for (const s of map.values()) out.push({ name: s.name, outcome: s.outcome, value: s.value });
  return out;
}

export class MetricsStore {
  readonly #totals = new Map<string, Series>();
  #sinceHeartbeat = new Map<string, Series>();
  readonly #inProgress: (() => Iterable<MetricIncrement>) | undefined;

  constructor(options: MetricsStoreOptions = {}) {
    this.#inProgress = options.inProgress;
  }

  /** Adds `value` to the series `name` × `outcome` (cumulative and since-heartbeat). */
  digest(name: readonly string[], value: number, outcome = ""): void {
    if (name.length < 2) {
      throw new Error(`metric name must be [context, …, activity, unit], got ${JSON.stringify(name)}`);
    }
    if (typeof value !== "number" || Number.isNaN(value)) {
      throw new Error(`metric ${JSON.stringify(name)} got a non-numeric value ${String(value)}`);
    }
    const key = seriesKey(name, outcome);
    add(this.#totals, key, name, outcome, value);
    add(this.#sinceHeartbeat, key, name, outcome, value);
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
    return entries(this.#totals);
  }

  /** Cumulative totals including work in progress up to now; never counts anything twice. */
  scrape(): MetricEntry[] {
    this.collectInProgress();
    return this.totals();
  }

  /**
   * The deltas digested since the previous call, including in-progress increments up to
   * now. The buffer is swapped before it is returned: anything digested afterwards (e.g.
   * while the heartbeat is being sent) goes to the next heartbeat.
   */
  takeSinceHeartbeat(): MetricEntry[] {
    this.collectInProgress();
    const taken = this.#sinceHeartbeat;
    this.#sinceHeartbeat = new Map();
    return entries(taken);
  }

  /** One series (`outcome` given) or the sum of `name` over all outcomes. */
  get(name: readonly string[], outcome?: string): number {
    if (outcome !== undefined) return this.#totals.get(seriesKey(name, outcome))?.value ?? 0;
    const prefix = name.join(SEPARATOR) + OUTCOME_SEPARATOR;
    let sum = 0;
    for (const [key, series] of this.#totals) if (key.startsWith(prefix)) sum += series.value;
    return sum;
  }

  /** Number of series. */
  get size(): number {
    return this.#totals.size;
  }
}
