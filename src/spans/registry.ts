// In-progress export (dask #7601): open roots are flattened up to "now" at every scrape and
// only the growth since the previous scrape is emitted. Each root remembers, per series,
// the cumulative value exported so far; its record carries that memory, so the final
// `toDigestMetrics(record)` emits only the remainder.
//
// Why increments are never negative: with sequential children, a node's exclusive time up
// to t is the part of [start, min(end, t)] covered by none of its children, and an open
// child (with its own open descendants) is counted up to t as well, so every exclusive time
// only grows with t. Metrics only grow (addMetric refuses negatives). Times are whole
// quanta, so the increments are exact and add up to the unscraped totals.
import { DigestMetric } from "./digest-metric.js";
import { cumulativeSeries, outcomeOf } from "./digest.js";
import { fromQuanta, toQuanta } from "./float.js";
import type { Span } from "./span.js";

export interface ScrapeOptions {
  /** stimulusId of the emitted DigestMetrics (default "scrape"). */
  readonly stimulusId?: string;
}

export class SpanRegistry {
  readonly #open = new Set<Span>();

  /** Adds an open root; it leaves the registry when it ends. */
  track(root: Span): void {
    if (root.parent !== undefined) throw new Error(`span ${root.label} has a parent; only roots can be tracked`);
    if (root.endTime !== undefined) return;
    this.#open.add(root);
  }

  /** Removes a root (called by `Span.end`). */
  untrack(root: Span): void {
    this.#open.delete(root);
  }

  /** Number of open roots. */
  get size(): number {
    return this.#open.size;
  }

  /** The open roots, in the order they were tracked. */
  roots(): Span[] {
    return [...this.#open];
  }

  /**
   * DigestMetrics of what the open roots accrued since the previous scrape, with open spans
   * counted up to `now` (default: each root's clock). Series that did not grow are omitted.
   */
  scrape(now?: number, options: ScrapeOptions = {}): DigestMetric[] {
    const stimulusId = options.stimulusId ?? "scrape";
    const result: DigestMetric[] = [];
    for (const root of this.#open) {
      if (root.startTime === undefined) continue;
      const at = now ?? root.clock.now();
      const exported = root.exportedForUpdate();
      const outcome = outcomeOf(root);
      for (const entry of cumulativeSeries(root, at, exported)) {
        const already = exported[entry.key];
        let increment: number;
        if (entry.isTime) {
          const grown = entry.amount - (already === undefined ? 0 : toQuanta(already));
          if (grown <= 0) continue;
          increment = fromQuanta(grown);
          exported[entry.key] = fromQuanta(entry.amount);
        } else {
          const grown = entry.amount - (already ?? 0);
          if (!(grown > 0)) continue;
          increment = grown;
          exported[entry.key] = entry.amount;
        }
        const name = entry.node.nameWith(entry.unit);
        result.push(
          outcome === undefined
            ? DigestMetric({ name, value: increment, stimulusId })
            : DigestMetric({ name, value: increment, stimulusId, outcome }),
        );
      }
    }
    return result;
  }
}
