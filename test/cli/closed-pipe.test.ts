// A reader that stops early closes the command's stdout: the command ends quietly.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../bin/spanwork.js", import.meta.url));

it("ends without a stack trace when stdout is closed before the report is written", async () => {
  const child = spawn(process.execPath, [bin, "run", "map", "--size", "20000", "--json", "-"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // Like `| head -c 1`: read the first chunk, then close the pipe.
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on("close", (exit) => resolve(exit)));
  expect(stderr).not.toMatch(/EPIPE|at .*\(/);
  expect(code).toBe(0);
}, 60_000);
