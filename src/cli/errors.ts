// Errors the command maps to exit codes. Anything that is not one of these is an internal
// failure (exit 1); a usage error is the user's to fix (exit 2).

/** Bad input or usage: a missing file, a malformed spec, an unknown option or workload, a bad size. Exit 2. */
export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

/** A workload spec with problems, one entry each ("file.yaml: tasks[2].duration.mean: expected a positive number"). */
export class SpecProblemsError extends CliUsageError {
  constructor(readonly problems: readonly string[]) {
    super(
      problems.length <= 1
        ? (problems[0] ?? "invalid workload spec")
        : `${problems[0]} (and ${problems.length - 1} more ${problems.length === 2 ? "problem" : "problems"}; \`spanwork validate FILE\` lists them all)`,
    );
  }
}

/** A failure that is nobody's bug and needs no stack trace (a file that cannot be written). Exit 1. */
export class CliFailure extends Error {
  override readonly name: string = "CliFailure";
}

/** The user stopped the run (Ctrl-C, SIGTERM) before it ended; nothing was written. Exit 128 + the signal's number. */
export class InterruptedError extends CliFailure {
  override readonly name = "InterruptedError";
  constructor(readonly exitCode: number, message: string) {
    super(message);
  }
}

/** The run went through but did not finish its work (lost or stuck tasks). Exit 1. */
export class IncompleteRunError extends CliFailure {
  override readonly name = "IncompleteRunError";
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** One line, whatever the message: embedded newlines would break "one line on stderr". */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, " ").trim();
}
