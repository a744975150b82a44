import cliProgress from "cli-progress";
import type { Writable } from "node:stream";
import { formatRate, formatSeconds } from "./format/units.js";

export interface Progress {
  done: number;
  total: number;
  simulatedSeconds: number;
}

export interface ProgressReporter {
  update(progress: Progress): void;
  /** Removes the bar; safe to call more than once. */
  stop(): void;
}

const SILENT: ProgressReporter = { update() {}, stop() {} };

/**
 * The progress bar on stderr: tasks done of total, simulated time, and tasks per wall-clock
 * second. Only on a terminal: piped or redirected stderr gets nothing, so logs stay clean.
 * `now` is the wall clock in milliseconds (injected for tests).
 */
export function createProgressReporter(
  stream: Writable & { isTTY?: boolean },
  options: { enabled: boolean; now?: () => number },
): ProgressReporter {
  if (!options.enabled || stream.isTTY !== true) return SILENT;
  const now = options.now ?? Date.now;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: " {bar} {value}/{total} tasks · {simulated} simulated · {rate} tasks/s",
      barCompleteChar: "█",
      barIncompleteChar: "░",
      barsize: 30,
      hideCursor: true,
      clearOnComplete: true,
      // The simulator may run for a while without yielding to the event loop: redraw from
      // update() itself rather than from a timer that would not fire.
      synchronousUpdate: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let stopped = false;
  let startedAt = 0;
  // Ctrl-C is the run command's (it stops the run, then this bar, which gives the terminal its
  // cursor back); cli-progress's own gracefulExit is off so it does not take the signal too.
  return {
    update(progress) {
      if (stopped) return;
      const payload = {
        simulated: formatSeconds(progress.simulatedSeconds),
        rate: rateSince(startedAt, now(), progress.done),
      };
      if (!started) {
        started = true;
        startedAt = now();
        bar.start(Math.max(1, progress.total), progress.done, { ...payload, rate: "–" });
        return;
      }
      if (progress.total !== bar.getTotal()) bar.setTotal(Math.max(1, progress.total));
      bar.update(progress.done, payload);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (!started) return;
      bar.stop();
    },
  };
}

function rateSince(startedAt: number, nowMs: number, done: number): string {
  const seconds = (nowMs - startedAt) / 1000;
  return seconds > 0 ? formatRate(done / seconds) : "–";
}
