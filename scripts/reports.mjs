#!/usr/bin/env node
// Writes the JSON report (and the Chrome trace) of every built-in workload and every spec in
// workloads/ into OUTDIR, for checking that a behaviour-preserving change leaves reports
// byte-identical:
//
//   node scripts/reports.mjs /tmp/before && <change> && node scripts/reports.mjs /tmp/after
//   diff -r /tmp/before /tmp/after
//
// Extra arguments are passed to every `spanwork run` (e.g. --workers 8 --seed 3).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [outDir, ...extra] = process.argv.slice(2);
if (outDir === undefined) {
  console.error("usage: node scripts/reports.mjs OUTDIR [spanwork run options…]");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const bin = join(root, "bin", "spanwork.js");
const listed = spawnSync(process.execPath, [bin, "list"], { encoding: "utf8" });
if (listed.status !== 0) {
  console.error(listed.stderr);
  process.exit(1);
}
const builtIns = listed.stdout
  .split("\n")
  .map((line) => line.split(/\s+/)[0])
  .filter((name) => name !== undefined && name !== "");
const specs = readdirSync(join(root, "workloads"))
  .filter((file) => /\.(json|ya?ml)$/.test(file))
  .map((file) => join(root, "workloads", file));
let failures = 0;
for (const workload of [...builtIns, ...specs]) {
  const name = workload.includes("/") ? workload.split("/").pop().replace(/\.\w+$/, "") : workload;
  const json = join(outDir, `${name}.json`);
  const trace = join(outDir, `${name}.trace.json`);
  const run = spawnSync(process.execPath, [bin, "run", workload, "-q", "--json", json, "--trace", trace, ...extra], { encoding: "utf8" });
  // exit 1 is an incomplete run, which still writes its report
  if (run.status !== 0 && run.status !== 1) {
    failures++;
    console.error(`${name}: exit ${run.status}: ${run.stderr.trim()}`);
  } else {
    console.log(`${name}: ${json}`);
  }
}
process.exit(failures === 0 ? 0 : 1);
