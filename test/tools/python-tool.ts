// Runs a fidelity tool (fidelity/tools/*.py) the way the tools' tests do: from the checkout, with
// the interpreter SPANWORK_PYTHON names (else `python3`), and no __pycache__ left beside the tools.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `python fidelity/tools/SCRIPT ARGS…` in the checkout; `python`: for tools that need the system
 * interpreter's packages; `env`: variables over this process's (undefined: unset for the tool).
 */
export function runTool(script: string, args: readonly string[], python = process.env.SPANWORK_PYTHON ?? "python3", env: Record<string, string | undefined> = {}): ToolRun {
  const merged: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  const run = spawnSync(python, [join(ROOT, "fidelity", "tools", script), ...args], { cwd: ROOT, encoding: "utf8", env: merged });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The tools' bad-input rule: exit 2, one line on stderr matching `message`, nothing on stdout. */
export function expectRefusal(run: ToolRun, label: string, message: RegExp): void {
  expect(run.status, `${label}: ${run.stderr}`).toBe(2);
  expect(run.stderr.trim().split("\n"), label).toHaveLength(1);
  expect(run.stderr).toMatch(message);
  expect(run.stdout).toBe("");
}
