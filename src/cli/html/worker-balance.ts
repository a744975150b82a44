import { formatCount, formatSeconds } from "../format/units.js";
import { stealOutcomes } from "../steal-outcomes.js";
import { CHART_WIDTH, type ChartEntry } from "./chart.js";
import { escapeHtml, truncate } from "./escape.js";
import { emptyChart } from "./stacked-bars.js";
import { element, linearScale, text } from "./svg.js";
import { shortWorkerNames } from "./worker-names.js";

// How evenly the scheduler spread the work: per worker, the tasks it executed and the
// thread-seconds it was busy, side by side, with the mean of each as a dashed line and the
// run's balance figures (max / mean) in the title row.

const ROW = 16;
const GAP = 5;
const TOP = 22;
const LABEL_WIDTH = 130;
const VALUE_WIDTH = 64;
const MAX_ROWS = 64;
const TASKS_COLOUR = "#4c78a8";
const BUSY_COLOUR = "#f58518";

export const workerBalance: ChartEntry = {
  description: "tasks executed and busy time per worker, with their means and the balance figures",
  render: ({ report }) => {
    const id = "worker-balance";
    const title = "Balance across workers";
    const { policy, steals } = report.scheduler;
    const description =
      `Tasks executed and thread-seconds busy per worker under the ${policy} policy` +
      (steals.requested === 0 ? " (no steal requests)." : ` (${formatCount(steals.requested)} steal ${steals.requested === 1 ? "request" : "requests"}: ${stealOutcomes(steals)}).`) +
      ` Balance, max / mean: tasks ${report.balance.tasks.toFixed(2)}, busy time ${report.balance.busy.toFixed(2)}; the dashed lines are the means.`;
    const legend = [
      { series: "tasks", label: "tasks executed", colour: TASKS_COLOUR },
      { series: "busy", label: "busy thread-seconds", colour: BUSY_COLOUR },
    ];
    const workers = report.perWorker;
    if (workers.length === 0) return { id, title, description, legend, body: emptyChart("no workers"), note: "" };
    const shown = workers.slice(0, MAX_ROWS);
    const names = shortWorkerNames(workers.map((w) => w.address));
    const panelWidth = (CHART_WIDTH - LABEL_WIDTH - 2 * VALUE_WIDTH - 16) / 2;
    const panels = [
      { series: "tasks", heading: "tasks executed", left: LABEL_WIDTH, value: (i: number) => workers[i]!.tasksExecuted, format: (v: number) => formatCount(v), colour: TASKS_COLOUR },
      {
        series: "busy",
        heading: "busy thread-seconds",
        left: LABEL_WIDTH + panelWidth + VALUE_WIDTH + 16,
        value: (i: number) => workers[i]!.busySeconds,
        format: formatSeconds,
        colour: BUSY_COLOUR,
      },
    ];
    const height = TOP + shown.length * (ROW + GAP) + 6;
    const parts: string[] = [];
    for (const panel of panels) {
      const values = workers.map((_, i) => panel.value(i));
      const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
      const scale = linearScale(Math.max(...values), panel.left, panelWidth);
      parts.push(text(panel.left, 12, panel.heading, { class: "tick" }));
      shown.forEach((worker, i) => {
        const y = TOP + i * (ROW + GAP);
        const value = values[i]!;
        const ratio = mean > 0 ? value / mean : 0;
        parts.push(
          element("rect", {
            class: "mark",
            "data-series": panel.series,
            "data-tip": `${worker.address}\n${panel.heading}: ${panel.format(value)} (${ratio.toFixed(2)} × mean)`,
            x: panel.left,
            y,
            width: Math.max(0.5, scale(value) - panel.left),
            height: ROW,
            fill: panel.colour,
          }),
          text(scale(value) + 4, y + ROW / 2 + 4, panel.format(value), { class: "total" }),
        );
      });
      const meanX = scale(mean);
      parts.push(element("line", { class: "grid", x1: meanX, x2: meanX, y1: TOP - 4, y2: height - 4, "stroke-dasharray": "4 3", "data-tip": `mean ${panel.heading}: ${panel.format(mean)}` }));
    }
    shown.forEach((worker, i) => {
      const y = TOP + i * (ROW + GAP);
      const label = `${names.get(worker.address) ?? worker.address}${worker.died ? " (died)" : ""}`;
      parts.push(element("text", { x: LABEL_WIDTH - 8, y: y + ROW / 2 + 4, class: "label", "text-anchor": "end", "data-tip": worker.address }, escapeHtml(truncate(label, 20))));
    });
    const body = element("svg", { viewBox: `0 0 ${CHART_WIDTH} ${Math.ceil(height)}`, width: CHART_WIDTH, height: Math.ceil(height), role: "img", "aria-label": title }, parts.join(""));
    const note = workers.length > shown.length ? `${workers.length - shown.length} more workers not drawn; the means and balance figures count every worker, and all are in --json.` : "";
    return { id, title, description, legend, body, note };
  },
};
