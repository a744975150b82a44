// The DigestMetric instruction (CONTRACT §1): what a finished or scraped span tree becomes.
// It lives here, below the state machine, because spans build it (toDigestMetrics, the
// registry's scrape) and the state machine emits it: both import it from this file, and
// src/state re-exports it with the other instructions, so spans import nothing from state.

export interface DigestMetric {
  readonly kind: "DigestMetric";
  /** `[context, …qualifiers, activity, unit]` */
  readonly name: readonly string[];
  readonly value: number;
  readonly stimulusId: string;
  /** Coarse outcome of the span it came from ("ok" | "failed" | "cancelled" | "missing" | "busy"). */
  readonly outcome?: string;
}
export type DigestMetricInit = Omit<DigestMetric, "kind">;

/** The `outcome` key is only present when given, so spans without an outcome compare equal
 * to `DigestMetric({ name, value, stimulusId })`. Frozen, like every instruction. */
export function DigestMetric(init: DigestMetricInit): DigestMetric {
  const name = Object.freeze(init.name);
  if (init.outcome === undefined) {
    return Object.freeze({ kind: "DigestMetric", name, value: init.value, stimulusId: init.stimulusId });
  }
  return Object.freeze({
    kind: "DigestMetric",
    name,
    value: init.value,
    stimulusId: init.stimulusId,
    outcome: init.outcome,
  });
}
