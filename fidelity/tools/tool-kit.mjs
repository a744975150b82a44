// What the fidelity tools that simulate share: their flags (node:util's parseArgs: an unknown
// flag or a missing value is one line and exit 2), spanwork's own sources (through tsx, so a
// tool runs on the checkout as it is, unbuilt), a median, and dask's raw runs.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { register } from "tsx/esm/api";

/** The checkout these tools belong to. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Prints one line, the problem (if named) and the usage, and exits 2 (bad input). */
export function usageError(usage, problem = null) {
  console.error(problem === null ? `usage: ${usage}` : `${problem}; usage: ${usage}`);
  process.exit(2);
}

/** The tool's flags ({values, positionals}) for parseArgs `options`; bad flags: usageError. */
export function toolArgs(usage, options) {
  try {
    return parseArgs({ args: process.argv.slice(2), options, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs explains at length how to pass a positional that starts with "-": its first sentence names the problem.
    return usageError(usage, error.message.split(". ")[0].replace(/\.$/, ""));
  }
}

/** A flag's number, or `fallback` when the flag is absent (NaN when it is not a number). */
export const numberFlag = (value, fallback) => (value === undefined ? fallback : Number(value));

/** spanwork's public API from src/ (src/index.ts). */
export async function loadSpanwork() {
  register();
  return import(join(root, "src", "index.ts"));
}

/** A case's JSON file in a fidelity set (`SET/…parts/TAG.json`: graphs, real, real/raw), or usageError's one line naming the file that is missing or not JSON. */
export function caseFile(usage, set, tag, ...parts) {
  const path = join(set, ...parts, `${tag}.json`);
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return usageError(usage, `${path}: ${error.code === "ENOENT" ? "no such file" : "not JSON"}`);
  }
}

/** The profile at `path` (--cluster) for simulate's options, or usageError's one line with its first problem. */
export function clusterProfile(usage, spanwork, path) {
  try {
    return spanwork.loadClusterProfile(resolve(path));
  } catch (error) {
    return usageError(usage, `--cluster ${path}: ${error.message.split("\n")[0]}`);
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The runs of a dask_driver.py output file (`run` is the run's index there), or of sends.py's (each run under `run`). */
export function daskRuns(file) {
  return JSON.parse(readFileSync(file, "utf8")).runs.map((r) => (typeof r.run === "object" && r.run !== null ? r.run : r));
}
