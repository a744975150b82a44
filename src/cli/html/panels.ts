import { CHART_WIDTH } from "./chart.js";
import { truncate } from "./escape.js";
import { element, text } from "./svg.js";
import { timeFrame, type TimeFrame } from "./timeline.js";

// Small multiples over time (memory, bandwidth): two panels a row, each with a title, a value
// axis on the left and a zoomable time frame (timeline.ts).

const GAP = 16;
const WIDTH = (CHART_WIDTH - GAP) / 2;
const HEIGHT = 150;
const MARGIN = { left: 64, right: 10, top: 22, bottom: 24 } as const;

export const PANEL = {
  width: WIDTH,
  height: HEIGHT,
  /** The time frame of a panel, without its end time. */
  frame: { left: MARGIN.left, width: WIDTH - MARGIN.left - MARGIN.right, top: MARGIN.top, height: HEIGHT - MARGIN.top - MARGIN.bottom },
  /** The same for a panel spanning the whole row. */
  fullFrame: { left: MARGIN.left, width: CHART_WIDTH - MARGIN.left - MARGIN.right, top: MARGIN.top, height: HEIGHT - MARGIN.top - MARGIN.bottom },
} as const;

/** Value → plot-local y of a panel, 0 at the bottom and `top` at the top. */
export function valueScale(top: number, height: number = PANEL.frame.height): (value: number) => number {
  const safeTop = top > 0 ? top : 1;
  return (value: number) => height - (value / safeTop) * height;
}

export interface PanelOptions {
  /** Shown above the plot (truncated; in full in the tooltip). */
  title: string;
  /** The accessible name of the panel. */
  label: string;
  /** Marks the title of a worker that died. */
  died?: boolean;
  /** Value axis: plot-local y and label of each tick. */
  yTicks: ReadonlyArray<{ y: number; text: string }>;
  frame: TimeFrame;
  /** Plot-local marks (zoomed with the time frame). */
  marks: string;
  /** Marks in panel coordinates drawn over the plot, not zoomed (e.g. a horizontal limit). */
  overlay?: string;
  /** Spans the whole row (then `frame` is based on PANEL.fullFrame). */
  full?: boolean;
}

export function panelSvg(options: PanelOptions): string {
  const { frame } = options;
  const width = options.full ? CHART_WIDTH : WIDTH;
  const right = frame.left + frame.width;
  const yAxis = options.yTicks
    .map(({ y, text: label }) => {
      const at = frame.top + y;
      return element("line", { class: "grid", x1: frame.left, x2: right, y1: at, y2: at }) + text(frame.left - 4, at + 3, label, { class: "tick", "text-anchor": "end" });
    })
    .join("");
  const title = options.died ? `✕ ${truncate(options.title, 46)} (died)` : truncate(options.title, 56);
  return element(
    "svg",
    { class: `panel timeline${options.full ? " full" : ""}`, viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT, role: "img", "aria-label": options.label },
    text(frame.left, 14, title, { class: options.died ? "panel-title dead" : "panel-title", "data-tip": options.title }) +
      yAxis +
      timeFrame(frame, options.marks, 4, options.label) +
      (options.overlay ?? ""),
  );
}
