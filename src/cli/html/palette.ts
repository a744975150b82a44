import { compareText } from "../text-order.js";

// A categorical palette of distinguishable colours (Tableau 20 order: strong hues first, then
// their light partners), so the biggest prefixes get the most distinct colours.
const CATEGORICAL = [
  "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
  "#a0cbe8", "#ffbe7d", "#8cd17d", "#b6992d", "#f1ce63", "#499894", "#86bcb6", "#d37295", "#fabfd2", "#d4a6c8",
] as const;

/**
 * Colours for task prefixes, ranked by `weight` (largest first, ties by name), cycling through
 * the palette when there are more prefixes than colours.
 */
export function prefixColours(weights: ReadonlyMap<string, number>): Map<string, string> {
  const ranked = [...weights].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]));
  return new Map(ranked.map(([prefix], index) => [prefix, CATEGORICAL[index % CATEGORICAL.length]!]));
}
