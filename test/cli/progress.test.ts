import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgressReporter } from "../../src/cli/progress.js";

function terminal(isTTY: boolean): { stream: Writable & { isTTY?: boolean; columns?: number }; text: () => string } {
  let written = "";
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      written += chunk.toString();
      callback();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  stream.isTTY = isTTY;
  stream.columns = 120;
  return { stream, text: () => written };
}

describe("progress bar", () => {
  it("draws tasks done of total, simulated time and rate, then clears itself and restores the cursor", () => {
    const { stream, text } = terminal(true);
    let now = 0;
    const progress = createProgressReporter(stream, { enabled: true, now: () => now });
    const listeners = process.listenerCount("SIGINT");
    progress.update({ done: 0, total: 200, simulatedSeconds: 0 });
    // Ctrl-C is the run command's to handle (it stops the run, then the bar): the bar leaves it alone.
    expect(process.listenerCount("SIGINT")).toBe(listeners);
    now = 2000;
    progress.update({ done: 100, total: 200, simulatedSeconds: 1.5 });
    progress.stop();
    progress.stop();
    const output = text();
    expect(output).toContain("0/200 tasks · 0 s simulated · – tasks/s");
    expect(output).toMatch(/\u001b\[\?25l/);
    expect(output.endsWith("\u001b[2K")).toBe(true);
    expect(output).toContain("\u001b[?25h");
  });

  it("writes nothing when stderr is not a terminal or when disabled", () => {
    for (const [isTTY, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const { stream, text } = terminal(isTTY);
      const progress = createProgressReporter(stream, { enabled });
      progress.update({ done: 1, total: 2, simulatedSeconds: 1 });
      progress.stop();
      expect(text()).toBe("");
    }
  });
});
