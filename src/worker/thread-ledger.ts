// The thread-time ledger (docs/worker.md, "Thread time"): at every instant each thread slot
// of a worker is in exactly one bucket — executing a task (by prefix and activity, with an
// outcome) or idle by cause — so that the `worker` context's seconds add up to
// nthreads × lifetime. Bookkeeping on the changes of slot occupancy and idle cause, O(1) per
// change: the free slots share one open interval (they all idle for the same reason), each
// running task has its own, and an interval is digested into the worker's MetricsStore when
// it closes, or up to now when the store collects work in progress (never twice).
import type { Span } from "../spans/index.js";
import { cumulativeSeries } from "../spans/digest.js";
import type { Series } from "../spans/flatten.js";
import { fromQuanta, toQuanta } from "../spans/float.js";
import { OTHER, SECONDS } from "../spans/types.js";
import type { WorkerState } from "../state/index.js";
import type { WorkerClock } from "./clock.js";
import type { MetricIncrement, MetricsStore } from "./metrics-store.js";
import { IN_PROGRESS_OUTCOME } from "./types.js";

/** Context of the ledger's DigestMetric names: `["worker", "execute", prefix, activity, "seconds"]`, `["worker", "idle", cause, "seconds"]`. */
export const THREAD_TIME_CONTEXT = "worker";

/** Why free slots idle, in the order the cause is decided (the first that holds). */
export const IDLE_CAUSES = ["dead", "paused", "constrained", "fetching", "no-work"] as const;
export type IdleCause = (typeof IDLE_CAUSES)[number];

/**
 * What executing thread time was spent on: a first run by how it ended (ok, failed,
 * cancelled), a recomputation of data lost with a worker (`recompute`, whatever its end),
 * work cut short by the worker's death (`killed`), or time accrued while the outcome was
 * not known yet (`running`, see docs/worker.md).
 */
export const EXECUTING_OUTCOMES = ["ok", "failed", "cancelled", "recompute", "killed", IN_PROGRESS_OUTCOME] as const;
export type ExecutingOutcome = (typeof EXECUTING_OUTCOMES)[number];

/** Where a worker's thread time went up to `end`, in seconds (`Worker.threadTime`). */
export interface ThreadTime {
  readonly nthreads: number;
  /** Clock time the worker was created: its lifetime starts there. */
  readonly start: number;
  /** Up to when the slots are accounted: the time asked for, or when a closed worker closed. */
  readonly end: number;
  readonly lifetime: number;
  /** nthreads × lifetime: what the buckets must add up to. */
  readonly capacity: number;
  /** Executing seconds by outcome (every outcome present). */
  readonly executing: Readonly<Record<ExecutingOutcome, number>>;
  /** Idle seconds by cause (every cause present). */
  readonly idle: Readonly<Record<IdleCause, number>>;
  /** Σ executing + Σ idle. */
  readonly total: number;
  /** total − capacity: zero up to rounding (the closure check). */
  readonly gap: number;
}

/** An execution on a thread slot, as the ledger follows it. */
export interface LedgerEntry {
  readonly root: Span;
  /** When it took its slot: its root's start time. */
  readonly since: number;
  readonly recompute: boolean;
  /** When it seceded (left the pool); its time after that is no thread time. */
  left: number | undefined;
  /** Seconds per series already digested while it ran (like `SpanRecord.exported`). */
  exported: Record<string, number> | undefined;
  /** Sum of the seconds digested for it so far. */
  digested: number;
}

/**
 * The annotation a scheduler puts on a ComputeTaskEvent that recomputes data lost with a
 * worker (`annotations: RECOMPUTE_ANNOTATIONS`, or any annotations whose `spanwork.recompute`
 * is true): the worker files that task's thread time under the outcome `recompute`.
 */
export const RECOMPUTE_ANNOTATIONS: Readonly<Record<string, unknown>> = Object.freeze({ spanwork: Object.freeze({ recompute: true }) });

