#!/usr/bin/env node
// The in-run transfer rates derive.py reads off dask's runs, read the same way off spanwork's
// runs of the same cases: bytes / (duration - latency) summed over the transfers that
// overlapped none in the opposite direction ("isolated") and over those that overlapped one
// ("concurrent"), by bytes. A profile whose `bandwidth` is a lone transfer's (the calibration)
// and whose in-run slowdown comes from a modelled contention should give dask's figures here
// without being fitted to them; a profile that took them as its bandwidth gives them twice.
//
//   node fidelity/tools/in_run_rates.mjs SET CASE,... [--cluster PROFILE] [--seeds N] [--latency S]
//
// latency: the set's own calibration's (SET/calibration.json, as derive.py takes it), else the
// shared set's 1.14 ms; --latency S overrides it (the figures of 3 December's in_run_rates.txt
// were read with 0.00114 on both sides).
//
// dask: SET/real/raw/CASE.json (every run); spanwork: the case's spec, seeds 1..N (default 1:
// the case's own seed alone), pooled.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { daskRuns, loadSpanwork, numberFlag, toolArgs, usageError } from "./tool-kit.mjs";

const USAGE = "in_run_rates.mjs SET CASE,... [--cluster PROFILE] [--seeds N] [--latency S]";
const { values, positionals } = toolArgs(USAGE, { cluster: { type: "string" }, seeds: { type: "string" }, latency: { type: "string" } });
const profilePath = values.cluster ?? null;
const seeds = numberFlag(values.seeds, 1);
const latencyArg = numberFlag(values.latency, null);
if (positionals.length !== 2 || !(Number.isInteger(seeds) && seeds >= 1) || (latencyArg !== null && !(latencyArg >= 0))) usageError(USAGE);
const [set, caseList] = positionals;
/** The set's calibrated latency (derive.py's rule), else the shared set's. */
function setLatency() {
  try {
    return JSON.parse(readFileSync(join(set, "calibration.json"), "utf8")).network.small_transfer_seconds_median;
  } catch {
    return 0.00114;
  }
}
const LATENCY = latencyArg ?? setLatency();
console.log(`latency ${(LATENCY * 1e3).toFixed(2)} ms taken off each transfer`);
const spanwork = await loadSpanwork();

/** derive.py's buckets over one run's transfers ({from, bytes, start, end}). */
function add(buckets, transfers) {
  for (const t of transfers) {
    const opposite = transfers.some((o) => o !== t && o.from !== t.from && o.start < t.end && o.end > t.start);
    const b = opposite ? buckets.concurrent : buckets.isolated;
    b.bytes += t.bytes;
    b.seconds += Math.max(1e-6, t.end - t.start - LATENCY);
    b.n++;
  }
}
const fresh = () => ({ isolated: { bytes: 0, seconds: 0, n: 0 }, concurrent: { bytes: 0, seconds: 0, n: 0 } });
const rate = (b) => (b.n === 0 ? "-" : `${(b.bytes / b.seconds / 1e6).toFixed(0)} MB/s`);
const show = (label, b) =>
  console.log(`${label.padEnd(28)} isolated ${rate(b.isolated)} (${(b.isolated.bytes / 1e6).toFixed(0)} MB, ${b.isolated.n}), concurrent ${rate(b.concurrent)} each (${(b.concurrent.bytes / 1e6).toFixed(0)} MB, ${b.concurrent.n})`);

const options = profilePath === null ? {} : { cluster: spanwork.loadClusterProfile(resolve(profilePath)) };
const totalDask = fresh();
const totalSim = fresh();
for (const tag of caseList.split(",")) {
  const dask = fresh();
  for (const run of daskRuns(join(set, "real", "raw", `${tag}.json`))) {
    const xs = run.transfers.map((x) => ({ from: x.from, bytes: x.bytes, start: x.start, end: x.start + x.duration }));
    add(dask, xs);
    add(totalDask, xs);
  }
  const spec = spanwork.loadWorkloadFile(join(set, "specs", `${tag.replace(/-s\d+$/, "")}.json`));
  const sim = fresh();
  for (let seed = 1; seed <= seeds; seed++) {
    const { report } = await spanwork.simulate(spec, { ...options, seed });
    const xs = report.transfers.filter((x) => x.outcome === "ok");
    add(sim, xs);
    add(totalSim, xs);
  }
  show(`${tag} dask`, dask);
  show(`${tag} spanwork`, sim);
}
show("all dask", totalDask);
show("all spanwork", totalSim);
