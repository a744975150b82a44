import type { TaskRecord } from "../../sim/report.js";
import { formatCount, formatSeconds } from "../format/units.js";
import { compareText } from "../text-order.js";
import { CHART_WIDTH, type Chart, type ChartEntry, type LegendEntry } from "./chart.js";
import { escapeHtml, truncate } from "./escape.js";
import { markerLayer, markerLegend, markerNote, type Band } from "./marker-layer.js";
import { runEnd } from "./markers.js";
import { emptyChart } from "./stacked-bars.js";
import { element } from "./svg.js";
import { atLeastPixels, timeFrame, timeX, type TimeFrame } from "./timeline.js";

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
  /** The worker's thread count: slots from it on are extra (more tasks ran at once than threads). */
  nthreads: number;
}

/**
 * The task stream: one lane per worker thread, one rectangle per task attempt coloured by
 * prefix, from its start to its end in simulated time, with pauses, deaths and steals marked on
 * the lanes of their worker. Neighbouring attempts of the same prefix closer than a pixel (then
 * 2, 4… px) are merged until at most MAX_TASK_MARKS remain; if that is not enough, the narrowest
 * are left out. The note says how many of either. Zoomable by the page script (timeline.ts).
 */
export const taskStream: ChartEntry = {
  description: "one lane per worker thread, one rectangle per task run, with pauses, deaths and steals",
  render: ({ report, prefixColours: colours, markers }): Chart => {
    const id = "task-stream";
    const title = "Task stream";
    const description =
      "Each lane is one worker thread; each rectangle a task run from start to end in simulated time, coloured by task prefix. Failed runs have a red outline, cancelled or rescheduled ones are faded; pauses, deaths and steals are marked on their worker's lanes.";
    const legend = [...prefixLegend(report.taskRecords, colours), ...markerLegend(markers)];
    if (report.taskRecords.length === 0) {
      return { id, title, description, legend, body: emptyChart("no task ran"), note: "" };
    }
    const rows = lanes(report.perWorker, report.taskRecords);
    const rowIndex = new Map(rows.map((row, index) => [`${row.worker}\u0000${row.thread}`, index]));
    const end = runEnd(report);
    const plotWidth = CHART_WIDTH - PLOT_LEFT - PLOT_RIGHT_MARGIN;
    const secondsPerPixel = (end > 0 ? end : 1) / plotWidth;

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
    const frame: TimeFrame = { left: PLOT_LEFT, width: plotWidth, top: TOP, height: rows.length * laneHeight, end };
    const x = timeX(frame);
    const height = Math.ceil(frame.top + frame.height + AXIS_HEIGHT);

    const extraSlots = rows.flatMap((row, index) =>
      row.thread < row.nthreads
        ? []
        : [element("rect", { class: "extra-slot", "data-tip": extraSlotTip(row), x: 0, y: index * laneHeight, width: x(end), height: rowHeight })],
    );
    const rects = marks.map((mark) => {
      const outcomeClass = mark.outcome === "ok" ? "" : mark.outcome === "failed" ? " failed" : " faded";
      return element("rect", {
        class: `mark${outcomeClass}`,
        "data-series": mark.prefix,
        "data-tip": markTip(mark, rows[mark.row]!),
        x: x(mark.start),
        y: mark.row * laneHeight,
        width: atLeastPixels(x(mark.end) - x(mark.start), 0.6),
        height: rowHeight,
        fill: colours.get(mark.prefix) ?? "#999",
      });
    });
    const layer = markerLayer(markers, workerBands(rows, laneHeight), x, end);

    const svg = element(
      "svg",
      { class: "timeline", viewBox: `0 0 ${CHART_WIDTH} ${height}`, width: CHART_WIDTH, height, role: "img", "aria-label": title },
      workerLabels(rows, laneHeight, PLOT_LEFT + plotWidth, markers.deaths.map((death) => death.worker)) +
        timeFrame(frame, extraSlots.join("") + layer.behind + layer.hits + rects.join("") + layer.front, 8, "task runs"),
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
    const markersNote = markerNote(markers, [layer]);
    if (markersNote !== "") notes.push(markersNote);
    return { id, title, description, legend, body: svg, note: notes.join(" ") };
  },
};

function lanes(workers: ReadonlyArray<{ address: string; nthreads: number }>, records: readonly TaskRecord[]): Row[] {
  const nthreads = new Map<string, number>();
  const slots = new Map<string, number>();
  for (const worker of workers) {
    nthreads.set(worker.address, worker.nthreads);
    slots.set(worker.address, worker.nthreads);
  }
  for (const record of records) slots.set(record.worker, Math.max(slots.get(record.worker) ?? 0, record.thread + 1));
  return [...slots].flatMap(([worker, count]) =>
    Array.from({ length: Math.max(1, count) }, (_, thread) => ({ worker, thread, nthreads: nthreads.get(worker) ?? count })),
  );
}

function workerBands(rows: readonly Row[], laneHeight: number): (worker: string) => Band | undefined {
  const bands = new Map<string, Band>();
  rows.forEach((row, index) => {
    const band = bands.get(row.worker);
    if (band) band.height = (index + 1) * laneHeight - band.top;
    else bands.set(row.worker, { top: index * laneHeight, height: laneHeight });
  });
  return (worker) => bands.get(worker);
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

/** Hover details of a mark: key, prefix, worker and thread, start, end and duration, outcome. */
function markTip(mark: Mark, row: Row): string {
  const when = `start ${formatSeconds(mark.start)} · end ${formatSeconds(mark.end)} (${formatSeconds(mark.end - mark.start)})`;
  const heading = mark.tasks === 1 ? mark.first.key : `${formatCount(mark.tasks)} runs merged (zoom in to see them apart)`;
  return `${heading}\nprefix ${mark.prefix} · ${mark.outcome}\n${row.worker} · thread ${row.thread}\n${when}`;
}

function extraSlotTip(row: Row): string {
  return `${row.worker} · thread slot ${row.thread}\nbeyond its ${row.nthreads} ${row.nthreads === 1 ? "thread" : "threads"}: more task runs held a thread slot at once than it has threads`;
}

function workerLabels(rows: readonly Row[], laneHeight: number, plotRight: number, died: readonly string[]): string {
  const dead = new Set(died);
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
      const isDead = dead.has(block.worker);
      parts.push(
        element(
          "text",
          { x: PLOT_LEFT - 8, y: middle + 4, class: isDead ? "label dead" : "label", "text-anchor": "end", "data-tip": isDead ? `${block.worker} (died)` : block.worker },
          escapeHtml(`${isDead ? "✕ " : ""}${truncate(block.worker, isDead ? 20 : 22)}`),
        ),
      );
      lastLabelY = middle;
    }
  }
  return parts.join("");
}

function prefixLegend(records: readonly TaskRecord[], colours: ReadonlyMap<string, string>): LegendEntry[] {
  const present = new Set(records.map((record) => record.prefix));
  return [...colours].filter(([prefix]) => present.has(prefix)).map(([prefix, colour]) => ({ series: prefix, label: prefix, colour }));
}
