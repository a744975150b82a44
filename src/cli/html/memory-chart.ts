import type { MemorySample, SimReport } from "../../sim/report.js";
import { formatBytes, formatSeconds } from "../format/units.js";
import { CHART_WIDTH, type Chart, type LegendEntry } from "./chart.js";
import { truncate } from "./escape.js";
import { emptyChart } from "./stacked-bars.js";
import { byteTicks, element, linearScale, px, text, ticksWithin, xAxis, yAxis } from "./svg.js";

/** Panels drawn at most: the workers with the highest peaks, so the interesting ones are shown. */
export const MAX_MEMORY_PANELS = 12;
const PANEL_GAP = 16;
const PANEL_WIDTH = (CHART_WIDTH - PANEL_GAP) / 2;
const PANEL_HEIGHT = 150;
const MARGIN = { left: 64, right: 10, top: 22, bottom: 24 } as const;

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
 * compare. Samples are reduced to the maximum per pixel column, so peaks survive downsampling.
 */
export function memoryChart(report: SimReport): Chart {
  const id = "memory";
  const title = "Memory and spill over time";
  const description = "Bytes held in memory and bytes spilled to disk on each worker, over simulated time; the dashed line is the memory limit. All panels share one scale.";
  const legend: LegendEntry[] = [
    { series: "memory", label: "in memory", colour: MEMORY_COLOUR },
    { series: "spilled", label: "spilled to disk", colour: SPILLED_COLOUR },
  ];
  if (report.memoryLimit !== null) legend.push({ series: "limit", label: "memory limit", colour: LIMIT_COLOUR });
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

  const endTime = withSamples.reduce((latest, [, samples]) => samples.reduce((max, sample) => Math.max(max, sample.time), latest), report.makespan);
  const plotWidth = PANEL_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const timeTicks = ticksWithin(endTime, 4);
  const xScale = linearScale(endTime, MARGIN.left, plotWidth);
  const maxBytes = Math.max(report.memoryLimit ?? 0, ...panels.map(([, samples]) => samples.reduce((max, s) => Math.max(max, s.memoryBytes, s.spilledBytes), 0)));
  const byteTickValues = byteTicks(maxBytes, 3);
  const yTop = byteTickValues[byteTickValues.length - 1]!;
  // y grows downwards: value 0 sits at the bottom of the plot.
  const yScale = (value: number): number => MARGIN.top + plotHeight - (value / (yTop > 0 ? yTop : 1)) * plotHeight;
  const yAxisScale = Object.assign((value: number) => yScale(value), { domainMax: yTop });

  const body = panels
    .map(([worker, samples]) => {
      const points = downsample(samples, xScale.domainMax / plotWidth);
      const plotRight = MARGIN.left + plotWidth;
      const bottom = MARGIN.top + plotHeight;
      const memoryLine = stepPath(points, (p) => p.memory, xScale, yScale, endTime);
      const spilledLine = stepPath(points, (p) => p.spilled, xScale, yScale, endTime);
      const peakMemory = points.reduce((max, p) => Math.max(max, p.memory), 0);
      const peakSpilled = points.reduce((max, p) => Math.max(max, p.spilled), 0);
      const parts = [
        text(MARGIN.left, 14, truncate(worker, 48), { class: "panel-title", "data-tip": worker }),
        xAxis(timeTicks, xScale, bottom, MARGIN.top, formatSeconds),
        yAxis(byteTickValues, yAxisScale, MARGIN.left, plotRight, formatBytes),
        element("path", {
          class: "mark area",
          "data-series": "memory",
          "data-tip": `${worker}\nin memory, peak ${formatBytes(peakMemory)}`,
          d: `${memoryLine}L${px(xScale(endTime))},${px(bottom)}L${px(xScale(points[0]!.time))},${px(bottom)}Z`,
          fill: MEMORY_COLOUR,
        }),
        element("path", {
          class: "mark line",
          "data-series": "spilled",
          "data-tip": `${worker}\nspilled to disk, peak ${formatBytes(peakSpilled)}`,
          d: spilledLine,
          stroke: SPILLED_COLOUR,
        }),
      ];
      if (report.memoryLimit !== null) {
        const y = yScale(report.memoryLimit);
        parts.push(
          element("line", { class: "mark limit", "data-series": "limit", "data-tip": `memory limit ${formatBytes(report.memoryLimit)}`, x1: MARGIN.left, x2: plotRight, y1: y, y2: y, stroke: LIMIT_COLOUR }),
        );
      }
      return element("svg", { class: "panel", viewBox: `0 0 ${px(PANEL_WIDTH)} ${PANEL_HEIGHT}`, width: PANEL_WIDTH, height: PANEL_HEIGHT, role: "img", "aria-label": `memory of ${worker}` }, parts.join(""));
    })
    .join("");
  const hidden = withSamples.length - panels.length;
  const notes: string[] = [];
  if (hidden > 0) notes.push(`Showing the ${panels.length} workers with the highest peaks; ${hidden} more are in --json.`);
  if (unusable > 0) notes.push(`${unusable} ${unusable === 1 ? "sample" : "samples"} without a finite time or byte count skipped.`);
  const note = notes.join(" ");
  return { id, title, description, legend, body: `<div class="panels">${body}</div>`, note };
}

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

/** A step line: each value holds until the next sample, the last one until `endTime`. */
function stepPath(points: readonly Point[], value: (p: Point) => number, xScale: (t: number) => number, yScale: (v: number) => number, endTime: number): string {
  let d = "";
  points.forEach((point, index) => {
    const x = px(xScale(point.time));
    const y = px(yScale(value(point)));
    d += index === 0 ? `M${x},${y}` : `H${x}V${y}`;
  });
  return `${d}H${px(xScale(endTime))}`;
}
