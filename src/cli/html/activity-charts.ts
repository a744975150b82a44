import { activityStacks, type ActivityStack } from "../fine-metrics.js";
import { formatBytes, formatCount, formatSeconds } from "../format/units.js";
import type { ChartEntry } from "./chart.js";
import { stackedBarsChart } from "./stacked-bars.js";
import { byteTicks, niceTicks } from "./svg.js";

/** Seconds per context and prefix, stacked by activity. */
export const timeByActivity: ChartEntry = {
  description: "seconds per context and task prefix, stacked by activity",
  render: ({ breakdown }) =>
    stackedBarsChart({
      id: "time-by-activity",
      title: "Time by activity",
      description: "Seconds per context and task prefix, split by activity: execute is time on worker threads, gather-dep and get-data time on transfers between workers.",
      stacks: activityStacks(breakdown.rows, "seconds"),
      ticks: (max) => niceTicks(max, 6),
      format: formatSeconds,
    }),
};

/** Bytes per context and prefix, stacked by activity, with the operation counts in the tooltips. */
export const bytesByActivity: ChartEntry = {
  description: "bytes per context and task prefix, stacked by activity",
  render: ({ breakdown }) => {
    const countByStackActivity = new Map<string, number>();
    for (const row of breakdown.rows) {
      const key = stackActivityKey(row.context, row.prefix, row.activity);
      countByStackActivity.set(key, (countByStackActivity.get(key) ?? 0) + row.count);
    }
    return stackedBarsChart({
      id: "bytes-by-activity",
      title: "Bytes by activity",
      description: "Bytes moved per context and task prefix, split by activity: network transfers, spilling to and reading back from disk, reads from memory.",
      stacks: activityStacks(breakdown.rows, "bytes"),
      ticks: (max) => byteTicks(max, 6),
      format: formatBytes,
      detail: (stack: ActivityStack, activity: string) => {
        const count = countByStackActivity.get(stackActivityKey(stack.context, stack.prefix, activity)) ?? 0;
        return count > 0 ? `${formatCount(count)} ${count === 1 ? "operation" : "operations"}` : undefined;
      },
    });
  },
};

function stackActivityKey(context: string, prefix: string, activity: string): string {
  return JSON.stringify([context, prefix, activity]);
}
