import type { TransferRecord } from "../../sim/report.js";
import { formatBytes, formatCount, formatSeconds } from "../format/units.js";
import { compareText } from "../text-order.js";
import { CHART_WIDTH, type Chart, type ChartEntry } from "./chart.js";
import { emptyChart } from "./stacked-bars.js";
import { element, text } from "./svg.js";
import { shortWorkerNames } from "./worker-names.js";

/** Workers shown as rows and columns at most; the rest fold into one "others" row and column. */
export const MAX_MATRIX_WORKERS = 16;
const OTHERS = "others";

const PANEL_GAP = 16;
const PANEL_WIDTH = (CHART_WIDTH - PANEL_GAP) / 2;
const LABEL_WIDTH = 86;
const TOTAL_WIDTH = 64;
const MAX_CELL = 64;
const TITLE_HEIGHT = 26;
const RAMP_HEIGHT = 30;

const BYTE_RAMP = ["#eff6ff", "#bfdbfe", "#60a5fa", "#2563eb", "#1e3a8a"] as const;
const TIME_RAMP = ["#fff7ed", "#fed7aa", "#fb923c", "#ea580c", "#7c2d12"] as const;
/** The lightest shade of a cell that moved anything, so that small but non-zero cells still show. */
const MIN_SHADE = 0.1;

interface Cell {
  from: string;
  to: string;
  count: number;
  bytes: number;
  seconds: number;
  outcomes: Map<string, number>;
}

interface Measure {
  key: "bytes" | "seconds";
  title: string;
  format: (value: number) => string;
  ramp: readonly string[];
}

const MEASURES: readonly Measure[] = [
  { key: "bytes", title: "bytes moved", format: formatBytes, ramp: BYTE_RAMP },
  { key: "seconds", title: "time transferring", format: formatSeconds, ramp: TIME_RAMP },
];

/**
 * Who sent how much to whom: a worker × worker matrix of bytes moved and one of time spent in
 * transfers, rows the serving worker, columns the fetching one, with totals per row and column.
 * The tooltip of a cell gives both, the number of transfers and their outcomes; cells with
 * transfers that did not deliver (busy, failed, missing, cancelled) have a red corner.
 */
export const transferMatrix: ChartEntry = {
  description: "worker × worker matrix of bytes and time moved between workers",
  render: ({ report }): Chart => {
    const id = "transfer-matrix";
    const title = "Transfers between workers";
    const description =
      "Each cell is what one worker (row) sent to another (column): bytes on the left, time spent transferring on the right, darker for more. Hover a cell for both, the number of transfers and how they ended; a red corner marks transfers that did not deliver.";
    if (report.transfers.length === 0) {
      return { id, title, description, legend: [], body: emptyChart("no transfers between workers"), note: "" };
    }
    const traffic = new Map<string, number>();
    for (const worker of report.perWorker) traffic.set(worker.address, 0);
    for (const transfer of report.transfers) {
      traffic.set(transfer.from, (traffic.get(transfer.from) ?? 0) + transfer.bytes + 1);
      traffic.set(transfer.to, (traffic.get(transfer.to) ?? 0) + transfer.bytes + 1);
    }
    const all = [...traffic.keys()];
    const folded = all.length > MAX_MATRIX_WORKERS;
    const kept = new Set(folded ? [...traffic].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).slice(0, MAX_MATRIX_WORKERS - 1).map(([worker]) => worker) : all);
    const workers = all.filter((worker) => kept.has(worker));
    if (folded) workers.push(OTHERS);
    const slot = (worker: string): string => (kept.has(worker) ? worker : OTHERS);
    const cells = new Map<string, Cell>();
    for (const transfer of report.transfers) addTransfer(cells, slot(transfer.from), slot(transfer.to), transfer);

    const names = shortWorkerNames(workers.filter((worker) => worker !== OTHERS));
    const label = (worker: string): string => (worker === OTHERS ? OTHERS : names.get(worker)!);
    const body = MEASURES.map((measure) => matrixSvg(measure, workers, cells, label)).join("");
    const notes: string[] = [`${formatCount(report.transfers.length)} transfers; rows send, columns receive.`];
    if (folded) notes.push(`The ${formatCount(all.length - workers.length + 1)} workers with the least traffic are folded into "${OTHERS}".`);
    if ((report.transfersDropped ?? 0) > 0) notes.push(`The simulator kept the first ${formatCount(report.transfers.length)} transfers only; ${formatCount(report.transfersDropped ?? 0)} more are not counted here.`);
    return { id, title, description, legend: [], body: `<div class="panels">${body}</div>`, note: notes.join(" ") };
  },
};

