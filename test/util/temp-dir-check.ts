// vitest globalSetup: every test run gets a private temporary directory, so that other runs
// sharing the machine's /tmp neither trip the leak check (test/util/temp-dir-per-file.ts) nor
// hide a leak from it. Each test file gets its own directory inside it, and fails when its
// tests leave anything there; this removes the whole directory at the end of the run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "spanwork-vitest-"));
  process.env.SPANWORK_TEST_TMP_ROOT = root;
  return () => {
    delete process.env.SPANWORK_TEST_TMP_ROOT;
    rmSync(root, { recursive: true, force: true });
  };
}
