#!/usr/bin/env node
// How much a case's transfers vary from one run to the next, dask's runs against spanwork's
// seeds: per run its messages (transfers), keys per message, bytes / summed transfer durations
// and makespan, then min / median / max of each. A fidelity row compares spanwork's seed 1
// with the median of dask's few runs; where dask's runs fall into two modes (the shuffle: 20
// messages of one join's 10 keys, or 14-17 fuller ones when its wires run slow), that median
// says which mode the runs happened to be in, and this says whether spanwork's seeds span the
// same range.
//
//   node fidelity/tools/run_spread.mjs SET CASE [--cluster PROFILE] [--seeds N] [--raw FILE]...
//
// dask: SET/real/raw/CASE.json, or the --raw files instead (dask_driver.py's output, every run
// pooled); spanwork: SET/specs/<case without -sN>.json, seeds 1..N (default 20).
import { join, resolve } from "node:path";
import { daskRuns, loadSpanwork, median, numberFlag, toolArgs, usageError } from "./tool-kit.mjs";

const USAGE = "run_spread.mjs SET CASE [--cluster PROFILE] [--seeds N] [--raw FILE]...";
const { values, positionals } = toolArgs(USAGE, { cluster: { type: "string" }, seeds: { type: "string" }, raw: { type: "string", multiple: true } });
const profilePath = values.cluster ?? null;
const seeds = numberFlag(values.seeds, 20);
const raws = values.raw ?? [];
if (positionals.length !== 2 || !(Number.isInteger(seeds) && seeds >= 0)) usageError(USAGE);
const [set, tag] = positionals;

/** One run's figures from its transfers ({keys, bytes, seconds}) and makespan. */
function figures(transfers, makespan) {
  const bytes = transfers.reduce((s, t) => s + t.bytes, 0);
  const seconds = transfers.reduce((s, t) => s + t.seconds, 0);
  return {
    transfers: transfers.length,
    keys: transfers.length ? median(transfers.map((t) => t.keys)) : 0,
    rate: seconds > 0 ? bytes / seconds / 1e6 : 0,
    makespan,
  };
}

function show(label, rows) {
  console.log(`${label}: ${rows.length} runs`);
  for (const [i, r] of rows.entries()) {
    console.log(`  ${String(i + 1).padStart(2)}  ${String(r.transfers).padStart(3)} messages, median ${r.keys} keys, ${r.rate.toFixed(0)} MB/s, makespan ${r.makespan.toFixed(3)} s`);
  }
  if (rows.length === 0) return;
  const span = (f, d) => {
    const xs = rows.map(f);
    return `${Math.min(...xs).toFixed(d)} / ${median(xs).toFixed(d)} / ${Math.max(...xs).toFixed(d)}`;
  };
  console.log(`  min / median / max: messages ${span((r) => r.transfers, 1)}, MB/s ${span((r) => r.rate, 0)}, makespan ${span((r) => r.makespan, 3)}`);
}

const files = raws.length ? raws : [join(set, "real", "raw", `${tag}.json`)];
const dask = [];
for (const f of files) {
  for (const run of daskRuns(f)) {
    dask.push(figures(run.transfers.map((t) => ({ keys: t.keys, bytes: t.bytes, seconds: t.duration })), run.makespan));
  }
}
show(`${tag} dask`, dask);

if (seeds > 0) {
  const spanwork = await loadSpanwork();
  const options = profilePath === null ? {} : { cluster: spanwork.loadClusterProfile(resolve(profilePath)) };
  const spec = spanwork.loadWorkloadFile(join(set, "specs", `${tag.replace(/-s\d+$/, "")}.json`));
  const sim = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const { report } = await spanwork.simulate(spec, { ...options, seed });
    const xs = report.transfers.filter((x) => x.outcome === "ok");
    sim.push(figures(xs.map((x) => ({ keys: x.keys, bytes: x.bytes, seconds: x.end - x.start })), report.makespan));
  }
  show(`${tag} spanwork${profilePath ? ` (${profilePath})` : " (spec)"}, seeds 1-${seeds}`, sim);
}