function addTransfer(cells: Map<string, Cell>, from: string, to: string, transfer: TransferRecord): void {
  const key = `${from}\u0000${to}`;
  let cell = cells.get(key);
  if (!cell) cells.set(key, (cell = { from, to, count: 0, bytes: 0, seconds: 0, outcomes: new Map() }));
  cell.count += 1;
  if (Number.isFinite(transfer.bytes)) cell.bytes += transfer.bytes;
  if (transfer.end > transfer.start) cell.seconds += transfer.end - transfer.start;
  cell.outcomes.set(transfer.outcome, (cell.outcomes.get(transfer.outcome) ?? 0) + 1);
}

function matrixSvg(measure: Measure, workers: readonly string[], cells: ReadonlyMap<string, Cell>, label: (worker: string) => string): string {
  const n = workers.length;
  const cellSize = Math.min(MAX_CELL, Math.floor((PANEL_WIDTH - LABEL_WIDTH - TOTAL_WIDTH) / n));
  // Column labels stand upright when they fit their column (about 6.5 px a character).
  const rotate = workers.some((worker) => label(worker).length * 6.5 > cellSize - 4);
  const headerHeight = rotate ? 64 : 22;
  const left = LABEL_WIDTH;
  const top = TITLE_HEIGHT + headerHeight;
  const gridSize = cellSize * n;
  const height = top + gridSize + 22 + RAMP_HEIGHT;
  const value = (cell: Cell | undefined): number => (cell === undefined ? 0 : cell[measure.key]);
  const maxValue = Math.max(0, ...[...cells.values()].map(value));
  const parts: string[] = [text(0, 13, measure.title, { class: "panel-title" }), text(left - 6, top - 6, "from ↓ to →", { class: "tick", "text-anchor": "end" })];
  workers.forEach((worker, index) => {
    const x = left + index * cellSize + cellSize / 2;
    const y = top + index * cellSize + cellSize / 2;
    parts.push(text(left - 6, y + 4, label(worker), { class: "label", "text-anchor": "end", "data-tip": worker }));
    parts.push(
      rotate
        ? text(x + 3, top - 6, label(worker), { class: "label", "text-anchor": "start", transform: `rotate(-50 ${x + 3} ${top - 6})`, "data-tip": worker })
        : text(x, top - 6, label(worker), { class: "label", "text-anchor": "middle", "data-tip": worker }),
    );
  });
  const rowTotals = workers.map(() => 0);
  const columnTotals = workers.map(() => 0);
  workers.forEach((from, row) => {
    workers.forEach((to, column) => {
      const x = left + column * cellSize;
      const y = top + row * cellSize;
      const cell = cells.get(`${from}\u0000${to}`);
      if (cell === undefined) {
        parts.push(element("rect", { class: from === to ? "cell self" : "cell empty", x: x + 0.5, y: y + 0.5, width: cellSize - 1, height: cellSize - 1, "data-tip": from === to ? `${from}\n(a worker does not fetch from itself)` : `${from} → ${to}\nno transfers` }));
        return;
      }
      rowTotals[row]! += value(cell);
      columnTotals[column]! += value(cell);
      const share = maxValue > 0 ? value(cell) / maxValue : 0;
      const shade = value(cell) > 0 ? MIN_SHADE + (1 - MIN_SHADE) * share : 0;
      parts.push(
        element("rect", {
          class: "mark cell",
          "data-series": measure.key,
          "data-from": from,
          "data-to": to,
          "data-tip": cellTip(cell),
          x: x + 0.5,
          y: y + 0.5,
          width: cellSize - 1,
          height: cellSize - 1,
          fill: ramp(measure.ramp, shade),
        }),
      );
      if (cellSize >= 40 && value(cell) > 0) {
        parts.push(text(x + cellSize / 2, y + cellSize / 2 + 4, shortValue(measure, value(cell)), { class: shade > 0.55 ? "cell-value dark" : "cell-value", "text-anchor": "middle" }));
      }
      if (undelivered(cell) > 0) {
        const corner = Math.max(5, cellSize / 5);
        parts.push(element("path", { class: "undelivered", d: `M${x + cellSize - 0.5 - corner},${y + 0.5}H${x + cellSize - 0.5}V${y + 0.5 + corner}Z` }));
      }
    });
  });
  workers.forEach((worker, index) => {
    parts.push(text(left + gridSize + 6, top + index * cellSize + cellSize / 2 + 4, measure.format(rowTotals[index]!), { class: "total", "data-tip": `${worker} sent ${measure.format(rowTotals[index]!)} in all` }));
    const x = left + index * cellSize + cellSize / 2;
    if (cellSize >= 44) parts.push(text(x, top + gridSize + 14, measure.format(columnTotals[index]!), { class: "total", "text-anchor": "middle", "data-tip": `${worker} received ${measure.format(columnTotals[index]!)} in all` }));
  });
  parts.push(text(left + gridSize + 6, top - 6, "sent", { class: "tick" }));
  if (cellSize >= 44) parts.push(text(left - 6, top + gridSize + 14, "received", { class: "tick", "text-anchor": "end" }));
  parts.push(rampLegend(measure, left, top + gridSize + 22, maxValue));
  return element("svg", { class: "matrix", viewBox: `0 0 ${PANEL_WIDTH} ${height}`, width: PANEL_WIDTH, height, role: "img", "aria-label": `transfers between workers: ${measure.title}` }, parts.join(""));
}

