import { statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { CliFailure, CliUsageError } from "./errors.js";

/**
 * Resolves an output path and checks, before a possibly long run, that its directory exists and
 * that the path is not a directory: a typo should cost nothing.
 */
export function checkOutputPath(path: string, option: string, cwd: string): string {
  if (path.trim() === "") throw new CliUsageError(`${option}: expected a file name`);
  const absolute = resolve(cwd, path);
  const directory = dirname(absolute);
  let directoryIsDirectory = false;
  try {
    directoryIsDirectory = statSync(directory).isDirectory();
  } catch {
    directoryIsDirectory = false;
  }
  if (!directoryIsDirectory) throw new CliUsageError(`${option}: cannot write "${path}": directory "${directory}" does not exist`);
  try {
    if (statSync(absolute).isDirectory()) throw new CliUsageError(`${option}: cannot write "${path}": it is a directory`);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
  }
  return absolute;
}

/** Writes a whole file; a failure names the option and the path. */
export function writeOutputFile(absolutePath: string, content: string, option: string): void {
  try {
    writeFileSync(absolutePath, content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliFailure(`${option}: cannot write "${absolutePath}" (${code})`);
  }
}
