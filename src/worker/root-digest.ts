// Where finished roots go: their DigestMetrics into the worker's MetricsStore (split over
// prefixes for transfers), their records to `onSpanRecord`.
import { Span, toDigestMetrics, type SpanRecord } from "../spans/index.js";
import type { DigestMetric } from "../state/index.js";
import type { WorkerClock } from "./clock.js";
import type { MetricIncrement, MetricsStore } from "./metrics-store.js";
import { splitIncrement, type PrefixWeights } from "./prefix-split.js";
import { latestChildEnd } from "./span-roots.js";

export interface RootDigesterOptions {
  readonly metrics: MetricsStore;
  readonly clock: WorkerClock;
  readonly onSpanRecord: ((record: SpanRecord) => void) | undefined;
  readonly onError: (error: unknown) => void;
  /** A fresh stimulus id for a root no event carries (`<name>-<n>`). */
  readonly stimulusId: (name: string) => string;
}

export class RootDigester {
  readonly #metrics: MetricsStore;
  readonly #clock: WorkerClock;
  readonly #onSpanRecord: ((record: SpanRecord) => void) | undefined;
  readonly #onError: (error: unknown) => void;
  readonly #stimulusId: (name: string) => string;

  constructor(options: RootDigesterOptions) {
    this.#metrics = options.metrics;
    this.#clock = options.clock;
    this.#onSpanRecord = options.onSpanRecord;
    this.#onError = options.onError;
    this.#stimulusId = options.stimulusId;
  }

  digestMetric(metric: DigestMetric, split: PrefixWeights | null): void {
    // A CPU-split node always carries both series; an async task (CPU not measured) or a
    // task that took no wall time reports a zero thread-cpu, which says nothing.
    if (metric.value === 0 && metric.name[metric.name.length - 2] === "thread-cpu") return;
    if (split === null) {
      this.#metrics.digest(metric.name, metric.value, metric.outcome ?? "");
      return;
    }
    const parts: MetricIncrement[] = [];
    splitIncrement(split, metric, parts);
    for (const part of parts) this.#metrics.digest(part.name, part.value, part.outcome ?? "");
  }

  digestRoot(root: Span, stimulusId: string, split: PrefixWeights | null): void {
    for (const metric of toDigestMetrics(root, { stimulusId })) this.digestMetric(metric, split);
  }

  /** Ends (if needed) and digests a root that no event carries: side roots and cancelled work. */
  finishSideRoot(root: Span, stimulus: string, split: PrefixWeights | null): void {
    if (root.isRecording()) root.end(latestChildEnd(root, this.#clock.now()));
    this.digestRoot(root, this.#stimulusId(stimulus), split);
    this.report(root);
  }

  /** Hands a finished root to `onSpanRecord`; a throwing hook goes to onError and changes nothing else. */
  report(rootOrRecord: Span | SpanRecord): void {
    const hook = this.#onSpanRecord;
    if (hook === undefined) return;
    try {
      hook(rootOrRecord instanceof Span ? rootOrRecord.toRecord() : rootOrRecord);
    } catch (error) {
      this.#onError(error);
    }
  }
}
