import type { TransferRecord } from "../../sim/report.js";
import { formatBytes, formatCount, formatSeconds } from "../format/units.js";
import type { Chart, ChartEntry, LegendEntry } from "./chart.js";
import { markerLayer, markerLegend, markerNote, type MarkerLayer } from "./marker-layer.js";
import { runEnd } from "./markers.js";
import { PANEL, panelSvg, valueScale } from "./panels.js";
import { emptyChart } from "./stacked-bars.js";
import { byteTicks, element, px } from "./svg.js";
import { timeX, type TimeFrame } from "./timeline.js";

/** Worker panels drawn at most: those that moved the most bytes. */
export const MAX_BANDWIDTH_PANELS = 12;
/** Time bins across the run: about two screen pixels each in a worker panel. */
export const BANDWIDTH_BINS = 200;

const RECEIVED_COLOUR = "#0284c7";
const SENT_COLOUR = "#ea580c";
const TOTAL_COLOUR = "#475569";

/** Bytes per second of one series in each time bin. */
type Rates = Float64Array;

/**
 * Network bandwidth over time: the whole cluster's rate in one wide panel, then one panel per
 * worker with what it received above the axis and what it sent below, on one shared scale. Each
 * transfer that delivered data counts its bytes evenly over its duration, averaged per time bin.
 */
export const bandwidthChart: ChartEntry = {
  description: "bytes per second moved between workers over time, in total and per worker in and out",
  render: ({ report, markers }): Chart => {
    const id = "bandwidth";
    const title = "Network bandwidth over time";
    const description =
      "Bytes per second moved between workers, over simulated time: the whole cluster first, then each worker with what it received (above the axis) and sent (below). Each completed transfer counts its bytes evenly over its duration.";
    const legend: LegendEntry[] = [
      { series: "total", label: "all transfers", colour: TOTAL_COLOUR },
      { series: "received", label: "received", colour: RECEIVED_COLOUR },
      { series: "sent", label: "sent", colour: SENT_COLOUR },
      ...markerLegend(markers),
    ];
    const moved = report.transfers.filter(delivered);
    if (moved.length === 0) {
      return { id, title, description, legend, body: emptyChart("no data moved between workers"), note: "" };
    }
    const end = runEnd(report);
    const { binWidth, total, received, sent, bytesByWorker } = bandwidthSeries(moved, report.perWorker.map((worker) => worker.address), end);
    const shown = [...bytesByWorker]
      .filter(([, bytes]) => bytes > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, MAX_BANDWIDTH_PANELS)
      .map(([worker]) => worker);
    const shownSet = new Set(shown);
    const workers = [...bytesByWorker.keys()].filter((worker) => shownSet.has(worker));
    const layers: MarkerLayer[] = [];

    const totalFrame: TimeFrame = { ...PANEL.fullFrame, end };
    const totalTicks = byteTicks(max(total), 2);
    const totalY = valueScale(totalTicks[totalTicks.length - 1]!);
    const totalX = timeX(totalFrame);
    const totalPanel = panelSvg({
      title: "all workers",
      label: "bandwidth of all transfers",
      yTicks: totalTicks.map((tick) => ({ y: totalY(tick), text: rate(tick) })),
      frame: totalFrame,
      marks: areaPath(total, totalX, totalY, binWidth, { class: "mark area", "data-series": "total", "data-tip": `all transfers\npeak ${rate(max(total))}, ${formatBytes(sum(moved))} in ${formatCount(moved.length)} transfers`, fill: TOTAL_COLOUR, stroke: TOTAL_COLOUR }),
      full: true,
    });

    // One scale for every worker panel, half the height each way from the middle.
    const peak = Math.max(...workers.flatMap((worker) => [max(received.get(worker)), max(sent.get(worker))]));
    const ticks = byteTicks(peak, 1);
    const half = PANEL.frame.height / 2;
    const up = valueScale(ticks[ticks.length - 1]!, half);
    const yIn = (value: number): number => up(value);
    const yOut = (value: number): number => PANEL.frame.height - up(value);
    const yTicks = [...ticks.map((tick) => ({ y: yIn(tick), text: rate(tick) })), ...ticks.filter((tick) => tick > 0).map((tick) => ({ y: yOut(tick), text: rate(tick) }))];
    const panels = workers.map((worker) => {
      const frame: TimeFrame = { ...PANEL.frame, end };
      const x = timeX(frame);
      const layer = markerLayer(markers, (w) => (w === worker ? { top: 0, height: PANEL.frame.height } : undefined), x, end, true);
      layers.push(layer);
      const inRates = received.get(worker) ?? new Float64Array(BANDWIDTH_BINS);
      const outRates = sent.get(worker) ?? new Float64Array(BANDWIDTH_BINS);
      const marks =
        layer.behind +
        areaPath(inRates, x, yIn, binWidth, { class: "mark area", "data-series": "received", "data-tip": `${worker}\nreceived, peak ${rate(max(inRates))}`, fill: RECEIVED_COLOUR, stroke: RECEIVED_COLOUR }) +
        areaPath(outRates, x, yOut, binWidth, { class: "mark area", "data-series": "sent", "data-tip": `${worker}\nsent, peak ${rate(max(outRates))}`, fill: SENT_COLOUR, stroke: SENT_COLOUR }) +
        layer.front +
        layer.hits;
      const axis = element("line", { class: "baseline", x1: frame.left, x2: frame.left + frame.width, y1: frame.top + half, y2: frame.top + half });
      return panelSvg({ title: worker, label: `bandwidth of ${worker}`, died: markers.deaths.some((death) => death.worker === worker), yTicks, frame, marks, overlay: axis });
    });
    const notes: string[] = [];
    const hidden = [...bytesByWorker.values()].filter((bytes) => bytes > 0).length - workers.length;
    if (hidden > 0) notes.push(`Showing the ${workers.length} workers that moved the most bytes; ${hidden} more are in --json.`);
    notes.push(`Averaged over ${BANDWIDTH_BINS} time bins of ${formatSeconds(binWidth)}.`);
    if ((report.transfersDropped ?? 0) > 0) notes.push(`The simulator kept the first ${formatCount(report.transfers.length)} transfers only; ${formatCount(report.transfersDropped ?? 0)} more are not in the report.`);
    const markersNote = markerNote(markers, layers);
    if (markersNote !== "") notes.push(markersNote);
    return { id, title, description, legend, body: `<div class="panels">${totalPanel}${panels.join("")}</div>`, note: notes.join(" ") };
  },
};