/** True when a task's annotations say it recomputes lost data (`annotations.spanwork.recompute === true`). */
export function isRecompute(annotations: Readonly<Record<string, unknown>>): boolean {
  const own = annotations["spanwork"];
  return typeof own === "object" && own !== null && (own as { readonly recompute?: unknown }).recompute === true;
}

/**
 * Why the free slots of a running worker idle, from its state after a stimulus: paused; a
 * task that is ready but for resources; a task waiting for data while dependencies are being
 * fetched (in flight, queued to fetch, or missing — O(1): it does not check that the data
 * fetched is what that task waits for); else no work.
 */
export function idleCause(state: WorkerState): Exclude<IdleCause, "dead"> {
  if (!state.running) return "paused";
  if (state.constrained.size > 0) return "constrained";
  if (state.waiting.size > 0 && (state.inFlightTasksCount > 0 || state.fetchCount > 0 || state.missingDepFlight.size > 0)) return "fetching";
  return "no-work";
}

const IDLE_NAMES: Readonly<Record<IdleCause, readonly string[]>> = Object.freeze(
  Object.fromEntries(IDLE_CAUSES.map((cause) => [cause, Object.freeze([THREAD_TIME_CONTEXT, "idle", cause, SECONDS])])) as Record<IdleCause, readonly string[]>,
);

// `["worker", …executeName]` for each interned execute series name (frozen arrays, by identity).
const WORKER_NAMES = new Map<readonly string[], readonly string[]>();
const MAX_WORKER_NAMES = 10_000;

function workerName(name: readonly string[]): readonly string[] {
  let known = WORKER_NAMES.get(name);
  if (known === undefined) {
    known = Object.freeze([THREAD_TIME_CONTEXT, ...name]);
    if (Object.isFrozen(name)) {
      if (WORKER_NAMES.size >= MAX_WORKER_NAMES) WORKER_NAMES.clear();
      WORKER_NAMES.set(name, known);
    }
  }
  return known;
}

// `["worker", …rootName, "other", "seconds"]` by the root's (interned, frozen) name.
const OTHER_NAMES = new Map<readonly string[], readonly string[]>();

function otherName(root: Span): readonly string[] {
  let known = OTHER_NAMES.get(root.name);
  if (known === undefined) {
    known = Object.freeze([THREAD_TIME_CONTEXT, ...root.name, OTHER, SECONDS]);
    if (OTHER_NAMES.size >= MAX_WORKER_NAMES) OTHER_NAMES.clear();
    OTHER_NAMES.set(root.name, known);
  }
  return known;
}

export class ThreadLedger {
  readonly nthreads: number;
  readonly start: number;
  readonly #clock: WorkerClock;
  readonly #metrics: MetricsStore;
  /** Executions counted on a slot, and seceded ones whose time before seceding is not digested yet. */
  readonly #open = new Set<LedgerEntry>();
  #free: number;
  #cause: IdleCause = "no-work";
  /** Start of the free slots' open interval. */
  #idleSince: number;
  /** Every slot is accounted up to here (a change, or a collection of work in progress). */
  #accounted: number;
  #finishedAt: number | undefined = undefined;
  /**
   * Seconds (≤ 0) the `worker` context still owes: the rounding of a task's tree beyond its
   * slot's interval that could not be taken off the tree itself (all of it was digested while
   * it ran, see #digestFinal). A counter never goes down, so it is taken from the next idle time.
   */
  #owed = 0;

  constructor(nthreads: number, clock: WorkerClock, metrics: MetricsStore) {
    this.nthreads = nthreads;
    this.#clock = clock;
    this.#metrics = metrics;
    this.#free = nthreads;
    this.start = clock.now();
    this.#idleSince = this.start;
    this.#accounted = this.start;
  }

  /** Time up to which every slot is accounted; `settle` cannot go back before it. */
  get accountedUntil(): number {
    return this.#accounted;
  }

  /** A change happens now, and never before what is already accounted. */
  #changeTime(): number {
    const now = this.#clock.now();
    if (now > this.#accounted) this.#accounted = now;
    return this.#accounted;
  }

