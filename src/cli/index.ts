// The `spanwork` command (src/cli): argument handling, the text summary, and the --json, --html
// and --trace outputs of a simulated run. docs/cli.md describes the command,
// docs/report-schema.md the JSON report.
export { main, type MainDependencies } from "./main.js";
export type { CliIo } from "./cli-io.js";
export type { SimulatorApi, CliWorkload, WorkloadListing } from "./simulator-api.js";
export { CliUsageError, CliFailure, IncompleteRunError, SpecProblemsError, EXIT_OK, EXIT_FAILURE, EXIT_USAGE } from "./errors.js";
export { parseSize, parseMemoryLimit } from "./parse-size.js";
export { formatSummary, type SummaryOptions } from "./summary.js";
export { fineMetricBreakdown, activityStacks, type FineMetricRow, type FineMetricBreakdown, type ActivityStack } from "./fine-metrics.js";
export { reportToJson } from "./report-json.js";
export { reportSchema, reportJsonSchema, type ReportJson } from "./report-schema.js";
export { renderHtmlReport, type HtmlReportOptions } from "./html/report-page.js";
export { DEFAULT_WORKLOAD } from "./workload-source.js";