export interface BandwidthSeries {
  binWidth: number;
  /** Bytes per second of all transfers, per bin. */
  total: Rates;
  /** Per worker: bytes per second it received, and sent, per bin. */
  received: Map<string, Rates>;
  sent: Map<string, Rates>;
  /** Bytes each worker moved (sent plus received), in the order of `workers` then first seen. */
  bytesByWorker: Map<string, number>;
}

/** A transfer that moved data, with finite numbers. */
function delivered(transfer: TransferRecord): boolean {
  return transfer.bytes > 0 && Number.isFinite(transfer.bytes) && Number.isFinite(transfer.start) && Number.isFinite(transfer.end);
}

/** The rates of the transfers that moved data, in BANDWIDTH_BINS bins from 0 to `end`. */
export function bandwidthSeries(transfers: readonly TransferRecord[], workers: readonly string[], end: number): BandwidthSeries {
  const binWidth = (end > 0 ? end : 1) / BANDWIDTH_BINS;
  const total = new Float64Array(BANDWIDTH_BINS);
  const received = new Map<string, Rates>();
  const sent = new Map<string, Rates>();
  const bytesByWorker = new Map<string, number>(workers.map((worker) => [worker, 0]));
  const series = (map: Map<string, Rates>, worker: string): Rates => {
    let rates = map.get(worker);
    if (!rates) map.set(worker, (rates = new Float64Array(BANDWIDTH_BINS)));
    return rates;
  };
  for (const transfer of transfers) {
    if (!delivered(transfer)) continue;
    spread(transfer, binWidth, [total, series(received, transfer.to), series(sent, transfer.from)]);
    bytesByWorker.set(transfer.to, (bytesByWorker.get(transfer.to) ?? 0) + transfer.bytes);
    bytesByWorker.set(transfer.from, (bytesByWorker.get(transfer.from) ?? 0) + transfer.bytes);
  }
  return { binWidth, total, received, sent, bytesByWorker };
}

/** Adds the transfer's bytes, evenly over [start, end], to each series as an average rate per bin. */
function spread(transfer: TransferRecord, binWidth: number, series: readonly Rates[]): void {
  const bins = series[0]!.length;
  const add = (bin: number, bytesPerSecond: number): void => {
    for (const rates of series) rates[bin]! += bytesPerSecond;
  };
  const clampBin = (time: number): number => Math.min(bins - 1, Math.max(0, Math.floor(time / binWidth)));
  if (!(transfer.end > transfer.start)) {
    add(clampBin(transfer.start), transfer.bytes / binWidth);
    return;
  }
  const bytesPerSecond = transfer.bytes / (transfer.end - transfer.start);
  const first = clampBin(transfer.start);
  const last = clampBin(transfer.end);
  for (let bin = first; bin <= last; bin += 1) {
    const from = Math.max(transfer.start, bin * binWidth);
    const to = bin === bins - 1 ? transfer.end : Math.min(transfer.end, (bin + 1) * binWidth);
    if (to > from) add(bin, (bytesPerSecond * (to - from)) / binWidth);
  }
}

/** A step area from the baseline (y of 0) through every bin. */
function areaPath(rates: Rates, x: (t: number) => number, y: (v: number) => number, binWidth: number, attributes: Record<string, string>): string {
  const base = px(y(0));
  let d = `M${px(x(0))},${base}`;
  rates.forEach((value, bin) => {
    d += `V${px(y(value))}H${px(x((bin + 1) * binWidth))}`;
  });
  d += `V${base}Z`;
  return element("path", { ...attributes, "data-points": rates.length, d });
}

function max(rates: Rates | undefined): number {
  return rates === undefined ? 0 : rates.reduce((peak, value) => Math.max(peak, value), 0);
}

function sum(transfers: readonly TransferRecord[]): number {
  return transfers.reduce((total, transfer) => total + transfer.bytes, 0);
}

function rate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}