  /** Closes the free slots' interval at `t`: free × elapsed under the current cause. */
  #closeIdle(t: number): void {
    const elapsed = t - this.#idleSince;
    if (elapsed <= 0) return;
    if (this.#free > 0) this.#digestOwing(IDLE_NAMES[this.#cause], this.#free * elapsed, "");
    this.#idleSince = t;
  }

  /** A task takes a slot, at its root's start. */
  acquire(root: Span, recompute: boolean): LedgerEntry {
    if (this.#finishedAt !== undefined) throw new Error("thread-time ledger: a task started on a closed worker");
    if (this.#free <= 0) throw new Error(`thread-time ledger: no free slot for ${root.name.join("/")} (${this.nthreads} in use)`);
    const t = this.#changeTime();
    this.#closeIdle(t);
    this.#free -= 1;
    const entry: LedgerEntry = { root, since: root.startTime ?? t, recompute, left: undefined, exported: undefined, digested: 0 };
    this.#open.add(entry);
    return entry;
  }

  /**
   * A seceded (long-running) task leaves the pool now (dask's secede(), dask #7675): its
   * slot is free at once, its time so far stays executing and what follows is no thread time.
   */
  leave(entry: LedgerEntry): void {
    if (entry.left !== undefined || !this.#open.has(entry)) return;
    const t = this.#changeTime();
    this.#closeIdle(t);
    entry.left = t;
    this.#free += 1;
  }

  /**
   * The task's root has ended: its remaining time is digested with its outcome (recompute
   * work as `recompute`, unless killed) and its slot, unless it had seceded, is free.
   */
  release(entry: LedgerEntry, outcome: "ok" | "failed" | "cancelled" | "killed"): void {
    if (!this.#open.delete(entry)) return;
    const t = this.#changeTime();
    const end = entry.left ?? t;
    const label: ExecutingOutcome = entry.recompute && outcome !== "killed" ? "recompute" : outcome;
    this.#digestFinal(entry, end, label);
    if (entry.left === undefined) {
      this.#closeIdle(t);
      this.#free += 1;
    }
  }

  /** The idle cause after a stimulus (dead stays dead). */
  setCause(cause: IdleCause): void {
    if (cause === this.#cause || this.#cause === "dead" || this.#finishedAt !== undefined) return;
    const t = this.#changeTime();
    this.#closeIdle(t);
    this.#cause = cause;
  }

  /** The worker died: every free slot, and each slot its killed tasks free, is dead from now on. */
  die(): void {
    this.setCause("dead");
  }

  /** The worker closed (not killed): its lifetime ends now. */
  finish(): void {
    if (this.#finishedAt !== undefined) return;
    const t = this.#changeTime();
    this.#closeIdle(t);
    this.#finishedAt = t;
  }

  /**
   * Accounts every slot up to `until` (default now): the free slots' interval is digested
   * under its cause, and what each execution accrued under `running` — into `out` when the
   * metrics store is collecting work in progress (it labels them), else straight into it.
   */
  settle(until?: number, out?: MetricIncrement[]): void {
    const finished = this.#finishedAt;
    const now = this.#clock.now();
    if (until !== undefined && finished === undefined && (until < this.#accounted || until > now)) {
      throw new RangeError(`thread-time ledger: cannot settle at ${until}: slots are accounted up to ${this.#accounted} and the clock reads ${now}`);
    }
    const t = finished ?? until ?? now;
    if (t < this.#accounted) return;
    this.#accounted = t;
    this.#closeIdle(t);
    for (const entry of this.#open) this.#digestInProgress(entry, t, out);
  }

  /** Digests `value` less what the context owes, keeping what cannot be paid (never a negative increment). */
  #digestOwing(name: readonly string[], value: number, outcome: string): void {
    const due = value + this.#owed;
    if (due > 0) {
      this.#owed = 0;
      this.#metrics.digest(name, due, outcome);
    } else {
      this.#owed = due;
    }
  }

  /** The increments of `entry`'s time series up to `at` beyond what was digested (an open root counted up to `at`). */
  #increments(entry: LedgerEntry, at: number | undefined): Series[] {
    const root = entry.root;
    const series = cumulativeSeries(root, at, entry.exported);
    const depth = root.name.length;
    let kept = 0;
    for (let i = 0; i < series.length; i++) {
      const s = series[i]!;
      // time only, and not the unqualified copies of `aggregate` spans (`["disk-read"]`): they repeat a node's time
      if (!s.isTime || s.node.path.length <= depth) continue;
      const already = entry.exported?.[s.key];
      const cumulative = s.amount;
      s.amount = cumulative - (already === undefined ? 0 : toQuanta(already));
      if (s.amount === 0) continue;
      if (at !== undefined) (entry.exported ??= {})[s.key] = fromQuanta(cumulative);
      series[kept++] = s;
    }
    series.length = kept;
    return series;
  }

  /** What `entry` accrued up to `t` (its seceding, if earlier), as `running`. */
  #digestInProgress(entry: LedgerEntry, t: number, out: MetricIncrement[] | undefined): void {
    const parts = this.#increments(entry, entry.left === undefined ? t : Math.min(t, entry.left));
    for (const part of parts) {
      const value = fromQuanta(part.amount);
      entry.digested += value;
      const name = workerName(part.node.nameWith(part.unit));
      if (out !== undefined) out.push({ name, value });
      else this.#metrics.digest(name, value, IN_PROGRESS_OUTCOME);
    }
  }

  /**
   * The rest of `entry`'s time with its outcome, so that it adds up to the interval it held
   * its slot, [since, end]. The tree is timed in quanta of 2⁻³⁰ s from the root's start, so
   * it may cover a fraction of a quantum more than the interval (taken off its largest part)
   * or less (the root's own time, `other`, like a release read after the root ended).
   */
  #digestFinal(entry: LedgerEntry, end: number, outcome: ExecutingOutcome): void {
    // a root that ended is flattened whole; one that seceded, up to its seceding
    const parts = this.#increments(entry, entry.left);
    let covered = entry.digested;
    let largest = -1;
    for (let i = 0; i < parts.length; i++) {
      const value = fromQuanta(parts[i]!.amount);
      covered += value;
      if (largest < 0 || parts[i]!.amount > parts[largest]!.amount) largest = i;
    }
    let rest = end - entry.since - covered;
    for (let i = 0; i < parts.length; i++) {
      let value = fromQuanta(parts[i]!.amount);
      if (i === largest && rest < 0 && value + rest >= 0) {
        value += rest;
        rest = 0;
      }
      entry.digested += value;
      if (value !== 0) this.#metrics.digest(workerName(parts[i]!.node.nameWith(parts[i]!.unit)), value, outcome);
    }
    if (rest !== 0) this.#digestOwing(otherName(entry.root), rest, outcome);
  }

}

/** Seconds of the `worker` context in a worker's store, by bucket (the summary of `Worker.threadTime`). */
export function threadTimeOf(ledger: ThreadLedger, metrics: MetricsStore): ThreadTime {
  const executing = Object.fromEntries(EXECUTING_OUTCOMES.map((outcome) => [outcome, 0])) as Record<ExecutingOutcome, number>;
  const idle = Object.fromEntries(IDLE_CAUSES.map((cause) => [cause, 0])) as Record<IdleCause, number>;
  let total = 0;
  for (const entry of metrics.totals()) {
    const name = entry.name;
    if (name[0] !== THREAD_TIME_CONTEXT || name[name.length - 1] !== SECONDS) continue;
    total += entry.value;
    if (name[1] === "idle" && name.length === 4) {
      const cause = name[2] as IdleCause;
      if (IDLE_CAUSES.includes(cause)) idle[cause] += entry.value;
    } else if ((EXECUTING_OUTCOMES as readonly string[]).includes(entry.outcome)) {
      executing[entry.outcome as ExecutingOutcome] += entry.value;
    }
  }
  const end = ledger.accountedUntil;
  const lifetime = end - ledger.start;
  const capacity = ledger.nthreads * lifetime;
  return { nthreads: ledger.nthreads, start: ledger.start, end, lifetime, capacity, executing, idle, total, gap: total - capacity };
}
