// The examples of docs/cli.md that a new user can type as they stand are what the command
// prints: each `$ …` line of such a block is run (spanwork in-process with the real simulator,
// other tools as programs) in a folder holding the checkout's workloads/, and its output is
// compared with the lines under it.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { captureIo } from "./fixtures.js";

const DOCS = readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8");

/** The fenced block of docs/cli.md whose first line is `first`, as lines. */
function block(first: string): string[] {
  const start = DOCS.indexOf(`\`\`\`\n${first}\n`);
  if (start < 0) throw new Error(`docs/cli.md has no block starting with ${first}`);
  const body = DOCS.slice(start + 4, DOCS.indexOf("\n```", start + 4));
  return body.split("\n");
}

/** Splits a block into commands (`$ …`) and the lines each prints. */
function session(lines: string[]): Array<{ command: string; output: string[] }> {
  const steps: Array<{ command: string; output: string[] }> = [];
  for (const line of lines) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), output: [] });
    else steps.at(-1)!.output.push(line);
  }
  return steps;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-docs-"));
  cpSync(new URL("../../workloads/", import.meta.url), join(dir, "workloads"), { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function replay(steps: Array<{ command: string; output: string[] }>): Promise<void> {
  for (const { command, output } of steps) {
    let printed: string;
    if (command.startsWith("spanwork ")) {
      const captured = captureIo({ cwd: dir });
      await main(command.slice("spanwork ".length).split(" "), { io: captured.io });
      printed = captured.stdout() + captured.stderr();
    } else {
      printed = execFileSync("sh", ["-c", command], { cwd: dir, encoding: "utf8" });
    }
    expect(printed.split("\n").slice(0, -1), command).toEqual(output);
  }
}

describe("docs/cli.md examples", () => {
  it("spanwork validate: a valid spec and a broken one", async () => {
    await replay(session(block("$ spanwork validate workloads/etl.yaml")));
  });
});

describe("docs/cli.md's summary example", () => {
  it("has the sections and key figures `npm start` prints, in its order (the numbers may drift)", async () => {
    const documented = block("spanwork run · shuffle · 4 workers × 2 threads · memory limit 158 MiB · network max-min · seed 1");
    const captured = captureIo({ cwd: dir });
    await main(["run"], { io: captured.io });
    const printed = captured.stdout().split("\n");
    // section titles (unindented lines) and the labels of the key figures and tables
    const shape = (lines: string[]) =>
      lines.flatMap((line) => {
        if (/^\S/.test(line)) return [line.replace(/\d[\d.,]*/g, "N")];
        const label = /^ {2}(makespan|throughput|transfers|spill|faults|scheduler|balance) /.exec(line);
        if (label) return [label[1]!];
        return /^ {2}(worker|context) /.test(line) ? [line.trim().split(/\s{2,}/).join(" | ")] : [];
      });
    expect(shape(documented)).toEqual(shape(printed));
  });
});

describe("docs/cli.md's list of workloads", () => {
  it("is what spanwork list prints", async () => {
    const captured = captureIo({ cwd: dir });
    await main(["list"], { io: captured.io });
    const printed = captured.stdout().trimEnd().split("\n");
    expect(block(printed[0]!)).toEqual(printed);
  });
});
