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

export const CHART_WIDTH = 960;
