// Joins the results of several sweep outputs (shards, or runs resumed elsewhere) into one list.
import { byText } from "./stats.js";
import { isFailed, type SweepResult } from "./result.js";

export interface MergeOutcome {
  /** One result per key, sorted by key. */
  results: SweepResult[];
  /** Lines whose key was already taken. */
  duplicates: number;
  /** Keys whose lines differ (other than a failure and a success): the first was kept. */
  conflicts: string[];
}

/**
 * One result per key: a successful run wins over a failed one (a shard may have failed where
 * another machine succeeded); otherwise the first seen is kept. Sorted by key, so merging the
 * same lines in any order gives the same output.
 */
export function mergeResults(lists: ReadonlyArray<readonly SweepResult[]>): MergeOutcome {
  const byKey = new Map<string, { result: SweepResult; text: string }>();
  let duplicates = 0;
  const conflicts = new Set<string>();
  for (const list of lists) {
    for (const result of list) {
      const text = JSON.stringify(result);
      const kept = byKey.get(result.key);
      if (kept === undefined) {
        byKey.set(result.key, { result, text });
        continue;
      }
      duplicates += 1;
      if (kept.text === text) continue;
      if (isFailed(kept.result) && !isFailed(result)) byKey.set(result.key, { result, text });
      else if (isFailed(kept.result) === isFailed(result)) conflicts.add(result.key);
    }
  }
  const results = [...byKey.values()].map((entry) => entry.result).sort((a, b) => byText(a.key, b.key));
  return { results, duplicates, conflicts: [...conflicts].sort(byText) };
}
