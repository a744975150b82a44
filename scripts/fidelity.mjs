#!/usr/bin/env node
// spanwork against real dask, every figure: for each case of one or more fidelity sets
// (a folder with specs/ and real/, like ../shared/fidelity or this repo's fidelity/), the
// simulator runs the case's spec with its seed, and the table compares makespan, transfers
// (count and keys), bytes moved and spilled bytes with what dask measured (median of its
// runs, min-max), with the bars of issue 15 (makespan ±5 %, transfers and bytes ±15 %, spill
// ±15 %; bytes against at least 1 MB of dask's). check.sh compares only the makespan.
//
//   node scripts/fidelity.mjs [--cluster PROFILE [--competition FILE]] [--replay] [--jitter MS [--samples N] [--reseed]] [--json FILE] [--spanwork CHECKOUT] [SET ...]
//
// --replay: simulate each case as a per-task table (taskTable) of the graph dask ran, every
// task with the median of its measured durations over the real runs instead of its nominal
// one: the tasks' own overrun (sleeps that wake late, bytes built under load) is then out of
// the comparison, and what is left is the model's.
// --jitter MS: the model's own spread under timing noise of the size the real tasks showed:
// each case is simulated N more times (--samples, default 10) as the graph dask ran with
// every task's duration moved by a uniform draw in ±MS milliseconds (sample i draws with
// seed i), and a second table gives min, median and max of makespan, keys moved and bytes
// moved over the samples next to dask's. A figure that swings as much as dask's own runs is
// decided by timing, not by a missing mechanism. The samples simulate with the case's seed
// unless --reseed: then sample i also simulates with seed i, which moves the model's own draws
// (a profile's transferSpread, taskOverrun, drawn costs, stealing's hash order) on the same
// graph; `--jitter 0 --reseed` keeps every duration nominal and moves only those.
// --competition FILE: fidelity/tools/overrun_load.py's output; each set it names is simulated
// with the other jobs' load read from its own runs (the set's median) in place of the
// profile's `host.load` — the sets were measured in different sessions, under different loads.
// --spanwork: simulate with another checkout's sources (e.g. main, for a before/after table).
// SET: a fidelity folder (default: ../shared/fidelity when it exists, and fidelity/). The
// disk of a set comes from its calibration.json when it has one (as check.sh does), unless
// --cluster gives a profile; a profile is applied to every case (the layer above the spec).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";
import { graphTable, jitteredTable } from "./graph-tables.mjs";

register();
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const BARS = { makespan: 5, transfers: 15, bytes: 15, spill: 15 };
const args = process.argv.slice(2);
let profilePath = null;
let jsonPath = null;
let checkout = root;
let replay = false;
let jitter = null;
let samples = 10;
let reseed = false;
let competitionPath = null;
const sets = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--cluster") profilePath = args[++i];
  else if (args[i] === "--spanwork") checkout = resolve(args[++i]);
  else if (args[i] === "--replay") replay = true;
  else if (args[i] === "--jitter") jitter = Number(args[++i]);
  else if (args[i] === "--samples") samples = Number(args[++i]);
  else if (args[i] === "--reseed") reseed = true;
  else if (args[i] === "--json") jsonPath = args[++i];
  else if (args[i] === "--competition") competitionPath = args[++i];
  else if (args[i] === "-h" || args[i] === "--help") {
    console.log(readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").slice(1, 27).map((l) => l.replace(/^\/\/ ?/, "")).join("\n"));
    process.exit(0);
  } else if (args[i].startsWith("--")) {
    console.error(`unknown option ${args[i]}`);
    process.exit(2);
  } else sets.push(resolve(args[i]));
}
if (jitter !== null && !(jitter >= 0)) {
  console.error("--jitter: expected milliseconds ≥ 0");
  process.exit(2);
}
if (jitter === 0 && !reseed) {
  console.error("--jitter 0: every sample would be the nominal run; add --reseed to move the run's seed");
  process.exit(2);
}
if (reseed && jitter === null) {
  console.error("--reseed: only with --jitter MS (0: the durations stay nominal)");
  process.exit(2);
}
if (!(Number.isInteger(samples) && samples > 0)) {
  console.error("--samples: expected a whole number > 0");
  process.exit(2);
}
if (sets.length === 0) {
  for (const candidate of [join(root, "..", "shared", "fidelity"), join(root, "..", "..", "shared", "fidelity"), join(root, "fidelity")]) {
    if (existsSync(join(candidate, "real")) && !sets.includes(resolve(candidate))) sets.push(resolve(candidate));
  }
}
const spanwork = await import(join(checkout, "src", "index.ts"));
// A bad profile, spec or figure file is one line and exit 2, as in the CLI: spanwork's own
// SpecError already names the file and the field; anything else names the file it came from.
function orExit(what, read) {
  try {
    return read();
  } catch (error) {
    const message = error instanceof spanwork.SpecError ? error.issues[0] : `${what}: ${error.code === "ENOENT" ? "no such file" : (error.message ?? String(error)).split("\n")[0]}`;
    console.error(message);
    process.exit(2);
  }
}
const readJson = (path) => orExit(path, () => JSON.parse(readFileSync(path, "utf8")));
const profile = profilePath === null ? undefined : orExit(profilePath, () => spanwork.loadClusterProfile(resolve(profilePath)));
const competition = competitionPath === null ? null : competitionOf(competitionPath);

