import { compareText } from "./text-order.js";

// The activities of CONTRACT §3 in the order a reader follows a task's life (compute, wait,
// move, spill, leftovers, abnormal endings); charts stack them in this order so every bar reads
// the same way. Activities not listed (user-defined) come after, alphabetically.
export const ACTIVITY_ORDER: readonly string[] = [
  "thread-cpu",
  "thread-noncpu",
  "executor",
  "network",
  "serialize",
  "deserialize",
  "compress",
  "decompress",
  "disk-write",
  "disk-read",
  "memory-read",
  "other",
  "failed",
  "cancelled",
  "missing",
  "busy",
];

const RANK = new Map(ACTIVITY_ORDER.map((activity, index) => [activity, index]));

export function compareActivities(a: string, b: string): number {
  const rankA = RANK.get(a) ?? ACTIVITY_ORDER.length;
  const rankB = RANK.get(b) ?? ACTIVITY_ORDER.length;
  return rankA - rankB || compareText(a, b);
}

// Colours chosen so that related activities share a hue: compute blues, transfer orange,
// (de)serialisation purples, disk reds, memory green, leftovers grey, abnormal outcomes dark.
const ACTIVITY_COLOURS: ReadonlyMap<string, string> = new Map([
  ["thread-cpu", "#2563eb"],
  ["thread-noncpu", "#93c5fd"],
  ["executor", "#0891b2"],
  ["network", "#f59e0b"],
  ["serialize", "#7c3aed"],
  ["deserialize", "#c4b5fd"],
  ["compress", "#db2777"],
  ["decompress", "#f9a8d4"],
  ["disk-write", "#dc2626"],
  ["disk-read", "#fca5a5"],
  ["memory-read", "#16a34a"],
  ["other", "#9ca3af"],
  ["failed", "#7f1d1d"],
  ["cancelled", "#57534e"],
  ["missing", "#a16207"],
  ["busy", "#854d0e"],
]);

/** Colours for activities not in the table (user-defined), picked from the name so they are stable. */
const EXTRA_COLOURS = ["#0d9488", "#65a30d", "#ea580c", "#4f46e5", "#be123c", "#0369a1"] as const;

export function activityColour(activity: string): string {
  const known = ACTIVITY_COLOURS.get(activity);
  if (known) return known;
  let hash = 0;
  for (let i = 0; i < activity.length; i += 1) hash = (hash * 31 + activity.charCodeAt(i)) >>> 0;
  return EXTRA_COLOURS[hash % EXTRA_COLOURS.length]!;
}
