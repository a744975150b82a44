import type { Registry } from "../../util/registry.js";
import { bytesByActivity, timeByActivity } from "./activity-charts.js";
import { bandwidthChart } from "./bandwidth-chart.js";
import type { ChartEntry } from "./chart.js";
import { memoryChart } from "./memory-chart.js";
import { taskStream } from "./task-stream.js";
import { threadTimeChart } from "./thread-time-chart.js";
import { transferMatrix } from "./transfer-matrix.js";
import { workerBalance } from "./worker-balance.js";

// The charts of the HTML report, in page order: a new chart is one file exporting a ChartEntry
// plus one line here. The name is the chart's id (its `data-chart` attribute and anchor). The
// charts over time come together, so that zooming one (the page script zooms them all at once)
// keeps the others in view.
export const CHARTS = {
  "thread-time": threadTimeChart,
  "time-by-activity": timeByActivity,
  "bytes-by-activity": bytesByActivity,
  "task-stream": taskStream,
  memory: memoryChart,
  bandwidth: bandwidthChart,
  "transfer-matrix": transferMatrix,
  "worker-balance": workerBalance,
} satisfies Registry<ChartEntry>;