/** Set folder (resolved) → the other jobs' load its runs met, from overrun_load.py's output. */
function competitionOf(path) {
  if (profile?.host === undefined) {
    console.error("--competition: needs --cluster with a profile that has a host section (the load replaces its host.load)");
    process.exit(2);
  }
  let data;
  try {
    data = JSON.parse(readFileSync(resolve(path), "utf8"));
  } catch (error) {
    console.error(`--competition ${path}: ${error.code === "ENOENT" ? "no such file" : `not JSON (${error.message})`}`);
    process.exit(2);
  }
  const loads = new Map();
  for (const [name, set] of Object.entries(data?.sets ?? {})) {
    // overrun_load.py names a set as it was given, from the repo root
    if (typeof set?.median === "number" && set.median >= 0) loads.set(resolve(root, name), set.median);
  }
  if (loads.size === 0) {
    console.error(`--competition ${path}: no sets with a median load (overrun_load.py's output)`);
    process.exit(2);
  }
  return loads;
}

const graphOf = (set, tag) => readJson(join(set, "graphs", `${tag}.json`));

/** The graph dask ran, each task with its nominal duration moved by a uniform draw in ±ms. */
function jittered(set, tag, nominal, ms, seed) {
  return jitteredTable(spanwork.Rng, graphOf(set, tag), nominal, ms, seed);
}

/** The graph dask ran, each task with the median of its measured durations. */
function replayed(set, tag, nominal) {
  const raw = readJson(join(set, "real", "raw", `${tag}.json`));
  const measured = new Map();
  for (const run of raw.runs) for (const t of run.task_records) (measured.get(t.key) ?? measured.set(t.key, []).get(t.key)).push(t.end - t.start);
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return graphTable(graphOf(set, tag), nominal, (t) => (measured.has(t.key) ? median(measured.get(t.key)) : t.duration));
}

const movedKeys = (report) => report.transfers.reduce((sum, t) => sum + (t.outcome === "ok" ? t.keys : 0), 0);
const pct = (sim, real) => (real === 0 ? (sim === 0 ? 0 : Infinity) : (sim / real - 1) * 100);
// Bytes are compared against at least 1 MB: a few kB of small keys moved or not (spill-s1's
// dask median is 24 kB) is no error of the model, a 25 MB value is.
const BYTES_FLOOR = 1e6;
const pctBytes = (sim, real) => ((sim - real) / Math.max(real, BYTES_FLOOR)) * 100;
const fmtErr = (e) => (e === Infinity ? "n/a" : `${e >= 0 ? "+" : ""}${e.toFixed(1)}%`);
const mb = (bytes) => (bytes / 1e6).toFixed(1);

const rows = [];
for (const set of sets) {
  const calibration = existsSync(join(set, "calibration.json")) ? readJson(join(set, "calibration.json")).spanwork : null;
  const files = orExit(join(set, "real"), () => readdirSync(join(set, "real"))).filter((f) => f.endsWith(".json")).sort();
  for (const file of files) {
    const real = readJson(join(set, "real", file));
    const specPath = join(set, "specs", real.spec ?? `${real.name}.json`);
    const nominal = orExit(specPath, () => spanwork.loadWorkloadFile(specPath));
    const spec = replay ? replayed(set, `${real.name}-s${real.seed}`, nominal) : nominal;
    const options = { seed: real.seed };
    const load = competition?.get(set);
    if (profile !== undefined) options.cluster = load === undefined ? profile : { ...profile, host: { ...profile.host, load } };
    else if (calibration?.disk) options.disk = calibration.disk;
    const { report } = await spanwork.simulate(spec, options);
    const keys = movedKeys(report);
    const spread = [];
    for (let i = 1; jitter !== null && i <= samples; i++) {
      const sample = (await spanwork.simulate(jittered(set, `${real.name}-s${real.seed}`, nominal, jitter, i), reseed ? { ...options, seed: i } : options)).report;
      spread.push({ makespan: sample.makespan, keys: movedKeys(sample), bytes: sample.transfer.bytes });
    }
    const sim = {
      makespan: report.makespan,
      transfers: report.transfer.count,
      keys,
      bytes: report.transfer.bytes,
      spilled: report.spill.bytesWritten,
      tasksPerWorker: report.perWorker.map((w) => w.tasksExecuted),
      pauses: report.faultCounts.find((f) => f.kind === "pause")?.count ?? 0,
    };
    const r = {
      makespan: real.makespan,
      transfers: real.transfers.count,
      keys: real.transfers.keys,
      bytes: real.transfers.bytes,
      spilled: real.spill.bytes_written,
    };
    rows.push({
      case: `${real.name}-s${real.seed}`,
      set: set === join(root, "fidelity") ? "repo" : set,
      load: real.load_1m?.before ?? null,
      real: r,
      sim,
      err: {
        makespan: pct(sim.makespan, r.makespan.median),
        transfers: pct(sim.transfers, r.transfers.median),
        keys: pct(sim.keys, r.keys.median),
        bytes: pctBytes(sim.bytes, r.bytes.median),
        spilled: pctBytes(sim.spilled, r.spilled.median),
      },
      tasksPerWorker: { real: real.tasks_per_worker, sim: sim.tasksPerWorker },
      ...(spread.length === 0 ? {} : { jitter: spread }),
    });
  }
}

