import type { SimReport, TaskRecord } from "../../sim/report.js";
import { formatCount, formatSeconds } from "../format/units.js";
import { compareText } from "../text-order.js";
import { CHART_WIDTH, type Chart, type LegendEntry } from "./chart.js";
import { escapeHtml, truncate } from "./escape.js";
import { emptyChart } from "./stacked-bars.js";
import { element, linearScale, ticksWithin, xAxis } from "./svg.js";

/** Rectangles drawn at most; beyond this the file grows without the picture getting clearer. */
export const MAX_TASK_MARKS = 3000;
const MERGE_THRESHOLDS_PX = [1, 2, 4, 8, 16] as const;
const PLOT_LEFT = 140;
const PLOT_RIGHT_MARGIN = 24;
const TOP = 8;
const AXIS_HEIGHT = 26;
const MAX_PLOT_HEIGHT = 560;

/** A run of one or more task attempts drawn as one rectangle. */
interface Mark {
  row: number;
  start: number;
  end: number;
  prefix: string;
  outcome: TaskRecord["outcome"];
  /** The attempt itself when the mark stands for one task. */
  first: TaskRecord;
  tasks: number;
}

interface Row {
  worker: string;
  thread: number;
}

/**
 * The task stream: one lane per worker thread, one rectangle per task attempt coloured by
 * prefix, from its start to its end in simulated time. Neighbouring attempts of the same prefix
 * closer than a pixel (then 2, 4… px) are merged until at most MAX_TASK_MARKS remain; if that is
 * not enough, the narrowest are left out. The note says how many of either.
 */
export function taskStreamChart(report: SimReport, colours: ReadonlyMap<string, string>): Chart {
  const id = "task-stream";
  const title = "Task stream";
  const description = "Each lane is one worker thread; each rectangle a task run from start to end in simulated time, coloured by task prefix. Failed runs have a red outline, cancelled or rescheduled ones are faded.";
  const legend = prefixLegend(report.taskRecords, colours);
  if (report.taskRecords.length === 0) {
    return { id, title, description, legend, body: emptyChart("no task ran"), note: "" };
  }
  const rows = lanes(report);
  const rowIndex = new Map(rows.map((row, index) => [`${row.worker}\u0000${row.thread}`, index]));
  const endTime = report.taskRecords.reduce((latest, record) => Math.max(latest, record.end), report.makespan);
  const ticks = ticksWithin(endTime, 8);
  const plotWidth = CHART_WIDTH - PLOT_LEFT - PLOT_RIGHT_MARGIN;
  const scale = linearScale(endTime, PLOT_LEFT, plotWidth);
  const secondsPerPixel = scale.domainMax / plotWidth;

  const byRow: TaskRecord[][] = rows.map(() => []);
  for (const record of report.taskRecords) byRow[rowIndex.get(`${record.worker}\u0000${record.thread}`)!]!.push(record);
  for (const records of byRow) records.sort((a, b) => a.start - b.start || a.end - b.end || compareText(a.key, b.key));

  let marks: Mark[] = [];
  let mergedAt = 0;
  for (const thresholdPx of MERGE_THRESHOLDS_PX) {
    marks = byRow.flatMap((records, row) => mergeRow(records, row, thresholdPx * secondsPerPixel));
    mergedAt = thresholdPx;
    if (marks.length <= MAX_TASK_MARKS) break;
  }
  const merged = marks.filter((mark) => mark.tasks > 1);
  let omitted = 0;
  if (marks.length > MAX_TASK_MARKS) {
    omitted = marks.length - MAX_TASK_MARKS;
    const widest = [...marks].sort((a, b) => b.end - b.start - (a.end - a.start) || a.row - b.row || a.start - b.start).slice(0, MAX_TASK_MARKS);
    const keep = new Set(widest);
    marks = marks.filter((mark) => keep.has(mark));
  }

  const rowHeight = Math.max(3, Math.min(16, Math.floor(MAX_PLOT_HEIGHT / rows.length)));
  const rowGap = rowHeight >= 8 ? 2 : 0;
  const laneHeight = rowHeight + rowGap;
  const plotBottom = TOP + rows.length * laneHeight;
  const height = Math.ceil(plotBottom + AXIS_HEIGHT);

  const rects = marks.map((mark) => {
    const x = scale(mark.start);
    const width = Math.max(0.6, scale(mark.end) - x);
    const outcomeClass = mark.outcome === "ok" ? "" : mark.outcome === "failed" ? " failed" : " faded";
    return element("rect", {
      class: `mark${outcomeClass}`,
      "data-series": mark.prefix,
      "data-tip": markTip(mark, rows[mark.row]!),
      x,
      y: TOP + mark.row * laneHeight,
      width,
      height: rowHeight,
      fill: colours.get(mark.prefix) ?? "#999",
    });
  });

  const svg = element(
    "svg",
    { viewBox: `0 0 ${CHART_WIDTH} ${height}`, width: CHART_WIDTH, height, role: "img", "aria-label": title },
    xAxis(ticks, scale, plotBottom, TOP - 4, formatSeconds) + workerLabels(rows, laneHeight, scale(scale.domainMax)) + rects.join(""),
  );
  const notes: string[] = [];
  if (merged.length > 0) {
    const mergedTasks = merged.reduce((sum, mark) => sum + mark.tasks, 0);
    notes.push(`${formatCount(mergedTasks)} short task runs are drawn as ${formatCount(merged.length)} merged rectangles (same prefix, less than ${mergedAt} px apart).`);
  }
  if (omitted > 0) {
    notes.push(`${formatCount(omitted)} of the narrowest rectangles are not drawn, to keep the file small (at most ${formatCount(MAX_TASK_MARKS)}).`);
  }
  notes.push(`${formatCount(report.taskRecords.length)} task runs on ${rows.length} ${rows.length === 1 ? "thread" : "threads"}.`);
  if ((report.taskRecordsDropped ?? 0) > 0) {
    notes.push(`The simulator kept the first ${formatCount(report.taskRecords.length)} task records only; ${formatCount(report.taskRecordsDropped ?? 0)} more ran but are not in the report.`);
  }
  return { id, title, description, legend, body: svg, note: notes.join(" ") };
}

