import type { ConfigurationComparison } from "../../lab/compare.js";
import { formatSeconds } from "../format/units.js";
import { CHART_WIDTH, type Chart } from "./chart.js";
import { escapeHtml, truncate } from "./escape.js";
import { emptyChart } from "./stacked-bars.js";
import { element, niceTicks, text } from "./svg.js";

const ROW_HEIGHT = 30;
const BOX_HEIGHT = 16;
const TOP = 10;
const AXIS_HEIGHT = 26;
const LABEL_CHARS = 40;
const DOT_RADIUS = 3;

/** Round ticks covering [low, high], for an axis that need not start at zero. */
function rangeTicks(low: number, high: number): number[] {
  const span = high - low;
  if (!(span > 0)) return [low];
  const step = niceTicks(span, 5)[1]!;
  const first = Math.floor(low / step) * step;
  const ticks: number[] = [];
  for (let tick = first; tick < high + step; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

/**
 * Makespan over seeds per configuration: whiskers from the fastest to the slowest seed, a box
 * over the middle half (quartiles), a line at the median and a dot per seed (its tooltip names
 * the seed). The axis spans the data, not zero to the maximum, so that differences of a few
 * percent stay visible.
 */
export function makespanBoxPlot(id: string, configurations: readonly ConfigurationComparison[]): Chart {
  const shown = configurations.filter((configuration) => configuration.makespan !== null);
  const title = "Makespan over seeds";
  const description = "One row per configuration: the whiskers reach the fastest and the slowest seed, the box holds the middle half of the seeds, the line is the median; each dot is one seed.";
  if (shown.length === 0) return { id, title, description, legend: [], body: emptyChart("no successful run"), note: "" };
  const low = Math.min(...shown.map((configuration) => configuration.makespan!.min));
  const high = Math.max(...shown.map((configuration) => configuration.makespan!.max));
  const ticks = rangeTicks(low, high);
  const domainLow = ticks[0]!;
  const domainHigh = ticks[ticks.length - 1]! > domainLow ? ticks[ticks.length - 1]! : domainLow + 1;
  const longest = Math.max(...shown.map((configuration) => Math.min(LABEL_CHARS, Array.from(configuration.label).length)));
  const plotLeft = Math.min(300, 16 + longest * 6.6);
  const plotWidth = CHART_WIDTH - plotLeft - 20;
  const x = (value: number): number => plotLeft + ((value - domainLow) / (domainHigh - domainLow)) * plotWidth;
  const plotBottom = TOP + shown.length * ROW_HEIGHT;
  const axis = ticks
    .map((tick) => element("line", { class: "grid", x1: x(tick), x2: x(tick), y1: TOP - 4, y2: plotBottom }) + text(x(tick), plotBottom + 14, formatSeconds(tick), { class: "tick", "text-anchor": "middle" }))
    .join("");
  const rows = shown.map((configuration, index) => {
    const spread = configuration.makespan!;
    const middle = TOP + index * ROW_HEIGHT + ROW_HEIGHT / 2;
    const summary = `${configuration.label}\nmedian ${formatSeconds(spread.median)} · quartiles ${formatSeconds(spread.q1)} – ${formatSeconds(spread.q3)} · range ${formatSeconds(spread.min)} – ${formatSeconds(spread.max)} · ${spread.n} ${spread.n === 1 ? "seed" : "seeds"}`;
    const parts = [
      element("text", { x: plotLeft - 8, y: middle + 4, class: "label", "text-anchor": "end", "data-tip": configuration.label }, escapeHtml(truncate(configuration.label, LABEL_CHARS))),
      element("line", { class: "whisker", x1: x(spread.min), x2: x(spread.max), y1: middle, y2: middle, stroke: "#6b7280" }),
      element("line", { class: "whisker", x1: x(spread.min), x2: x(spread.min), y1: middle - 5, y2: middle + 5, stroke: "#6b7280" }),
      element("line", { class: "whisker", x1: x(spread.max), x2: x(spread.max), y1: middle - 5, y2: middle + 5, stroke: "#6b7280" }),
      element("rect", { class: "mark box", "data-series": configuration.label, "data-tip": summary, x: x(spread.q1), y: middle - BOX_HEIGHT / 2, width: Math.max(1, x(spread.q3) - x(spread.q1)), height: BOX_HEIGHT, fill: "#bfdbfe", stroke: "#2563eb" }),
      element("line", { class: "median", x1: x(spread.median), x2: x(spread.median), y1: middle - BOX_HEIGHT / 2, y2: middle + BOX_HEIGHT / 2, stroke: "#1e3a8a", "stroke-width": 2 }),
      ...configuration.makespans.map((entry) =>
        element("circle", { class: "mark seed", "data-series": configuration.label, "data-tip": `${configuration.label}\nseed ${entry.seed}: ${formatSeconds(entry.makespan)}`, cx: x(entry.makespan), cy: middle, r: DOT_RADIUS, fill: "#1f2937", "fill-opacity": 0.55 }),
      ),
    ];
    return element("g", { class: "row" }, parts.join(""));
  });
  const height = Math.ceil(plotBottom + AXIS_HEIGHT);
  const body = element("svg", { viewBox: `0 0 ${CHART_WIDTH} ${height}`, width: CHART_WIDTH, height, role: "img", "aria-label": title }, axis + rows.join(""));
  const missing = configurations.length - shown.length;
  const note = missing === 0 ? "" : `${missing} ${missing === 1 ? "configuration has" : "configurations have"} no successful run and ${missing === 1 ? "is" : "are"} not drawn.`;
  return { id, title, description, legend: [], body, note };
}
