import type { MemorySample } from "../../sim/report.js";
import { formatBytes } from "../format/units.js";
import type { Chart, ChartEntry, LegendEntry } from "./chart.js";
import { markerLayer, markerLegend, markerNote, type MarkerLayer } from "./marker-layer.js";
import { runEnd } from "./markers.js";
import { PANEL, panelSvg, valueScale } from "./panels.js";
import { emptyChart } from "./stacked-bars.js";
import { byteTicks, element, px } from "./svg.js";
import { timeX } from "./timeline.js";

/** Panels drawn at most: the workers with the highest peaks, so the interesting ones are shown. */
export const MAX_MEMORY_PANELS = 12;

const MEMORY_COLOUR = "#2563eb";
const SPILLED_COLOUR = "#dc2626";
const LIMIT_COLOUR = "#6b7280";

interface Point {
  time: number;
  memory: number;
  spilled: number;
}

/**
 * Memory and spill over time: one small panel per worker with the bytes held in memory (area),
 * the bytes spilled to disk (line) and the memory limit (dashed), on one shared scale so panels
 * compare, with the worker's pauses and death marked. Samples are reduced to the maximum per
 * pixel column, so peaks survive downsampling.
 */
export const memoryChart: ChartEntry = {
  description: "memory and spill over time per worker, with pauses and deaths",
  render: ({ report, markers }): Chart => {
    const id = "memory";
    const title = "Memory and spill over time";
    const description = "Bytes held in memory and bytes spilled to disk on each worker, over simulated time; the dashed line is the memory limit. All panels share one scale.";
    const legend: LegendEntry[] = [
      { series: "memory", label: "in memory", colour: MEMORY_COLOUR },
      { series: "spilled", label: "spilled to disk", colour: SPILLED_COLOUR },
    ];
    if (report.memoryLimit !== null) legend.push({ series: "limit", label: "memory limit", colour: LIMIT_COLOUR });
    legend.push(...markerLegend(markers));
    const byWorker = new Map<string, MemorySample[]>();
    for (const worker of report.perWorker) byWorker.set(worker.address, []);
    // A sample with a missing or non-finite value cannot be drawn; it is counted in the note
    // rather than allowed to turn a whole line into NaN.
    let unusable = 0;
    for (const sample of report.memory) {
      if (!Number.isFinite(sample.time) || !Number.isFinite(sample.memoryBytes) || !Number.isFinite(sample.spilledBytes)) {
        unusable += 1;
        continue;
      }
      let samples = byWorker.get(sample.worker);
      if (!samples) byWorker.set(sample.worker, (samples = []));
      samples.push(sample);
    }
    const withSamples = [...byWorker].filter(([, samples]) => samples.length > 0);
    if (withSamples.length === 0) {
      return { id, title, description, legend, body: emptyChart("no memory samples in this report"), note: "" };
    }
    const peak = (samples: readonly MemorySample[]): number => samples.reduce((max, s) => Math.max(max, s.memoryBytes + s.spilledBytes), 0);
    const chosen = new Set(
      [...withSamples]
        .sort((a, b) => peak(b[1]) - peak(a[1]))
        .slice(0, MAX_MEMORY_PANELS)
        .map(([worker]) => worker),
    );
    const panels = withSamples.filter(([worker]) => chosen.has(worker));

    const end = runEnd(report);
    const maxBytes = Math.max(report.memoryLimit ?? 0, ...panels.map(([, samples]) => samples.reduce((max, s) => Math.max(max, s.memoryBytes, s.spilledBytes), 0)));
    const ticks = byteTicks(maxBytes, 3);
    const y = valueScale(ticks[ticks.length - 1]!);
    const layers: MarkerLayer[] = [];

    const body = panels
      .map(([worker, samples]) => {
        const frame = { ...PANEL.frame, end };
        const x = timeX(frame);
        const points = downsample(samples, (end > 0 ? end : 1) / frame.width);
        // A dead worker holds nothing: its lines stop at its death rather than run on flat.
        const death = markers.deaths.find((d) => d.worker === worker);
        const until = death === undefined ? end : Math.max(death.time, points[points.length - 1]!.time);
        const memoryLine = stepPath(points, (p) => p.memory, x, y, until);
        const spilledLine = stepPath(points, (p) => p.spilled, x, y, until);
        const peakMemory = points.reduce((max, p) => Math.max(max, p.memory), 0);
        const peakSpilled = points.reduce((max, p) => Math.max(max, p.spilled), 0);
        const layer = markerLayer(markers, (w) => (w === worker ? { top: 0, height: PANEL.frame.height } : undefined), x, end, true);
        layers.push(layer);
        const marks =
          layer.behind +
          element("path", {
            class: "mark area",
            "data-series": "memory",
            "data-tip": `${worker}\nin memory, peak ${formatBytes(peakMemory)}`,
            "data-points": points.length,
            d: `${memoryLine}L${px(x(until))},${px(y(0))}L${px(x(points[0]!.time))},${px(y(0))}Z`,
            fill: MEMORY_COLOUR,
            stroke: MEMORY_COLOUR,
          }) +
          element("path", {
            class: "mark line",
            "data-series": "spilled",
            "data-tip": `${worker}\nspilled to disk, peak ${formatBytes(peakSpilled)}`,
            "data-points": points.length,
            d: spilledLine,
            stroke: SPILLED_COLOUR,
          }) +
          layer.front +
          layer.hits;
        const overlay =
          report.memoryLimit === null
            ? ""
            : element("line", {
                class: "mark limit",
                "data-series": "limit",
                "data-tip": `memory limit ${formatBytes(report.memoryLimit)}`,
                x1: frame.left,
                x2: frame.left + frame.width,
                y1: frame.top + y(report.memoryLimit),
                y2: frame.top + y(report.memoryLimit),
                stroke: LIMIT_COLOUR,
              });
        const yTicks = ticks.map((tick) => ({ y: y(tick), text: formatBytes(tick) }));
        return panelSvg({ title: worker, label: `memory of ${worker}`, died: death !== undefined, yTicks, frame, marks, overlay });
      })
      .join("");
    const hidden = withSamples.length - panels.length;
    const notes: string[] = [];
    if (hidden > 0) notes.push(`Showing the ${panels.length} workers with the highest peaks; ${hidden} more are in --json.`);
    if (unusable > 0) notes.push(`${unusable} ${unusable === 1 ? "sample" : "samples"} without a finite time or byte count skipped.`);
    const markersNote = markerNote(markers, layers);
    if (markersNote !== "") notes.push(markersNote);
    return { id, title, description, legend, body: `<div class="panels">${body}</div>`, note: notes.join(" ") };
  },
};

/** Keeps at most one point per pixel column: the maximum of memory and of spill within it. */
function downsample(samples: readonly MemorySample[], secondsPerPixel: number): Point[] {
  const sorted = [...samples].sort((a, b) => a.time - b.time);
  const points: Point[] = [];
  let bucket = Number.NaN;
  for (const sample of sorted) {
    const column = Math.floor(sample.time / secondsPerPixel);
    const last = points[points.length - 1];
    if (last && column === bucket) {
      last.memory = Math.max(last.memory, sample.memoryBytes);
      last.spilled = Math.max(last.spilled, sample.spilledBytes);
    } else {
      points.push({ time: sample.time, memory: sample.memoryBytes, spilled: sample.spilledBytes });
      bucket = column;
    }
  }
  return points;
}

/** A step line: each value holds until the next sample, the last one until `end`. */
function stepPath(points: readonly Point[], value: (p: Point) => number, x: (t: number) => number, y: (v: number) => number, end: number): string {
  let d = "";
  points.forEach((point, index) => {
    const px1 = px(x(point.time));
    const py = px(y(value(point)));
    d += index === 0 ? `M${px1},${py}` : `H${px1}V${py}`;
  });
  return `${d}H${px(x(end))}`;
}
