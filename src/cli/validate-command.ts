import { escapeControlCharacters } from "../util/escape-control.js";
import type { CliIo } from "./cli-io.js";
import { SpecProblemsError } from "./errors.js";
import type { SimulatorApi } from "./simulator-api.js";
import { loadSpecFile } from "./workload-source.js";

/**
 * `spanwork validate FILE`: "FILE: valid (…)" and exit 0, or every problem on stdout, one per
 * line with its path in the spec, then the usual one-line error on stderr and exit 2.
 */
export function validateCommand(file: string, io: CliIo, simulator: SimulatorApi): number {
  try {
    const workload = loadSpecFile(file, simulator, io.cwd);
    io.stdout.write(`${file}: valid workload spec "${workload.name}" (${workload.outline})\n`);
    return 0;
  } catch (error) {
    if (error instanceof SpecProblemsError && error.problems.length > 1) {
      for (const problem of error.problems) io.stdout.write(`${escapeControlCharacters(problem)}\n`);
      throw new SpecProblemsError([`${file}: ${error.problems.length} problems in the workload spec (listed above)`]);
    }
    throw error;
  }
}
