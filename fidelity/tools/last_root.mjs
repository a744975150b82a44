#!/usr/bin/env node
// Which branch a run of a tree took at its end, for dask's runs against spanwork's, and the races
// that decide it. Per run: the last root task (no dependencies) to start, how long after the one
// before it ("gap"), the thread seconds left idle before it, when the roots ended and what came
// after ("tail": makespan less that end). On heavy-tree the gap is bimodal: the last leaf finds
// a free thread (a gap of a few ms to ~0.12 s: on time), or it was sent from the queue as the
// third slot of a worker whose two threads still run leaves and waits for one (0.2-0.4 s: late,
// ~0.25 s more makespan). --late S (default 0.15) tells the two apart. The races: a dependent
// placed where its inputs are split takes the next thread that comes free on its worker if its
// fetches have landed by then, else that thread takes a root task and the dependent waits a
// root task's length — which shifts the threads against each other and so decides how the end
// packs. Per run the races each dependent lost, the median length of the transfers of the
// largest value that overlapped no other (what the fetches race with), and, per dependent over
// the runs, how often it lost and how many of those runs ended late.
// dask's runs: SET/real/raw/CASE.json and any --raw FILE (dask_driver.py's output, or
// sends.py's, whose runs are under "run"). spanwork: the case's spec with its seed, and
// --samples N more runs of the graph dask ran with every task's duration moved by ±--jitter MS
// (default 2; sample i: seed i, as scripts/fidelity.mjs --jitter). --reseed: sample i also
// simulates with seed i, not the case's, so that what the seed draws changes too — the order in
// which dask's stealing walks a set of tasks (CPython salts string hashes per process: every
// real run has its own), the overruns — where --jitter alone keeps the case's. --path prints
// each run's dependents in start order (worker A ran the first root task).
//
//   node fidelity/tools/last_root.mjs SET CASE [--cluster PROFILE] [--raw FILE]... [--jitter MS] [--samples N] [--late S] [--reseed] [--path] [--quiet] [--json FILE]
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { jitteredTable } from "../../scripts/graph-tables.mjs";
import { daskRuns, loadSpanwork, median, numberFlag, toolArgs, usageError } from "./tool-kit.mjs";

const USAGE = "last_root.mjs SET CASE [--cluster PROFILE] [--raw FILE]... [--jitter MS] [--samples N] [--late S] [--reseed] [--path] [--quiet] [--json FILE]";
const string = { type: "string" };
const flag = { type: "boolean" };
const { values, positionals } = toolArgs(USAGE, {
  cluster: string, raw: { type: "string", multiple: true }, jitter: string, samples: string, late: string, quiet: flag, path: flag, reseed: flag, json: string,
});
const profilePath = values.cluster ?? null;
const raws = values.raw ?? [];
const jitter = numberFlag(values.jitter, 2);
const samples = numberFlag(values.samples, 10);
const late = numberFlag(values.late, 0.15);
const quiet = values.quiet ?? false;
const showPath = values.path ?? false;
const reseed = values.reseed ?? false;
const jsonPath = values.json ?? null;
if (positionals.length !== 2 || !(jitter >= 0) || !(Number.isInteger(samples) && samples >= 0) || !(late > 0)) usageError(USAGE);
const [set, tag] = positionals;
const spanwork = await loadSpanwork();
const graph = JSON.parse(readFileSync(join(set, "graphs", `${tag}.json`), "utf8"));
const roots = new Set(graph.tasks.filter((t) => t.deps.length === 0).map((t) => t.key));
const threads = graph.cluster?.threads ?? 2;
const deps = new Map(graph.tasks.map((t) => [t.key, t.deps]));
const largest = Math.max(...graph.tasks.map((t) => t.nbytes));


/** A run's end figures from its task records ({key, worker, start, end}) and makespan. */
function figures(label, records, makespan, transfers) {
  const started = records.filter((t) => roots.has(t.key)).sort((a, b) => a.start - b.start);
  const last = started.at(-1);
  const before = started.at(-2);
  const workers = new Set(records.map((t) => t.worker));
  // Thread seconds idle before the last root task started: every worker's threads, less the
  // time its tasks ran before then.
  let busy = 0;
  for (const t of records) busy += Math.max(0, Math.min(t.end, last.start) - t.start);
  const idle = workers.size * threads * last.start - busy;
  const lastEnd = Math.max(...started.map((t) => t.end));
  const gap = last.start - before.start;
  // Transfers of the graph's largest value that overlapped no other transfer: the race that
  // decides the branch is such a fetch against a sibling task ({start, end} in seconds).
  const lone = transfers.filter((x) => x.bytes === largest && !transfers.some((y) => y !== x && y.start < x.end && y.end > x.start)).map((x) => x.end - x.start);
  // The race: a dependent placed on a worker (when its last input ended) takes the next thread
  // that comes free there if its inputs have arrived by then; if not, that thread takes a root
  // task and the dependent waits for another. Raced: a task of its worker ended between its
  // placement (the thread freed by that very end aside: its inputs cannot be there yet) and
  // its start; won: it started within 5 ms of the first such end.
  const ends = new Map(records.map((t) => [t.key, t.end]));
  const raced = [];
  for (const t of records) {
    if (roots.has(t.key)) continue;
    const placed = Math.max(...deps.get(t.key).map((d) => ends.get(d)));
    let free = Infinity;
    for (const o of records) if (o !== t && o.worker === t.worker && o.end > placed + 0.002 && o.end < t.start + 0.005) free = Math.min(free, o.end);
    if (free !== Infinity) raced.push({ key: t.key, won: t.start - free < 0.005 });
  }
  // The dependents in start order, each on its worker (named by who ran the first root task to
  // start, so that runs whose workers only swap names read the same) and when it started.
  const first = started[0].worker;
  const path = records.filter((t) => !roots.has(t.key)).sort((a, b) => a.start - b.start)
    .map((t) => `${t.key}:${t.worker === first ? "A" : "B"}@${t.start.toFixed(2)}`).join(" ");
  return { label, makespan, last: last.key, start: last.start, gap, idle, lastEnd, tail: makespan - lastEnd, late: gap > late, lone, raced, path };
}

