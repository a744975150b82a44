import { currentSpan, type Span } from "../spans/index.js";

/** What the SpillBuffer records (dask's spill activities). */
export type SpillActivity =
  | "memory-read"
  | "disk-read"
  | "disk-write"
  | "serialize"
  | "deserialize"
  | "compress"
  | "decompress";

export type SpillUnit = "seconds" | "bytes" | "count";

export const SPILL_ACTIVITIES: readonly SpillActivity[] = Object.freeze([
  "memory-read",
  "disk-read",
  "disk-write",
  "serialize",
  "deserialize",
  "compress",
  "decompress",
]);
const UNITS: readonly SpillUnit[] = ["seconds", "bytes", "count"];
const ACTIVITY_INDEX = new Map<SpillActivity, number>(SPILL_ACTIVITIES.map((a, i) => [a, i]));

const AGGREGATE = Object.freeze({ aggregate: true });

/** An activity in progress: its child span (when there is a current span) or its start on our clock. */
export interface ActivityTimer {
  readonly activity: SpillActivity;
  readonly span: Span | null;
  readonly start: number;
}

/**
 * Records each spill activity twice, like dask: as an `aggregate: true` child span of
 * `currentSpan()` (seconds = the child's duration, plus bytes/count metrics), and in
 * always-on cumulative totals, so accesses under no span (scatter, tests) still count.
 * The totals take their seconds from the very span they recorded, so the unqualified
 * totals exported from spans equal `cumulative()` exactly.
 */
export class SpillMetrics {
  // Totals live in a flat array (activity × unit) to keep the fast path free of Map
  // lookups; `cumulative()` builds the public Map on demand.
  private readonly totals = new Float64Array(SPILL_ACTIVITIES.length * UNITS.length);
  private readonly recorded = new Uint8Array(SPILL_ACTIVITIES.length * UNITS.length);

  constructor(private readonly clock: { now(): number }) {}

  /** dask's memory-read: count and bytes only, no time (a zero-length child span). */
  memoryRead(bytes: number): void {
    const parent = currentSpan();
    if (parent) {
      const child = parent.child("memory-read", { attributes: AGGREGATE });
      child.addMetric("bytes", bytes);
      child.addMetric("count", 1);
      child.end(child.startTime);
    }
    this.add(0, 1, bytes);
    this.add(0, 2, 1);
  }

  begin(activity: SpillActivity): ActivityTimer {
    const parent = currentSpan();
    if (parent) {
      const span = parent.child(activity, { attributes: AGGREGATE });
      return { activity, span, start: span.startTime ?? this.clock.now() };
    }
    return { activity, span: null, start: this.clock.now() };
  }

  /**
   * Ends the activity. `modelledSeconds` (from a store that models its disk) replaces
   * the measured time; `bytes` adds the bytes and a count of 1 (successful disk I/O).
   */
  end(timer: ActivityTimer, modelledSeconds?: number, bytes?: number): void {
    const index = ACTIVITY_INDEX.get(timer.activity)!;
    let seconds: number;
    const span = timer.span;
    if (span) {
      if (bytes !== undefined) {
        span.addMetric("bytes", bytes);
        span.addMetric("count", 1);
      }
      span.end(modelledSeconds === undefined ? undefined : this.modelledEnd(timer.start, modelledSeconds));
      // The span's own (quantised) duration, so that totals exported from spans match exactly.
      seconds = span.duration ?? 0;
    } else {
      seconds = modelledSeconds ?? this.clock.now() - timer.start;
    }
    this.add(index, 0, seconds);
    if (bytes !== undefined) {
      this.add(index, 1, bytes);
      this.add(index, 2, 1);
    }
  }

  /**
   * A modelled duration counts from the request (a virtual disk's includes waiting behind the
   * requests before it): from the store's clock when the span started later on a cursor clock
   * (after an earlier modelled child of its root), so the wait is not counted twice; from the
   * span's start when the store's clock has moved on meanwhile (a real clock).
   */
  private modelledEnd(start: number, seconds: number): number {
    return Math.max(start, Math.min(start, this.clock.now()) + seconds);
  }

  /** Snapshot of the totals, keyed `"activity/unit"` (only the series recorded so far). */
  cumulative(): Map<string, number> {
    const out = new Map<string, number>();
    for (let a = 0; a < SPILL_ACTIVITIES.length; a++) {
      for (let u = 0; u < UNITS.length; u++) {
        const slot = a * UNITS.length + u;
        if (this.recorded[slot]) out.set(`${SPILL_ACTIVITIES[a]}/${UNITS[u]}`, this.totals[slot]!);
      }
    }
    return out;
  }

  private add(activity: number, unit: number, value: number): void {
    const slot = activity * UNITS.length + unit;
    this.totals[slot] += value;
    this.recorded[slot] = 1;
  }
}
