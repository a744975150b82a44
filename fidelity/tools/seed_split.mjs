#!/usr/bin/env node
// How a case's tasks split over the workers, prefix by prefix, in each of dask's runs and in
// spanwork over seeds 1..N (the graph dask ran, every task at its nominal duration, simulated
// with seed i: what `scripts/fidelity.mjs --jitter 0 --reseed` samples), with the confirmed
// steals and the makespan of each: whether a split that differs from dask's is a coin the
// model throws too often or a rule. Workers are numbered by address in both.
//
//   node fidelity/tools/seed_split.mjs SET CASE [--cluster PROFILE] [--samples N]
import { join } from "node:path";
import { jitteredTable } from "../../scripts/graph-tables.mjs";
import { caseFile, clusterProfile, loadSpanwork, median, numberFlag, toolArgs, usageError } from "./tool-kit.mjs";

const USAGE = "seed_split.mjs SET CASE [--cluster PROFILE] [--samples N]";
const { values, positionals } = toolArgs(USAGE, { cluster: { type: "string" }, samples: { type: "string" } });
const samples = numberFlag(values.samples, 20);
if (positionals.length !== 2 || !Number.isInteger(samples) || samples < 1) usageError(USAGE);
const [set, tag] = positionals;
const graph = caseFile(USAGE, set, tag, "graphs");
const raw = caseFile(USAGE, set, tag, "real", "raw");
const real = caseFile(USAGE, set, tag, "real");
const spanwork = await loadSpanwork();
const nominal = spanwork.loadWorkloadFile(join(set, "specs", real.spec ?? `${real.name}.json`));
const prefixOf = new Map(graph.tasks.map((t) => [t.key, t.prefix]));
const prefixes = [...new Set(graph.tasks.map((t) => t.prefix))];

/** "input 8-8  split 128-128 …" from (key, worker index) pairs. */
function split(pairs, workers) {
  const counts = new Map(prefixes.map((p) => [p, new Array(workers).fill(0)]));
  for (const [key, w] of pairs) counts.get(prefixOf.get(key))[w]++;
  return prefixes.map((p) => `${p} ${counts.get(p).join("-")}`).join("  ");
}

const options = values.cluster === undefined ? {} : { cluster: clusterProfile(USAGE, spanwork, values.cluster) };
const workers = raw.runs[0].tasks_per_worker.length;
for (const run of raw.runs) {
  const pairs = run.task_records.map((t) => [t.key, t.worker]);
  console.log(`dask run ${run.run}  ${run.makespan.toFixed(3)}  ${split(pairs, workers)}  steals ${run.steals}`);
}
const makespans = [];
for (let i = 1; i <= samples; i++) {
  const { report } = await spanwork.simulate(jitteredTable(spanwork.Rng, graph, nominal, 0, i), { ...options, seed: i });
  const addresses = [...new Set(report.taskRecords.map((t) => t.worker))].sort();
  const pairs = report.taskRecords.filter((t) => t.outcome === "ok").map((t) => [t.key, addresses.indexOf(t.worker)]);
  const stolen = (report.steals ?? []).filter((s) => s.outcome === "confirmed").map((s) => s.key);
  makespans.push(report.makespan);
  console.log(`seed ${String(i).padStart(2)}    ${report.makespan.toFixed(3)}  ${split(pairs, addresses.length)}  steals ${stolen.length}${stolen.length ? ` (${stolen.join(", ")})` : ""}`);
}
console.log(`spanwork median makespan ${median(makespans).toFixed(3)} s over seeds 1-${samples}, dask ${real.makespan.median.toFixed(3)} s`);
