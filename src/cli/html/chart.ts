import type { SimReport } from "../../sim/report.js";
import type { RegistryEntry } from "../../util/registry.js";
import type { FineMetricBreakdown } from "../fine-metrics.js";
import type { TimelineMarkers } from "./markers.js";

/** One chart of the HTML report: its SVG markup plus the words around it. */
export interface Chart {
  /** Stable id, also the `data-chart` attribute the browser test looks for. */
  id: string;
  title: string;
  description: string;
  legend: LegendEntry[];
  /** Trusted markup: one or more <svg> elements. */
  body: string;
  /** What was simplified to keep the file small, said plainly; "" when nothing was. */
  note: string;
}

export interface LegendEntry {
  /** Matches the `data-series` attribute of the marks it stands for (hovering highlights them). */
  series: string;
  label: string;
  colour: string;
}

/** What every chart may draw from, computed once per report. */
export interface ChartContext {
  report: SimReport;
  breakdown: FineMetricBreakdown;
  /** Colour of every task prefix (see palette.ts), in legend order. */
  prefixColours: ReadonlyMap<string, string>;
  /** Deaths, pauses and steals, for the charts over time. */
  markers: TimelineMarkers;
}

/** An entry of the chart registry (charts.ts): one chart, drawn from the context. */
export interface ChartEntry extends RegistryEntry {
  render(context: ChartContext): Chart;
}

export const CHART_WIDTH = 960;
