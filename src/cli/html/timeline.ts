import { formatSeconds } from "../format/units.js";
import { element, linearScale, px, text, ticksWithin } from "./svg.js";

// The frame shared by every chart over simulated time (task stream, memory, bandwidth): an x axis
// drawn on the page's side, and the marks inside a nested <svg class="plot"> whose viewBox maps
// seconds to its width. The page script zooms every such plot at once by changing only the
// viewBox (the marks are never rewritten) and redraws the axis; without the script the chart is
// complete as drawn. The nested <svg> clips what falls outside it, so no clip-path is needed.

/**
 * Plot-local x units per screen pixel. Coordinates are rounded to 0.1 unit (see `px`): 100 units
 * per pixel keep marks within a pixel of their exact place up to a zoom of 1000×.
 */
export const X_UNITS_PER_PX = 100;
/** The page script never zooms closer than this share of the whole run. */
export const MAX_ZOOM = 1000;

export interface TimeFrame {
  /** Left edge and width of the plot in the chart's coordinates. */
  left: number;
  width: number;
  top: number;
  height: number;
  /** Seconds at the right edge (the left edge is 0). */
  end: number;
}

/** Seconds → plot-local x. */
export function timeX(frame: TimeFrame): (seconds: number) => number {
  const end = frame.end > 0 ? frame.end : 1;
  const units = frame.width * X_UNITS_PER_PX;
  return (seconds: number) => (seconds / end) * units;
}

/** Plot-local width of at least `pixels` screen pixels (a mark too short to see otherwise). */
export function atLeastPixels(width: number, pixels: number): number {
  return Math.max(width, pixels * X_UNITS_PER_PX);
}

/**
 * The time axis (grid lines from the plot's top to its bottom, labels under it) and the plot
 * holding `marks` in plot-local coordinates (x from timeX, y from 0 at the plot's top).
 * `ticks` is the number of labels to aim for, also at any zoom.
 */
export function timeFrame(frame: TimeFrame, marks: string, ticks: number, label: string): string {
  const bottom = frame.top + frame.height;
  const scale = linearScale(frame.end, frame.left, frame.width);
  const axis = ticksWithin(frame.end, ticks)
    .map((tick) => {
      const x = scale(tick);
      return element("line", { class: "grid", x1: x, x2: x, y1: frame.top, y2: bottom }) + text(x, bottom + 14, formatSeconds(tick), { class: "tick", "text-anchor": "middle" });
    })
    .join("");
  const plot = element(
    "svg",
    {
      class: "plot",
      x: frame.left,
      y: frame.top,
      width: frame.width,
      height: frame.height,
      viewBox: `0 0 ${px(frame.width * X_UNITS_PER_PX)} ${px(frame.height)}`,
      preserveAspectRatio: "none",
      "aria-label": label,
    },
    marks,
  );
  return element("g", { class: "time-frame", "data-end": String(frame.end), "data-ticks": ticks }, element("g", { class: "x-axis" }, axis) + plot);
}
