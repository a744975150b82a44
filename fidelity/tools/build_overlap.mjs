#!/usr/bin/env node
// Does a build slow a transfer inside a run? For the lone transfers of a case's largest value
// (those that overlapped no other transfer), the durations of those that overlapped a task's
// output build on the cluster's host against those that did not, in dask's runs and in
// spanwork's. A fidelity task builds its output first (make_bytes), so a build is the first
// --build S seconds of a task whose output is at least --min bytes (default 30 ms and 1 MB: a
// 32 MB build in place took 0.85-1.4 ms per MB, build_probe-*.json); an overlap counts from 5 ms.
// With both workers on one host (the fidelity cluster) a build on either end counts. Each
// direction's first transfer of a run is also shown left out (dask's first ones are slower for
// reasons of their own: docs/sim.md, heavy-tree).
//
//   node fidelity/tools/build_overlap.mjs SET CASE [--cluster PROFILE] [--raw FILE]... [--samples N] [--jitter MS] [--build S] [--min BYTES]
//
// dask: SET/real/raw/CASE.json and every --raw FILE (dask_driver.py's output, or sends.py's).
// spanwork: seeds 1..N (default 40) of the graph dask ran, every task moved by ±--jitter ms
// (default 2; 0: nominal), simulated with seed i (as last_root.mjs --reseed).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { jitteredTable } from "../../scripts/graph-tables.mjs";
import { daskRuns, loadSpanwork, median, numberFlag, toolArgs, usageError } from "./tool-kit.mjs";

const USAGE = "build_overlap.mjs SET CASE [--cluster PROFILE] [--raw FILE]... [--samples N] [--jitter MS] [--build S] [--min BYTES]";
const string = { type: "string" };
const { values, positionals } = toolArgs(USAGE, { cluster: string, raw: { type: "string", multiple: true }, samples: string, jitter: string, build: string, min: string });
const profilePath = values.cluster ?? null;
const raws = values.raw ?? [];
const samples = numberFlag(values.samples, 40);
const jitter = numberFlag(values.jitter, 2);
const build = numberFlag(values.build, 0.03);
const min = numberFlag(values.min, 1e6);
if (positionals.length !== 2 || !(Number.isInteger(samples) && samples >= 1) || !(jitter >= 0) || !(build > 0) || !(min >= 0)) usageError(USAGE);
const [set, tag] = positionals;
const graph = JSON.parse(readFileSync(join(set, "graphs", `${tag}.json`), "utf8"));
const nbytes = new Map(graph.tasks.map((t) => [t.key, t.nbytes]));
const largest = Math.max(...graph.tasks.map((t) => t.nbytes));

/** Adds one run's lone transfers of the largest value ({from, bytes, start, end}) to `into`, by build overlap. */
function split(into, transfers, records) {
  const builds = records.filter((t) => (nbytes.get(t.key) ?? 0) >= min).map((t) => t.start);
  const xs = [...transfers].sort((a, b) => a.start - b.start);
  const seen = new Set();
  for (const x of xs) {
    const first = !seen.has(x.from);
    seen.add(x.from);
    if (x.bytes !== largest || xs.some((o) => o !== x && o.start < x.end && o.end > x.start)) continue;
    let overlap = 0;
    for (const s of builds) overlap += Math.max(0, Math.min(x.end, s + build) - Math.max(x.start, s));
    const side = overlap > 0.005 ? "build" : "none";
    into[side].push(x.end - x.start);
    if (!first) into[`${side}Later`].push(x.end - x.start);
  }
}
const fresh = () => ({ build: [], none: [], buildLater: [], noneLater: [] });
const cell = (xs) => `${(median(xs) * 1e3).toFixed(1)} ms (${xs.length})`;
const show = (label, g) =>
  console.log(`${label}: lone ${largest / 1e6} MB transfers beside a build ${cell(g.build)}, none ${cell(g.none)}; without each direction's first: ${cell(g.buildLater)}, ${cell(g.noneLater)} (medians, count)`);

const dask = fresh();
let runCount = 0;
for (const file of [join(set, "real", "raw", `${tag}.json`), ...raws]) {
  for (const run of daskRuns(file)) {
    split(dask, run.transfers.map((x) => ({ from: x.from, bytes: x.bytes, start: x.start, end: x.start + x.duration })), run.task_records);
    runCount++;
  }
}
show(`dask, ${runCount} runs`, dask);

const spanwork = await loadSpanwork();
const spec = spanwork.loadWorkloadFile(join(set, "specs", `${tag.replace(/-s\d+$/, "")}.json`));
const options = profilePath === null ? {} : { cluster: spanwork.loadClusterProfile(resolve(profilePath)) };
const sim = fresh();
for (let i = 1; i <= samples; i++) {
  const workload = jitter === 0 ? spec : jitteredTable(spanwork.Rng, graph, spec, jitter, i);
  const { report } = await spanwork.simulate(workload, { ...options, seed: i });
  split(sim, report.transfers.filter((x) => x.outcome === "ok"), report.taskRecords.filter((t) => t.outcome === "ok"));
}
show(`spanwork ${profilePath ?? "(spec)"}, seeds 1-${samples}, ±${jitter} ms`, sim);
