// Progress of a sweep on stderr: runs done of the total, failures, elapsed time and an ETA.
// On a terminal one line redrawn in place; otherwise (a log file, a batch job) a line at every
// tenth of the runs, so that logs say how far a sweep got without filling up.
import type { Writable } from "node:stream";
import type { SweepProgress } from "../lab/sweep.js";
import { formatSeconds } from "./format/units.js";

export interface SweepProgressReporter {
  update(progress: SweepProgress): void;
  /** Ends the line on a terminal; safe to call more than once. */
  stop(): void;
}

/** Redraws on a terminal at most this often (ms). */
const REDRAW_INTERVAL = 100;

export function formatSweepProgress(progress: SweepProgress, elapsedSeconds: number): string {
  const failed = progress.failed > 0 ? ` · ${progress.failed} failed` : "";
  const remaining = progress.total - progress.done;
  // Runs finish in parallel: the average time per finished run, times those left, is the wall time left.
  const eta = progress.done === 0 ? "–" : remaining === 0 ? "0 s" : formatSeconds((elapsedSeconds / progress.done) * remaining);
  return `sweep ${progress.done}/${progress.total} runs${failed} · ${formatSeconds(elapsedSeconds)} elapsed · ETA ${eta}`;
}

export function createSweepProgress(stream: Writable & { isTTY?: boolean }, options: { enabled: boolean; now: () => number }): SweepProgressReporter {
  if (!options.enabled) return { update() {}, stop() {} };
  const startedAt = options.now();
  const terminal = stream.isTTY === true;
  let lastDraw = -Infinity;
  let lastTenth = 0;
  let drawn = false;
  return {
    update(progress) {
      const now = options.now();
      const line = formatSweepProgress(progress, (now - startedAt) / 1000);
      if (terminal) {
        if (now - lastDraw < REDRAW_INTERVAL && progress.done < progress.total) return;
        lastDraw = now;
        drawn = true;
        stream.write(`\r\u001b[2K${line}`);
        return;
      }
      const tenth = Math.floor((progress.done * 10) / Math.max(1, progress.total));
      if (tenth > lastTenth) {
        lastTenth = tenth;
        stream.write(`${line}\n`);
      }
    },
    stop() {
      if (terminal && drawn) stream.write("\n");
      drawn = false;
    },
  };
}