const range = (x, f = (v) => v) => `${f(x.median)} (${f(x.min)}–${f(x.max)})`;
const table = [
  ["case", "makespan s dask", "spanwork", "err", "transfers [keys] dask", "spanwork", "err", "MB moved dask", "spanwork", "err", "MB spilled dask", "spanwork", "err", "tasks/worker dask → spanwork"],
];
for (const row of rows) {
  const { real: r, sim: s, err: e } = row;
  table.push([
    row.case,
    range(r.makespan, (v) => v.toFixed(3)),
    s.makespan.toFixed(3),
    fmtErr(e.makespan),
    `${r.transfers.median} [${r.keys.median}]`,
    `${s.transfers} [${s.keys}]`,
    fmtErr(e.transfers),
    range(r.bytes, mb),
    mb(s.bytes),
    fmtErr(e.bytes),
    range(r.spilled, mb),
    mb(s.spilled),
    fmtErr(e.spilled),
    `${row.tasksPerWorker.real.map((t) => t.join("-")).join(", ")} → ${s.tasksPerWorker.join("-")}`,
  ]);
}
const widths = table[0].map((_, i) => Math.max(...table.map((line) => line[i].length)));
for (const line of table) console.log(line.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd());

const abs = (k) => rows.map((row) => Math.abs(row.err[k])).filter(Number.isFinite).sort((a, b) => a - b);
const median = (xs) => (xs.length === 0 ? NaN : xs.length % 2 ? xs[(xs.length - 1) / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2);
const within = (k, bar) => rows.filter((row) => Math.abs(row.err[k]) <= bar).length;
const line = (k, bar, label) => `${label}: median |err| ${median(abs(k)).toFixed(1)}%, max ${Math.max(0, ...abs(k)).toFixed(1)}%, ${within(k, bar)}/${rows.length} within ±${bar}%`;
console.log("");
console.log(line("makespan", BARS.makespan, "makespan"));
console.log(line("transfers", BARS.transfers, "transfers"));
console.log(line("bytes", BARS.bytes, "bytes moved"));
console.log(line("spilled", BARS.spill, "spilled bytes"));
console.log(`profile: ${profilePath ?? "none (defaults; each set's calibrated disk)"}${replay ? "; replayed with the measured task durations" : ""}`);
if (competition !== null) {
  for (const set of sets) console.log(`competition: ${set}: ${competition.has(set) ? `host.load ${competition.get(set).toFixed(2)} (its runs' own, ${competitionPath})` : `the profile's host.load ${profile.host.load} (not in ${competitionPath})`}`);
}
if (jitter !== null) {
  const spreadOf = (xs, f) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return `${f(sorted[0])} / ${f(median(sorted))} / ${f(sorted.at(-1))}`;
  };
  const lines = [["case", "makespan s dask (min–max)", `spanwork ±${jitter} ms: min / median / max`, "keys moved dask", "spanwork", "MB moved dask", "spanwork"]];
  for (const row of rows) {
    const j = row.jitter;
    const r = row.real;
    lines.push([
      row.case,
      range(r.makespan, (v) => v.toFixed(3)),
      spreadOf(j.map((s) => s.makespan), (v) => v.toFixed(3)),
      `${r.keys.median} (${r.keys.min}–${r.keys.max})`,
      spreadOf(j.map((s) => s.keys), (v) => String(v)),
      range(r.bytes, mb),
      spreadOf(j.map((s) => s.bytes), mb),
    ]);
  }
  const w = lines[0].map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  console.log("");
  for (const line of lines) console.log(line.map((cell, i) => cell.padEnd(w[i])).join("  ").trimEnd());
  console.log(
    jitter === 0
      ? `${samples} samples per case, every task at its nominal duration, simulated with seed i (sample i)`
      : `${samples} samples per case, every task's duration moved by a uniform draw in ±${jitter} ms (sample i: seed i${reseed ? ", simulated with seed i" : ""})`,
  );
}
if (jsonPath !== null) writeFileSync(jsonPath, JSON.stringify(rows, null, 1) + "\n");
