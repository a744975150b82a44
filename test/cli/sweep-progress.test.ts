import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createSweepProgress, formatSweepProgress } from "../../src/cli/sweep-progress.js";

function stream(tty: boolean): Writable & { isTTY?: boolean; text: () => string } {
  let text = "";
  const writable = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  }) as Writable & { isTTY?: boolean; text: () => string };
  writable.isTTY = tty;
  writable.text = () => text;
  return writable;
}

describe("sweep progress", () => {
  it("says runs done of the total, failures, elapsed time and the time left at the pace so far", () => {
    expect(formatSweepProgress({ done: 0, failed: 0, total: 64 }, 0.5)).toBe("sweep 0/64 runs · 500 ms elapsed · ETA –");
    expect(formatSweepProgress({ done: 16, failed: 1, total: 64 }, 8)).toBe("sweep 16/64 runs · 1 failed · 8.00 s elapsed · ETA 24.0 s");
    expect(formatSweepProgress({ done: 64, failed: 0, total: 64 }, 30)).toBe("sweep 64/64 runs · 30.0 s elapsed · ETA 0 s");
  });

  it("writes a line per tenth of the runs when stderr is not a terminal", () => {
    const out = stream(false);
    let now = 0;
    const progress = createSweepProgress(out, { enabled: true, now: () => now });
    for (let done = 1; done <= 20; done++) {
      now += 1000;
      progress.update({ done, failed: 0, total: 20 });
    }
    progress.stop();
    const lines = out.text().trimEnd().split("\n");
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe("sweep 2/20 runs · 2.00 s elapsed · ETA 18.0 s");
    expect(lines[9]).toBe("sweep 20/20 runs · 20.0 s elapsed · ETA 0 s");
  });

  it("redraws one line in place on a terminal, at most every 100 ms, and ends it when stopped", () => {
    const out = stream(true);
    let now = 0;
    const progress = createSweepProgress(out, { enabled: true, now: () => now });
    progress.update({ done: 1, failed: 0, total: 3 });
    now += 50;
    progress.update({ done: 2, failed: 0, total: 3 });
    now += 50;
    progress.update({ done: 3, failed: 0, total: 3 });
    progress.stop();
    expect(out.text()).toBe("\r\u001b[2Ksweep 1/3 runs · 0 s elapsed · ETA 0 s\r\u001b[2Ksweep 3/3 runs · 100 ms elapsed · ETA 0 s\n");
    const quiet = stream(true);
    const off = createSweepProgress(quiet, { enabled: false, now: () => 0 });
    off.update({ done: 1, failed: 0, total: 1 });
    off.stop();
    expect(quiet.text()).toBe("");
  });
});
