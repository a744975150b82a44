import { formatPercent, formatSeconds } from "../format/units.js";
import { threadTimeCloses } from "../../sim/report.js";
import { THREAD_TIME_BUCKETS } from "../thread-time.js";
import { escapeHtml } from "./escape.js";
import { CHART_WIDTH, type Chart, type ChartEntry, type LegendEntry } from "./chart.js";
import { emptyChart } from "./stacked-bars.js";
import { element, linearScale, text, xAxis } from "./svg.js";
import { shortWorkerNames } from "./worker-names.js";

// Executing in the activity chart's compute blues and the abnormal endings' dark tones; idle
// in the transfer orange (fetching), browns, pink and greys, dead near black.
const BUCKET_COLOURS: ReadonlyMap<string, string> = new Map([
  ["ok", "#2563eb"],
  ["failed", "#7f1d1d"],
  ["cancelled", "#57534e"],
  ["recompute", "#7c3aed"],
  ["killed", "#dc2626"],
  ["running", "#93c5fd"],
  ["fetching", "#f59e0b"],
  ["constrained", "#a16207"],
  ["paused", "#db2777"],
  ["no-work", "#d1d5db"],
  ["dead", "#1f2937"],
]);

const BAR_HEIGHT = 18;
const BAR_GAP = 7;
const TOP = 8;
const AXIS_HEIGHT = 26;
const LABEL_WIDTH = 150;
const CLOSURE_WIDTH = 90;

/**
 * Where each worker's thread time went: one bar per worker covering 100% of its threads × the
 * run's length, stacked by bucket (executing by outcome, idle by cause). A bar that does not
 * close (its buckets do not add up to its capacity) says so at its end.
 */
export const threadTimeChart: ChartEntry = {
  description: "per worker, 100% of its thread time stacked by bucket: executing by outcome, idle by cause",
  render: ({ report }): Chart => {
    const id = "thread-time";
    const title = "Thread time";
    const workers = report.perWorker;
    const lifetime = workers[0]?.threadTime.lifetime ?? 0;
    const description = `Each bar is one worker's threads over the whole run (${formatSeconds(lifetime)} each), split into where the time went: executing a task (by outcome: first runs, recomputations of lost data, work killed with its worker) or idle by cause (waiting for data being fetched, for resources, paused, no work, dead).`;
    const present = THREAD_TIME_BUCKETS.filter((bucket) => workers.some((worker) => bucket.seconds(worker.threadTime) > 0));
    const legend: LegendEntry[] = present.map((bucket) => ({ series: bucket.key, label: bucket.label, colour: BUCKET_COLOURS.get(bucket.key)! }));
    if (workers.length === 0 || !(lifetime > 0)) return { id, title, description, legend, body: emptyChart("no thread time in this run"), note: "" };
    const names = shortWorkerNames(workers.map((worker) => worker.address));
    const plotLeft = LABEL_WIDTH;
    const plotWidth = CHART_WIDTH - plotLeft - CLOSURE_WIDTH;
    const scale = linearScale(1, plotLeft, plotWidth);
    const plotBottom = TOP + workers.length * (BAR_HEIGHT + BAR_GAP);
    const height = Math.ceil(plotBottom + AXIS_HEIGHT);
    const open: string[] = [];
    const bars = workers.map((worker, index) => {
      const time = worker.threadTime;
      const y = TOP + index * (BAR_HEIGHT + BAR_GAP);
      const label = `${names.get(worker.address)!}${worker.died ? " (died)" : ""}`;
      let offset = 0;
      const segments = present.map((bucket) => {
        const seconds = bucket.seconds(time);
        if (!(seconds > 0)) return "";
        const share = time.capacity > 0 ? seconds / time.capacity : 0;
        const x = scale(offset);
        offset += share;
        return element("rect", {
          class: "mark",
          "data-series": bucket.key,
          "data-tip": `${worker.address}\n${bucket.label}: ${formatSeconds(seconds)} (${formatPercent(share)} of ${worker.nthreads} × ${formatSeconds(time.lifetime)})`,
          x,
          y,
          width: Math.max(0.5, scale(offset) - x),
          height: BAR_HEIGHT,
          fill: BUCKET_COLOURS.get(bucket.key)!,
        });
      });
      const gap = time.total - time.capacity;
      const closes = threadTimeCloses(time);
      if (!closes) open.push(`${worker.address} (${formatSeconds(gap)})`);
      return element("g", { class: "bar" }, [
        element("text", { x: plotLeft - 8, y: y + BAR_HEIGHT / 2 + 4, class: "label", "text-anchor": "end", "data-tip": worker.address }, escapeHtml(label)),
        ...segments,
        text(scale(1) + 6, y + BAR_HEIGHT / 2 + 4, closes ? "100%" : `gap ${formatSeconds(gap)}`, { class: "total" }),
      ].join(""));
    });
    const ticks = [0, 0.25, 0.5, 0.75, 1];
    const svg = element(
      "svg",
      { viewBox: `0 0 ${CHART_WIDTH} ${height}`, width: CHART_WIDTH, height, role: "img", "aria-label": title },
      xAxis(ticks, scale, plotBottom, TOP - 4, (share) => `${Math.round(share * 100)}%`) + bars.join(""),
    );
    const note = open.length === 0 ? "" : `Thread time does not add up to the threads × the run's length for ${open.join(", ")}.`;
    return { id, title, description, legend, body: svg, note };
  },
};
