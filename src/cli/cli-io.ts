import type { Writable } from "node:stream";

export type InterruptSignal = "SIGINT" | "SIGTERM";

/** The outside world of one command invocation; main() defaults it to the process's own. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
  /** Relative paths (spec files, --json/--html/--trace) resolve against this. */
  cwd: string;
  /** Wall clock in milliseconds, for the progress bar's rate only. */
  now: () => number;
  /**
   * Calls `listener` on Ctrl-C (SIGINT) or SIGTERM until the returned function is called. While
   * a listener is on, the signal no longer kills the process: the run stops and the command
   * exits 130 (143 for SIGTERM).
   */
  onInterrupt: (listener: (signal: InterruptSignal) => void) => () => void;
}

function onProcessInterrupt(listener: (signal: InterruptSignal) => void): () => void {
  const signals: InterruptSignal[] = ["SIGINT", "SIGTERM"];
  for (const signal of signals) process.on(signal, listener);
  return () => {
    for (const signal of signals) process.removeListener(signal, listener);
  };
}

let pipeGuarded = false;

/**
 * A reader that stops early (`spanwork run --json - | head`) closes the pipe: the output is no
 * longer wanted, so the command ends quietly, as Unix tools do, instead of dying on EPIPE with
 * a stack trace.
 */
function endQuietlyOnClosedPipe(): void {
  if (pipeGuarded) return;
  pipeGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
}

export function processIo(): CliIo {
  endQuietlyOnClosedPipe();
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), now: Date.now, onInterrupt: onProcessInterrupt };
}
