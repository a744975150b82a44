import { formatCount, formatSeconds } from "../format/units.js";
import type { LegendEntry } from "./chart.js";
import type { TimelineMarkers } from "./markers.js";
import { element } from "./svg.js";
import { atLeastPixels } from "./timeline.js";

// Draws the markers of `timelineMarkers` into a time plot (plot-local coordinates, see
// timeline.ts): pause intervals as amber bands and the time after a death as a grey band behind
// the data, the death itself as a red line and steals as purple ticks (on the thief) in front of it.
// The lines are too thin to point at: each has a wide invisible hit line carrying its tooltip,
// kept apart (`hits`) so that a plot of small marks (the task stream) can put them behind its
// marks — a task under a marker keeps its own tooltip, the marker answers where no task is.

export const MARKER_COLOURS = { pause: "#eab308", death: "#b91c1c", steal: "#7c3aed" } as const;
/** Height of the pause strip along the top of a panel. */
const PAUSE_STRIP = 5;
/** Steal ticks drawn at most per plot; the rest are counted in the note. */
export const MAX_STEAL_MARKS = 400;

/** The vertical band of a worker in the plot, in plot-local y. */
export interface Band {
  top: number;
  height: number;
}

export interface MarkerLayer {
  /** Drawn before the data (bands). */
  behind: string;
  /** Drawn after the data (lines and ticks; the pointer passes through them). */
  front: string;
  /** The invisible hit lines of the deaths and steals, 9 px wide, with their tooltips. */
  hits: string;
  /** How many of each were drawn. */
  drawn: { deaths: number; pauses: number; steals: number };
  /** Steals not drawn because of MAX_STEAL_MARKS. */
  stealsOmitted: number;
}

/**
 * The markers of the workers `bandOf` places, in plot-local coordinates. `panel` draws a pause as
 * a strip along the top of the band over a faint tint, for plots whose data fills the band
 * (memory, bandwidth), rather than as a full band (task lanes).
 */
export function markerLayer(markers: TimelineMarkers, bandOf: (worker: string) => Band | undefined, x: (seconds: number) => number, end: number, panel = false): MarkerLayer {
  const behind: string[] = [];
  const front: string[] = [];
  const hits: string[] = [];
  const drawn = { deaths: 0, pauses: 0, steals: 0 };
  for (const pause of markers.pauses) {
    const band = bandOf(pause.worker);
    if (!band) continue;
    const until = pause.open ? "still paused at the end of the run" : `unpaused at ${formatSeconds(pause.end)}`;
    const tip = `${pause.worker} paused\n${formatSeconds(pause.start)} → ${formatSeconds(pause.end)} (${formatSeconds(pause.end - pause.start)}), ${until}\n${pause.detail}`;
    const span = { x: x(pause.start), width: atLeastPixels(x(pause.end) - x(pause.start), 1) };
    behind.push(element("rect", { class: panel ? "marker pause faint" : "marker pause", "data-series": "pause", "data-tip": tip, ...span, y: band.top, height: band.height }));
    if (panel) front.push(element("rect", { class: "marker pause strip", "data-series": "pause", "data-tip": tip, ...span, y: band.top, height: PAUSE_STRIP }));
    drawn.pauses += 1;
  }
  for (const death of markers.deaths) {
    const band = bandOf(death.worker);
    if (!band) continue;
    const tip = `${death.worker} died at ${formatSeconds(death.time)}\n${death.detail}`;
    behind.push(element("rect", { class: "marker dead", "data-series": "death", "data-tip": tip, x: x(death.time), y: band.top, width: Math.max(0, x(end) - x(death.time)), height: band.height }));
    const line = { x1: x(death.time), x2: x(death.time), y1: band.top, y2: band.top + band.height };
    front.push(element("line", { class: "marker death", "data-series": "death", ...line }));
    hits.push(element("line", { class: "marker hit", "data-series": "death", "data-tip": tip, ...line }));
    drawn.deaths += 1;
  }
  let stealsOmitted = 0;
  for (const steal of markers.steals) {
    const band = bandOf(steal.thief);
    if (!band) continue;
    if (drawn.steals >= MAX_STEAL_MARKS) {
      stealsOmitted += 1;
      continue;
    }
    const line = { x1: x(steal.time), x2: x(steal.time), y1: band.top, y2: band.top + band.height };
    const tip = `steal of ${steal.key} at ${formatSeconds(steal.time)}\n${steal.victim} → ${steal.thief}\noutcome ${steal.outcome}`;
    front.push(element("line", { class: "marker steal", "data-series": "steal", ...line }));
    hits.push(element("line", { class: "marker hit", "data-series": "steal", "data-tip": tip, ...line }));
    drawn.steals += 1;
  }
  return { behind: behind.join(""), front: front.join(""), hits: hits.join(""), drawn, stealsOmitted };
}

/** Legend entries for the kinds of marker the report has. */
export function markerLegend(markers: TimelineMarkers): LegendEntry[] {
  const legend: LegendEntry[] = [];
  if (markers.pauses.length > 0) legend.push({ series: "pause", label: "paused", colour: MARKER_COLOURS.pause });
  if (markers.deaths.length > 0) legend.push({ series: "death", label: "worker died", colour: MARKER_COLOURS.death });
  if (markers.steals.length > 0) legend.push({ series: "steal", label: "stolen task", colour: MARKER_COLOURS.steal });
  return legend;
}

/** One sentence about markers that could not be drawn; "" when there is nothing to say. */
export function markerNote(markers: TimelineMarkers, layers: readonly MarkerLayer[]): string {
  const notes: string[] = [];
  const omitted = layers.reduce((sum, layer) => sum + layer.stealsOmitted, 0);
  if (omitted > 0) notes.push(`${formatCount(omitted)} steal markers not drawn (at most ${formatCount(MAX_STEAL_MARKS)} per plot).`);
  if (markers.unplaced > 0) notes.push(`${formatCount(markers.unplaced)} ${markers.unplaced === 1 ? "event" : "events"} (deaths, pauses or steals) without a known worker not drawn.`);
  return notes.join(" ");
}
