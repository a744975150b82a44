// vitest setupFiles: each test file runs with its own temporary directory (TMPDIR, which
// os.tmpdir() reads on every call and the processes a test spawns inherit), and fails when its
// tests leave anything in it: tests clean up after themselves (issue 12 item 15).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const dir = mkdtempSync(join(process.env.SPANWORK_TEST_TMP_ROOT ?? tmpdir(), "file-"));
const previous = process.env.TMPDIR;
process.env.TMPDIR = dir;

/** tsx's compile cache (tsx-<uid>), made by the `spanwork` processes a test spawns: the tool's, reused across runs, not a leak. */
const TOOL_CACHES = /^tsx-\d+$/;

// Registered before the file's own hooks, so it runs after them.
afterAll(() => {
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  const left = readdirSync(dir)
    .filter((entry) => !TOOL_CACHES.test(entry))
    .sort();
  rmSync(dir, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(`the tests of this file left ${left.length} ${left.length === 1 ? "entry" : "entries"} in the temporary directory (remove them in afterAll): ${left.join(", ")}`);
  }
});
