import type { Writable } from "node:stream";

/** The outside world of one command invocation; main() defaults it to the process's own. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (spec files, --json/--html/--trace) resolve against this. */
  cwd: string;
  /** Wall clock in milliseconds, for the progress bar's rate only. */
  now: () => number;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), now: Date.now };
}
