// fidelity/tools/rss_evict.py measures what a dask worker's RSS does as its memory monitor evicts
// values; a worker runs with its Nanny's pre-spawn environment (MALLOC_TRIM_THRESHOLD_), which
// glibc reads only at start, so the probe runs itself again with it — without it the freed
// values stay in the heap and RSS hardly falls (docs/sim.md, *spill, held-out*). Two values, and
// a stand-in for the shared driver's task module (only make_bytes is used).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectRefusal, runTool } from "./python-tool.js";

/** Debian's python3 with python3-distributed (the tool imports it; CI installs it in .ci/run). */
const PYTHON = process.env.SPANWORK_PYTHON ?? "/usr/bin/python3";
const dir = mkdtempSync(join(tmpdir(), "spanwork-rss-evict-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "fidelity_tasks.py"), "def make_bytes(n):\n    return b'x' * int(n)\n");

function probe(name: string, args: string[]): { environ: Record<string, string>; summary: { evictions: number } } {
  const out = join(dir, `${name}.json`);
  const child = runTool("rss_evict.py", ["--values", "2", "--json", out, ...args], PYTHON, { PYTHONPATH: dir, MALLOC_TRIM_THRESHOLD_: undefined });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(readFileSync(out, "utf8"));
}

describe("fidelity/tools/rss_evict.py", () => {
  it("runs with the Nanny's MALLOC_TRIM_THRESHOLD_ though started without it, and without it under --bare", () => {
    expect(probe("nanny", []).environ).toEqual({ MALLOC_TRIM_THRESHOLD_: "65536" });
    expect(probe("bare", ["--bare"]).environ).toEqual({});
  }, 60_000);

  it("refuses a bad --values, and a missing task module, in one line", () => {
    expectRefusal(runTool("rss_evict.py", ["--values", "0"], PYTHON), "--values 0", /^rss_evict\.py: argument --values: expected at least 1 value/);
    expectRefusal(runTool("rss_evict.py", ["--values", "1"], PYTHON, { PYTHONPATH: undefined }), "no task module", /^rss_evict\.py: cannot import fidelity_tasks/);
  });
});
