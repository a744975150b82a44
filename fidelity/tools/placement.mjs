#!/usr/bin/env node
// Where dask placed each dependent against spanwork, on one fidelity case: for dask's runs
// (SET/real/raw/CASE.json: every task's worker) and spanwork's (the case's spec simulated with
// its seed, with --cluster PROFILE), per run: dependency edges that cross workers, the distinct
// (key, worker) pairs those crossings need (the fewest keys a run can move if a fetched copy
// stays), keys moved, and the dependents placed away from the worker that ran most of their
// input bytes ("against the bytes"), by prefix. --keys prints, per dependent of PREFIX, its
// input bytes per worker and where each run put it. --jitter MS adds N more spanwork runs
// (--samples, default 10) of the graph dask ran as a per-task table, every task's duration
// moved by a uniform draw in ±MS (sample i: seed i, as scripts/fidelity.mjs --jitter; the
// table keeps each prefix's cpu, gil, buildBandwidth and buildLatency: scripts/graph-tables.mjs).
//
//   node fidelity/tools/placement.mjs SET CASE [--cluster PROFILE] [--scheduler NAME[:k=v]] [--keys PREFIX] [--jitter MS [--samples N]] [--json FILE]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { jitteredTable } from "../../scripts/graph-tables.mjs";
import { caseFile, clusterProfile, loadSpanwork, numberFlag, toolArgs, usageError } from "./tool-kit.mjs";

const USAGE = "placement.mjs SET CASE [--cluster PROFILE] [--scheduler NAME[:k=v]] [--keys PREFIX] [--jitter MS [--samples N]] [--json FILE]";
const string = { type: "string" };
const { values, positionals } = toolArgs(USAGE, { cluster: string, scheduler: string, keys: string, json: string, jitter: string, samples: string });
const profilePath = values.cluster ?? null;
const scheduler = values.scheduler ?? null;
const keysPrefix = values.keys ?? null;
const jsonPath = values.json ?? null;
const jitter = numberFlag(values.jitter, null);
const samples = numberFlag(values.samples, 10);
if (positionals.length !== 2) usageError(USAGE);
const [set, tag] = positionals;
const spanwork = await loadSpanwork();
const graph = caseFile(USAGE, set, tag, "graphs");
const raw = caseFile(USAGE, set, tag, "real", "raw");
const real = caseFile(USAGE, set, tag, "real");
const deps = new Map(graph.tasks.map((t) => [t.key, t.deps]));
const nbytes = new Map(graph.tasks.map((t) => [t.key, t.nbytes]));
const prefixOf = new Map(graph.tasks.map((t) => [t.key, t.prefix]));

/** One run's figures from `where` (key → worker label) and its keys moved. */
function analyse(label, where, keysMoved, transfers) {
  let crossing = 0;
  const pairs = new Set();
  const against = new Map();
  const dependents = new Map();
  for (const [key, ds] of deps) {
    if (ds.length === 0) continue;
    const w = where.get(key);
    const bytes = new Map();
    for (const d of ds) {
      const dw = where.get(d);
      bytes.set(dw, (bytes.get(dw) ?? 0) + nbytes.get(d));
      if (dw !== w) {
        crossing++;
        pairs.add(`${d}@${w}`);
      }
    }
    const most = Math.max(...bytes.values());
    const p = prefixOf.get(key);
    dependents.set(p, (dependents.get(p) ?? 0) + 1);
    if ((bytes.get(w) ?? 0) < most) against.set(p, (against.get(p) ?? 0) + 1);
  }
  return { label, crossing, pairs: pairs.size, keysMoved, transfers, against: Object.fromEntries(against), dependents: Object.fromEntries(dependents) };
}

const runs = raw.runs.map((run) => {
  const where = new Map(run.task_records.map((t) => [t.key, `w${t.worker}`]));
  return { where, figures: analyse(`dask run ${run.run}`, where, run.transfer.keys, run.transfer.count) };
});
const spec = spanwork.loadWorkloadFile(join(set, "specs", real.spec ?? `${real.name}.json`));
const options = { seed: real.seed };
if (profilePath !== null) options.cluster = clusterProfile(USAGE, spanwork, profilePath);
if (scheduler !== null) options.scheduler = scheduler;
/** One simulation's run, labelled. */
async function simulated(label, workload) {
  const { report } = await spanwork.simulate(workload, options);
  const addresses = [...new Set(report.taskRecords.map((t) => t.worker))].sort();
  const where = new Map(report.taskRecords.filter((t) => t.outcome === "ok").map((t) => [t.key, `w${addresses.indexOf(t.worker)}`]));
  const keys = report.transfers.reduce((s, t) => s + (t.outcome === "ok" ? t.keys : 0), 0);
  return { where, figures: analyse(label, where, keys, report.transfer.count) };
}
runs.push(await simulated("spanwork", spec));
for (let i = 1; jitter !== null && i <= samples; i++) runs.push(await simulated(`±${jitter} ms s${i}`, jitteredTable(spanwork.Rng, graph, spec, jitter, i)));

for (const { figures: f } of runs) {
  const by = Object.keys(f.dependents).map((p) => `${p} ${f.against[p] ?? 0}/${f.dependents[p]}`).join(", ");
  console.log(`${f.label.padEnd(12)} edges crossing ${String(f.crossing).padStart(4)}, (key, worker) pairs ${String(f.pairs).padStart(4)}, keys moved ${String(f.keysMoved).padStart(4)} in ${String(f.transfers).padStart(3)} transfers; against the bytes: ${by}`);
}
if (keysPrefix !== null) {
  for (const [key, ds] of deps) {
    if (prefixOf.get(key) !== keysPrefix || ds.length === 0) continue;
    const cells = runs.map(({ where }) => {
      const bytes = new Map();
      for (const d of ds) bytes.set(where.get(d), (bytes.get(where.get(d)) ?? 0) + nbytes.get(d));
      const mine = bytes.get(where.get(key)) ?? 0;
      const total = [...bytes.values()].reduce((a, b) => a + b, 0);
      return `${(mine / 1e6).toFixed(1)}/${(total / 1e6).toFixed(1)}`;
    });
    console.log(`  ${key.padEnd(14)} MB local/input per run: ${cells.join("  ")}`);
  }
}
if (jsonPath !== null) writeFileSync(jsonPath, JSON.stringify(runs.map((r) => r.figures), null, 1));
