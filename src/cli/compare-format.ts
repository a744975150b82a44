// The terminal tables of `spanwork compare`: one per workload, one row per configuration.
import type { Comparison, ConfigurationComparison, Verdict, WorkloadComparison } from "../lab/compare.js";
import { createStyle, type Style } from "./format/color.js";
import { renderTable, type Column } from "./format/table.js";
import { formatBytes, formatPercent, formatSeconds } from "./format/units.js";

export interface ComparisonTextOptions {
  style?: Style;
  /** How the baseline was chosen, for the heading: the --baseline text, or undefined for "the first configuration". */
  baseline?: string;
}

/** Control characters of names from plans and specs, shown escaped rather than sent to the terminal. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function verdictText(configuration: ConfigurationComparison, style: Style): string {
  const { baseline } = configuration;
  const counts = baseline.pairedSeeds >= 1 ? ` (${baseline.verdict === "slower" ? baseline.slower : baseline.faster}/${baseline.pairedSeeds} seeds)` : "";
  const colour: Record<Verdict, (text: string) => string> = {
    faster: style.green,
    slower: style.red,
    "within spread": style.dim,
    baseline: style.dim,
    "no baseline": style.yellow,
    "too few seeds": style.yellow,
  };
  const text = baseline.verdict === "faster" || baseline.verdict === "slower" ? `${baseline.verdict}${counts}` : baseline.verdict;
  return colour[baseline.verdict](text);
}

function orDash(value: number | null, format: (value: number) => string): string {
  return value === null ? "–" : format(value);
}

function seedsText(workload: WorkloadComparison): string {
  const seeds = new Set<number>();
  for (const configuration of workload.configurations) {
    for (const entry of configuration.makespans) seeds.add(entry.seed);
    for (const failure of configuration.failures) seeds.add(failure.seed);
  }
  const sorted = [...seeds].sort((a, b) => a - b);
  if (sorted.length === 0) return "no seeds";
  const contiguous = sorted.every((seed, i) => i === 0 || seed === sorted[i - 1]! + 1);
  if (sorted.length === 1) return `seed ${sorted[0]}`;
  return contiguous ? `seeds ${sorted[0]}–${sorted[sorted.length - 1]}` : `${sorted.length} seeds`;
}

function workloadSection(workload: WorkloadComparison, options: ComparisonTextOptions, style: Style): string[] {
  const count = workload.configurations.length;
  const baseline = options.baseline === undefined ? `baseline ${printable(workload.configurations[0]?.label ?? "–")}` : `baseline: each against ${printable(options.baseline)}`;
  const heading = `${printable(workload.workload)} · ${count} ${count === 1 ? "configuration" : "configurations"} · ${seedsText(workload)} · ${baseline}`;
  const anyFailed = workload.configurations.some((configuration) => configuration.failed > 0);
  const columns: Column[] = [
    { header: "configuration" },
    { header: "runs", align: "right" },
    ...(anyFailed ? [{ header: "failed", align: "right" } as Column] : []),
    { header: "makespan", align: "right" },
    { header: "spread (min–max)", align: "right" },
    { header: "× baseline", align: "right" },
    { header: "vs spread" },
    { header: "transfers", align: "right" },
    { header: "spill", align: "right" },
    { header: "utilisation", align: "right" },
    { header: "balance", align: "right" },
  ];
  const rows = workload.configurations.map((configuration) => {
    const spread = configuration.makespan;
    return [
      printable(configuration.label),
      String(configuration.runs),
      ...(anyFailed ? [configuration.failed > 0 ? style.red(String(configuration.failed)) : "0"] : []),
      orDash(spread?.median ?? null, formatSeconds),
      spread === null ? "–" : `${formatSeconds(spread.min)} – ${formatSeconds(spread.max)}`,
      orDash(configuration.baseline.ratio, (ratio) => ratio.toFixed(2)),
      verdictText(configuration, style),
      orDash(configuration.transferBytes, formatBytes),
      orDash(configuration.spillBytes, formatBytes),
      orDash(configuration.utilisation, formatPercent),
      orDash(configuration.balance, (balance) => balance.toFixed(2)),
    ];
  });
  const lines = [style.bold(heading), ...renderTable(columns, rows, { indent: "  " })];
  const failures = workload.configurations.flatMap((configuration) => configuration.failures.map((failure) => ({ configuration, failure })));
  for (const { configuration, failure } of failures.slice(0, 5)) {
    lines.push(style.red(`  ✘ ${printable(configuration.label)} seed ${failure.seed}: ${printable(failure.error)}`));
  }
  if (failures.length > 5) lines.push(style.red(`  … and ${failures.length - 5} more failed runs (every error is in --json)`));
  return lines;
}

/** The whole comparison as text, ending with a newline. */
export function formatComparison(comparison: Comparison, options: ComparisonTextOptions = {}): string {
  const style = options.style ?? createStyle(false);
  const sections = comparison.workloads.map((workload) => workloadSection(workload, options, style).join("\n"));
  const notes = [
    style.dim(
      "makespan: median over seeds (simulated). × baseline: ratio of medians. vs spread: faster/slower when every seed run by both moved the same way (at least 3 seeds), or else when the ranges do not overlap. transfers, spill: medians of bytes moved between workers and spilled to disk. balance: mean over max of the workers' busy time.",
    ),
  ];
  if (comparison.duplicates > 0) notes.push(style.yellow(`${comparison.duplicates} duplicate result ${comparison.duplicates === 1 ? "line" : "lines"} ignored (same key).`));
  return `${[...sections, ...notes].join("\n\n")}\n`;
}
