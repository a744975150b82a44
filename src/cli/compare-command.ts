// `spanwork compare RESULTS… [--baseline AXIS=VALUE…] [--html FILE] [--json FILE|-]`.
import { compare, type Comparison } from "../lab/compare.js";
import type { AxisLabel } from "../lab/plan.js";
import type { SweepResult } from "../lab/result.js";
import type { CliIo } from "./cli-io.js";
import { formatComparison } from "./compare-format.js";
import { CliUsageError } from "./errors.js";
import { createStyle, shouldUseColor } from "./format/color.js";
import { formatBytes } from "./format/units.js";
import { renderComparePage } from "./html/compare-page.js";
import { checkOutputPath, writeOutputFile } from "./output-files.js";
import { readResultsFiles } from "./results-file.js";
import { packageVersion } from "./version.js";

export interface CompareFlags {
  baseline?: string;
  html?: string;
  json?: string;
}

const STDOUT_PATH = "-";

/**
 * `--baseline "scheduler=dask workers=4"` (or comma-separated): each value is matched with the
 * axis labels the results carry, as text, so `workers=4` finds the label 4.
 */
export function parseBaseline(text: string, results: readonly SweepResult[]): Record<string, AxisLabel> {
  const labels = new Map<string, AxisLabel[]>();
  for (const result of results) {
    for (const [axis, label] of Object.entries(result.options)) {
      let list = labels.get(axis);
      if (list === undefined) labels.set(axis, (list = []));
      if (!list.some((known) => JSON.stringify(known) === JSON.stringify(label))) list.push(label);
    }
  }
  const baseline: Record<string, AxisLabel> = Object.create(null) as Record<string, AxisLabel>;
  const parts = text.split(/[\s,]+/).filter((part) => part !== "");
  if (parts.length === 0) throw new CliUsageError('--baseline: expected AXIS=VALUE pairs, e.g. "scheduler=dask"');
  for (const part of parts) {
    const equals = part.indexOf("=");
    if (equals <= 0) throw new CliUsageError(`--baseline: expected AXIS=VALUE, got "${part}"`);
    const axis = part.slice(0, equals);
    const value = part.slice(equals + 1);
    const known = labels.get(axis);
    if (known === undefined) throw new CliUsageError(`--baseline: "${axis}" is not an axis of these results (axes: ${[...labels.keys()].join(", ") || "none"})`);
    const match = known.find((label) => (typeof label === "string" ? label : JSON.stringify(label)) === value);
    if (match === undefined) {
      throw new CliUsageError(`--baseline: ${axis}=${value} is not a value of axis ${axis} (${known.map((label) => (typeof label === "string" ? label : JSON.stringify(label))).join(", ")})`);
    }
    baseline[axis] = match;
  }
  return baseline;
}

export function compareCommand(files: readonly string[], flags: CompareFlags, io: CliIo): number {
  if (flags.html === STDOUT_PATH) throw new CliUsageError('--html: writing to stdout ("-") is supported for --json only; give a file name');
  const jsonToStdout = flags.json === STDOUT_PATH;
  const jsonPath = flags.json !== undefined && !jsonToStdout ? checkOutputPath(flags.json, "--json", io.cwd) : undefined;
  const htmlPath = flags.html !== undefined ? checkOutputPath(flags.html, "--html", io.cwd) : undefined;
  if (jsonPath !== undefined && jsonPath === htmlPath) throw new CliUsageError(`--html: same file as --json ("${htmlPath}"); give each output its own file`);
  const results = readResultsFiles(files, io.cwd).flat();
  if (results.length === 0) throw new CliUsageError(`${files.join(", ")}: no results to compare`);
  const baseline = flags.baseline === undefined ? undefined : parseBaseline(flags.baseline, results);
  const comparison: Comparison = compare(results, baseline === undefined ? {} : { baseline });
  const written: string[] = [];
  const json = `${JSON.stringify(comparison, null, 2)}\n`;
  if (jsonPath !== undefined) {
    writeOutputFile(jsonPath, json, "--json");
    written.push(`wrote ${flags.json} (comparison JSON, ${formatBytes(Buffer.byteLength(json))})`);
  }
  if (htmlPath !== undefined) {
    const html = renderComparePage(comparison, { generator: `spanwork ${packageVersion()}`, ...(flags.baseline === undefined ? {} : { baseline: flags.baseline }) });
    writeOutputFile(htmlPath, html, "--html");
    written.push(`wrote ${flags.html} (HTML comparison, ${formatBytes(Buffer.byteLength(html))})`);
  }
  if (jsonToStdout) {
    io.stdout.write(json);
    return 0;
  }
  const style = createStyle(shouldUseColor(io.stdout, io.env));
  io.stdout.write(formatComparison(comparison, { style, ...(flags.baseline === undefined ? {} : { baseline: flags.baseline }) }));
  if (written.length > 0) io.stdout.write(`\n${written.join("\n")}\n`);
  return 0;
}
