#!/usr/bin/env node
// `npm test`: type-check, then the whole vitest suite, then the one summary line CI reads.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countResults } from "./test-count.mjs";

const extraArgs = process.argv.slice(2);
const typecheck = spawnSync("npx", ["--no-install", "tsc", "--noEmit"], { stdio: "inherit" });
if (typecheck.status !== 0) {
  console.log("type-check failed");
  console.log("0 passed, 1 failed");
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "spanwork-test-"));
const jsonFile = join(dir, "vitest.json");
const run = spawnSync(
  "npx",
  ["--no-install", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${jsonFile}`, ...extraArgs],
  { stdio: "inherit" },
);
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  ({ passed, failed, skipped } = countResults(JSON.parse(readFileSync(jsonFile, "utf8"))));
} catch {
  failed = Math.max(failed, 1);
}
rmSync(dir, { recursive: true, force: true });
const code = run.status ?? 1;
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