function cellTip(cell: Cell): string {
  const outcomes = [...cell.outcomes].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).map(([outcome, count]) => `${formatCount(count)} ${outcome}`);
  const rate = cell.seconds > 0 ? ` (${formatBytes(cell.bytes / cell.seconds)}/s)` : "";
  return `${cell.from} → ${cell.to}\n${formatBytes(cell.bytes)} in ${formatSeconds(cell.seconds)}${rate}\n${formatCount(cell.count)} ${cell.count === 1 ? "transfer" : "transfers"}: ${outcomes.join(", ")}`;
}

function undelivered(cell: Cell): number {
  let count = 0;
  for (const [outcome, n] of cell.outcomes) if (outcome !== "ok") count += n;
  return count;
}

/** The value in a cell, short enough for it: `12.3 MiB` → `12.3M`. */
function shortValue(measure: Measure, value: number): string {
  const full = measure.format(value);
  return measure.key === "bytes" ? full.replace(/ ([KMGTP])iB$/, "$1").replace(/ B$/, "B") : full.replace(" ", "");
}

function rampLegend(measure: Measure, left: number, top: number, maxValue: number): string {
  const steps = 8;
  const width = 18;
  const swatches = Array.from({ length: steps }, (_, index) => element("rect", { class: "ramp", x: left + index * width, y: top, width, height: 8, fill: ramp(measure.ramp, MIN_SHADE + ((1 - MIN_SHADE) * index) / (steps - 1)) })).join("");
  return swatches + text(left, top + 20, "> 0", { class: "tick" }) + text(left + steps * width, top + 20, measure.format(maxValue), { class: "tick", "text-anchor": "end" });
}

/** Linear interpolation between the ramp's stops in sRGB, `share` from 0 to 1. */
function ramp(stops: readonly string[], share: number): string {
  const position = Math.min(1, Math.max(0, share)) * (stops.length - 1);
  const index = Math.min(stops.length - 2, Math.floor(position));
  const fraction = position - index;
  const channel = (hex: string, offset: number): number => Number.parseInt(hex.slice(offset, offset + 2), 16);
  const mixed = [1, 3, 5].map((offset) => Math.round(channel(stops[index]!, offset) + (channel(stops[index + 1]!, offset) - channel(stops[index]!, offset)) * fraction));
  return `#${mixed.map((value) => value.toString(16).padStart(2, "0")).join("")}`;
}