const runs = [];
for (const [source, file] of [["raw", join(set, "real", "raw", `${tag}.json`)], ...raws.map((f) => [f, f])]) {
  for (const run of daskRuns(file)) runs.push({ who: "dask", source, ...figures(`dask ${source === "raw" ? "" : `${file} `}run ${run.run}`, run.task_records, run.makespan, run.transfers.map((x) => ({ bytes: x.bytes, start: x.start, end: x.start + x.duration }))) });
}
const spec = spanwork.loadWorkloadFile(join(set, "specs", `${tag.replace(/-s\d+$/, "")}.json`));
const seed = Number(/-s(\d+)$/.exec(tag)?.[1] ?? 1);
const options = { seed };
if (profilePath !== null) options.cluster = spanwork.loadClusterProfile(resolve(profilePath));
async function simulated(label, workload, runSeed = seed) {
  const { report } = await spanwork.simulate(workload, { ...options, seed: runSeed });
  const records = report.taskRecords.filter((t) => t.outcome === "ok");
  const transfers = report.transfers.filter((x) => x.outcome === "ok");
  return { who: "spanwork", source: label, ...figures(label, records, report.makespan, transfers) };
}
runs.push(await simulated(`spanwork seed ${seed}`, spec));
for (let i = 1; i <= samples; i++) {
  const label = `spanwork ±${jitter} ms s${i}${reseed ? `, seed ${i}` : ""}`;
  runs.push(await simulated(label, jitteredTable(spanwork.Rng, graph, spec, jitter, i), reseed ? i : seed));
}

const f3 = (v) => v.toFixed(3);
if (!quiet) {
  for (const r of runs) {
    console.log(`${r.label.padEnd(34)} ${f3(r.makespan)} s  last root ${r.last.padEnd(8)} starts ${f3(r.start)} (gap ${f3(r.gap)}${r.late ? ", late" : ""}), idle before ${f3(r.idle)} thread-s, roots end ${f3(r.lastEnd)}, tail ${f3(r.tail)}; lone transfers of the largest value: median ${(median(r.lone) * 1e3).toFixed(1)} ms (${r.lone.length}); races lost: ${r.raced.filter((x) => !x.won).map((x) => x.key).join(" ") || "none"} of ${r.raced.length}`);
    if (showPath) console.log(`    ${r.path}`);
  }
}
for (const [who, group] of [["dask", runs.filter((r) => r.who === "dask")], ["spanwork ±jitter", runs.filter((r) => r.who === "spanwork" && r.source !== `spanwork seed ${seed}`)]]) {
  if (group.length === 0) continue;
  const lateRuns = group.filter((r) => r.late);
  const onTime = group.filter((r) => !r.late);
  const m = (rs, k) => (rs.length === 0 ? "-" : f3(median(rs.map((r) => r[k]))));
  const races = group.flatMap((r) => r.raced);
  const lostBy = (rs) => (rs.length === 0 ? "-" : median(rs.map((r) => r.raced.filter((x) => !x.won).length)));
  console.log(`${who}: ${lateRuns.length}/${group.length} late (gap > ${late} s); makespan median ${m(group, "makespan")} s, on time ${m(onTime, "makespan")}, late ${m(lateRuns, "makespan")}; tail median on time ${m(onTime, "tail")}, late ${m(lateRuns, "tail")}; lone transfers of the largest value: median ${(median(group.flatMap((r) => r.lone)) * 1e3).toFixed(1)} ms (${group.reduce((n, r) => n + r.lone.length, 0)}); races lost ${races.filter((x) => !x.won).length}/${races.length}, per run median on time ${lostBy(onTime)}, late ${lostBy(lateRuns)}`);
  // Per dependent: races lost, and how many of the runs that lost it ended late.
  const byKey = new Map();
  for (const r of group) for (const x of r.raced) {
    const c = byKey.get(x.key) ?? byKey.set(x.key, { n: 0, lost: 0, lostLate: 0, wonLate: 0 }).get(x.key);
    c.n++;
    if (x.won) c.wonLate += r.late ? 1 : 0;
    else {
      c.lost++;
      c.lostLate += r.late ? 1 : 0;
    }
  }
  const cells = [...byKey].map(([key, c]) => `${key} ${c.lost}/${c.n} (late ${c.lostLate}/${c.lost} if lost, ${c.wonLate}/${c.n - c.lost} if won)`);
  console.log(`  races lost, by dependent: ${cells.join(", ")}`);
}
if (jsonPath !== null) writeFileSync(jsonPath, `${JSON.stringify({ set, case: tag, profile: profilePath, jitter, samples, late, runs }, null, 1)}\n`);
