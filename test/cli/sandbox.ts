// A temporary working directory for one test file's runs of the real command: files written
// there, `main` run there, the directory removed after the file's tests.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { captureIo } from "./fixtures.js";

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliSandbox {
  /** The directory's path. */
  readonly dir: string;
  /** `main(argv)` with the directory as its working directory. */
  run(argv: string[]): Promise<CliOutcome>;
  /** Writes `text` to `name` in the directory and returns `name`, for an argv. */
  write(name: string, text: string): string;
  /** A file of the directory, as text. */
  read(name: string): string;
}

/** Call at a test file's top level: the directory lives until the file's tests are done. */
export function cliSandbox(prefix: string): CliSandbox {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    async run(argv) {
      const captured = captureIo({ cwd: dir });
      const code = await main(argv, { io: captured.io });
      return { code, stdout: captured.stdout(), stderr: captured.stderr() };
    },
    write(name, text) {
      writeFileSync(join(dir, name), text);
      return name;
    },
    read: (name) => readFileSync(join(dir, name), "utf8"),
  };
}

/**
 * One test per case: a spec of four tasks with `cluster` (a YAML line) written as `name` fails
 * with exactly `line` on stderr and exit 2.
 */
export function itRejectsEachCluster(sandbox: CliSandbox, cases: ReadonlyArray<readonly [name: string, cluster: string, line: string]>): void {
  it.each(cases)("%s: one line and exit 2", async (name, cluster, line) => {
    const outcome = await sandbox.run(["run", sandbox.write(name, `tasks: [{ prefix: a, count: 4 }]\n${cluster}\n`)]);
    expect(outcome.stderr).toBe(`${line}\n`);
    expect(outcome.code).toBe(2);
  });
}
