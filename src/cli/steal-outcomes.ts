// How a run's steal requests ended, in words, for the summary line and the HTML report: the
// same five counts as report.scheduler.steals, zero counts left out.
import type { SimReport } from "../sim/report.js";
import { formatCount } from "./format/units.js";

const STEAL_OUTCOMES = ["confirmed", "rejected", "rescheduled", "aborted", "unanswered"] as const;

/** The non-zero outcome counts: "5 confirmed, 8 rejected, 1 aborted" (empty when none). */
export function stealOutcomes(steals: SimReport["scheduler"]["steals"]): string {
  const parts: string[] = [];
  for (const outcome of STEAL_OUTCOMES) if (steals[outcome] > 0) parts.push(`${formatCount(steals[outcome])} ${outcome}`);
  return parts.join(", ");
}