function lanes(report: SimReport): Row[] {
  const threads = new Map<string, number>();
  for (const worker of report.perWorker) threads.set(worker.address, worker.nthreads);
  for (const record of report.taskRecords) threads.set(record.worker, Math.max(threads.get(record.worker) ?? 0, record.thread + 1));
  const order = [...threads.keys()];
  return order.flatMap((worker) => Array.from({ length: Math.max(1, threads.get(worker)!) }, (_, thread) => ({ worker, thread })));
}

function mergeRow(records: readonly TaskRecord[], row: number, gapSeconds: number): Mark[] {
  const marks: Mark[] = [];
  let current: Mark | undefined;
  for (const record of records) {
    if (current && current.prefix === record.prefix && current.outcome === record.outcome && record.start - current.end <= gapSeconds) {
      current.end = Math.max(current.end, record.end);
      current.tasks += 1;
      continue;
    }
    current = { row, start: record.start, end: record.end, prefix: record.prefix, outcome: record.outcome, first: record, tasks: 1 };
    marks.push(current);
  }
  return marks;
}

function markTip(mark: Mark, row: Row): string {
  const where = `${row.worker}, thread ${row.thread}`;
  const when = `${formatSeconds(mark.start)} → ${formatSeconds(mark.end)} (${formatSeconds(mark.end - mark.start)})`;
  if (mark.tasks === 1) return `${mark.first.key}\nprefix ${mark.prefix} · ${mark.outcome}\n${where}\n${when}`;
  return `${mark.tasks} runs of ${mark.prefix} (merged) · ${mark.outcome}\n${where}\n${when}`;
}

function workerLabels(rows: readonly Row[], laneHeight: number, plotRight: number): string {
  const parts: string[] = [];
  const blocks: Array<{ worker: string; first: number; count: number }> = [];
  rows.forEach((row, index) => {
    const last = blocks[blocks.length - 1];
    if (last && last.worker === row.worker) last.count += 1;
    else blocks.push({ worker: row.worker, first: index, count: 1 });
  });
  const minSpacing = 12;
  let lastLabelY = -Infinity;
  for (const block of blocks) {
    const top = TOP + block.first * laneHeight;
    const middle = top + (block.count * laneHeight) / 2;
    if (block.first > 0) parts.push(element("line", { class: "separator", x1: 4, x2: plotRight, y1: top - 0.5, y2: top - 0.5 }));
    if (middle - lastLabelY >= minSpacing) {
      parts.push(element("text", { x: PLOT_LEFT - 8, y: middle + 4, class: "label", "text-anchor": "end", "data-tip": block.worker }, escapeHtml(truncate(block.worker, 20))));
      lastLabelY = middle;
    }
  }
  return parts.join("");
}

function prefixLegend(records: readonly TaskRecord[], colours: ReadonlyMap<string, string>): LegendEntry[] {
  const present = new Set(records.map((record) => record.prefix));
  return [...colours].filter(([prefix]) => present.has(prefix)).map(([prefix, colour]) => ({ series: prefix, label: prefix, colour }));
}
