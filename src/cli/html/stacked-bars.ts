import { activityColour, compareActivities } from "../activities.js";
import { compareText } from "../text-order.js";
import type { ActivityStack } from "../fine-metrics.js";
import { escapeHtml, truncate } from "./escape.js";
import { CHART_WIDTH, type Chart, type LegendEntry } from "./chart.js";
import { element, linearScale, text, xAxis } from "./svg.js";

export interface StackedBarsOptions {
  id: string;
  title: string;
  description: string;
  stacks: readonly ActivityStack[];
  /** Tick values from 0 to at least the largest total. */
  ticks: (max: number) => number[];
  format: (value: number) => string;
  /** Bars drawn before the smallest are summarised in the note. */
  maxBars?: number;
  /** Draw the bars in the order given (comparisons keep configurations side by side) instead of largest first. */
  keepOrder?: boolean;
  /** Optional extra tooltip line for a segment (e.g. the count behind some bytes). */
  detail?: (stack: ActivityStack, activity: string) => string | undefined;
}

const BAR_HEIGHT = 18;
const BAR_GAP = 7;
const TOP = 8;
const AXIS_HEIGHT = 26;
const LABEL_CHARS = 34;

/** Horizontal bars, one per context and prefix, stacked by activity in the canonical order. */
export function stackedBarsChart(options: StackedBarsOptions): Chart {
  const maxBars = options.maxBars ?? 30;
  // A bar stacks positive values only. A negative value (a residual such as `other` that came
  // out below zero) cannot be drawn as a length: it is named in the note instead of hidden.
  const negatives: string[] = [];
  const drawable = options.stacks
    .map((stack) => {
      for (const segment of stack.segments) {
        if (segment.value < 0) negatives.push(`${stack.label} · ${segment.activity} ${options.format(segment.value)}`);
      }
      const segments = stack.segments.filter((segment) => segment.value > 0);
      return { ...stack, segments, total: segments.reduce((sum, segment) => sum + segment.value, 0) };
    })
    .filter((stack) => stack.total > 0)
    .sort((a, b) => (options.keepOrder === true ? 0 : b.total - a.total || compareText(a.label, b.label)));
  const shown = drawable.slice(0, maxBars);
  const hidden = drawable.slice(shown.length);
  const legend = legendFor(shown);
  const negativeNote = negatives.length === 0 ? "" : `Negative values are not drawn: ${negatives.join("; ")}.`;
  if (shown.length === 0) {
    return { id: options.id, title: options.title, description: options.description, legend, body: emptyChart("nothing recorded in this run"), note: negativeNote };
  }
  const longestLabel = Math.max(...shown.map((stack) => Math.min(LABEL_CHARS, Array.from(stack.label).length)));
  const labelWidth = Math.min(260, 16 + longestLabel * 6.6);
  const totalLabelWidth = 70;
  const plotLeft = labelWidth;
  const plotWidth = CHART_WIDTH - plotLeft - totalLabelWidth;
  const maxTotal = Math.max(...shown.map((stack) => stack.total));
  const ticks = options.ticks(maxTotal);
  const scale = linearScale(ticks[ticks.length - 1]!, plotLeft, plotWidth);
  const plotBottom = TOP + shown.length * (BAR_HEIGHT + BAR_GAP);
  const height = plotBottom + AXIS_HEIGHT;

  const bars = shown.map((stack, index) => {
    const y = TOP + index * (BAR_HEIGHT + BAR_GAP);
    let offset = 0;
    const segments = stack.segments.map((segment) => {
      const x = scale(offset);
      offset += segment.value;
      const width = Math.max(0.5, scale(offset) - x);
      const share = stack.total > 0 ? segment.value / stack.total : 0;
      const detail = options.detail?.(stack, segment.activity);
      const tip = `${stack.label}\n${segment.activity}: ${options.format(segment.value)} (${(share * 100).toFixed(1)}% of this bar)${detail ? `\n${detail}` : ""}`;
      return element("rect", {
        class: "mark",
        "data-series": segment.activity,
        "data-tip": tip,
        x,
        y,
        width,
        height: BAR_HEIGHT,
        fill: activityColour(segment.activity),
      });
    });
    return (
      element("g", { class: "bar" }, [
        element("text", { x: plotLeft - 8, y: y + BAR_HEIGHT / 2 + 4, class: "label", "text-anchor": "end", "data-tip": stack.label }, escapeHtml(truncate(stack.label, LABEL_CHARS))),
        ...segments,
        text(scale(stack.total) + 6, y + BAR_HEIGHT / 2 + 4, options.format(stack.total), { class: "total" }),
      ].join(""))
    );
  });

  const svg = element(
    "svg",
    { viewBox: `0 0 ${CHART_WIDTH} ${Math.ceil(height)}`, width: CHART_WIDTH, height: Math.ceil(height), role: "img", "aria-label": options.title },
    xAxis(ticks, scale, plotBottom, TOP - 4, options.format) + bars.join(""),
  );
  const hiddenTotal = hidden.reduce((sum, stack) => sum + stack.total, 0);
  const hiddenNote = hidden.length === 0 ? "" : `${hidden.length} smaller ${hidden.length === 1 ? "bar" : "bars"} (${options.format(hiddenTotal)} in total) not drawn; every value is in the tables and in --json.`;
  const note = [hiddenNote, negativeNote].filter((part) => part !== "").join(" ");
  return { id: options.id, title: options.title, description: options.description, legend, body: svg, note };
}

function legendFor(stacks: readonly ActivityStack[]): LegendEntry[] {
  const activities = new Set<string>();
  for (const stack of stacks) for (const segment of stack.segments) activities.add(segment.activity);
  return [...activities].sort(compareActivities).map((activity) => ({ series: activity, label: activity, colour: activityColour(activity) }));
}

export function emptyChart(message: string): string {
  return element("svg", { viewBox: `0 0 ${CHART_WIDTH} 40`, width: CHART_WIDTH, height: 40, role: "img", "aria-label": message }, text(CHART_WIDTH / 2, 24, message, { class: "empty", "text-anchor": "middle" }));
}
