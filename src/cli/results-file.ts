// Sweep results files: one JSON line per run. Read for resuming, merging and comparing; appended
// to one line at a time as runs finish, so whatever stops the sweep, every finished run is kept.
import { closeSync, existsSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import type { SweepResult } from "../lab/result.js";
import { CliFailure, CliUsageError } from "./errors.js";

export interface ResultsFile {
  results: SweepResult[];
  /** Bytes of complete lines; a last line without its newline (a sweep killed mid-write) is not counted. */
  completeBytes: number;
  /** True when such a partial last line was found. */
  partialTail: boolean;
}

function isResult(value: unknown): value is SweepResult {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.key === "string" &&
    typeof record.workload === "string" &&
    typeof record.seed === "number" &&
    typeof record.options === "object" &&
    record.options !== null &&
    (typeof record.makespan === "number" || record.makespan === null)
  );
}

/** Reads a results file; a line that is not a sweep result is bad input naming the file and line. */
export function readResultsFile(argument: string, cwd: string): ResultsFile {
  const path = resolve(cwd, argument);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliUsageError(code === "ENOENT" ? `${argument}: no such file` : `${argument}: cannot read the file (${code ?? String(error)})`);
  }
  const lastNewline = text.lastIndexOf("\n");
  const complete = text.slice(0, lastNewline + 1);
  const tail = text.slice(lastNewline + 1);
  const results: SweepResult[] = [];
  const lines = complete.split("\n");
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (!isResult(value)) {
      throw new CliUsageError(`${argument}:${index + 1}: not a sweep result line (a JSON object with key, workload, seed, options and makespan)`);
    }
    results.push(value);
  });
  return { results, completeBytes: Buffer.byteLength(complete), partialTail: tail.trim() !== "" };
}

/** Results from several files, in order, for merge and compare. */
export function readResultsFiles(arguments_: readonly string[], cwd: string): SweepResult[][] {
  return arguments_.map((argument) => readResultsFile(argument, cwd).results);
}

export interface ResultsAppender {
  append(result: SweepResult): void;
  close(): void;
}

/**
 * Opens a results file for appending (created when missing). A partial last line left by a
 * killed sweep is cut off first, so the file stays one complete result per line.
 */
export function openResultsAppender(absolutePath: string, existing: ResultsFile | null, option: string): ResultsAppender {
  let fd: number;
  try {
    if (existing !== null && existing.partialTail) truncateSync(absolutePath, existing.completeBytes);
    fd = openSync(absolutePath, "a");
  } catch (error) {
    throw new CliFailure(`${option}: cannot write "${absolutePath}" (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return {
    append(result) {
      try {
        writeSync(fd, `${JSON.stringify(result)}\n`);
      } catch (error) {
        throw new CliFailure(`${option}: cannot write "${absolutePath}" (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
    },
    close() {
      closeSync(fd);
    },
  };
}

/** The existing results of an output file, or null when there is none yet. */
export function existingResults(argument: string, cwd: string): ResultsFile | null {
  return existsSync(resolve(cwd, argument)) ? readResultsFile(argument, cwd) : null;
}
