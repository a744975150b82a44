// Ctrl-C during `spanwork run` (issue 12 item 12): the run stops within a moment, nothing is
// written, the exit code is 130. In-process with an injected interrupt, and for real: the
// command on a pseudo-terminal (`script`), where the progress bar is drawn, and ^C typed into it.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InterruptSignal } from "../../src/cli/cli-io.js";
import { main } from "../../src/cli/main.js";
import { captureIo } from "./fixtures.js";

const BIN = fileURLToPath(new URL("../../bin/spanwork.js", import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-interrupt-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("interrupting spanwork run", () => {
  it("stops the simulation, writes nothing and exits 130 (in-process, an injected SIGINT)", async () => {
    const captured = captureIo({ cwd: dir });
    let listening = 0;
    const onInterrupt = (listener: (signal: InterruptSignal) => void): (() => void) => {
      listening++;
      const timer = setTimeout(() => listener("SIGINT"), 50);
      return () => {
        listening--;
        clearTimeout(timer);
      };
    };
    const code = await main(["run", "map", "--size", "400000", "--json", "r.json", "--html", "r.html"], { io: { ...captured.io, onInterrupt } });
    expect(captured.stderr()).toBe("interrupted (SIGINT): the run was stopped and no file was written\n");
    expect(code).toBe(130);
    expect(captured.stdout()).toBe("");
    expect(existsSync(join(dir, "r.json"))).toBe(false);
    expect(existsSync(join(dir, "r.html"))).toBe(false);
    expect(listening).toBe(0);
  });

  it("stops on ^C typed at a terminal while the progress bar is drawn", async () => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run map --size 300000 --json tty.json`;
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    let typed = false;
    const exit = new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (code) => resolve(code));
    });
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      // The bar is up, so the run is under way: type Ctrl-C into the terminal.
      if (!typed && output.includes("tasks/s")) {
        typed = true;
        child.stdin.write("\u0003");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const code = await exit;
    expect(typed, output.slice(-400)).toBe(true);
    expect(code, output.slice(-400)).toBe(130);
    expect(output).toContain("interrupted (SIGINT): the run was stopped and no file was written");
    expect(output).not.toContain("tasks finished");
    // The bar gave the terminal its cursor back.
    expect(output).toContain("\u001b[?25h");
    expect(existsSync(join(dir, "tty.json"))).toBe(false);
  }, 120_000);
});
