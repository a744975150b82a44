#!/usr/bin/env node
// spanwork's own placement decisions for some prefixes, the counterpart of join_decisions.py:
// the case's spec simulated with its seed under the dask policy wrapped, and for every
// non-queued decision of a task of PREFIX (comma-separated), each candidate's occupancy,
// processing count, missing bytes, worker_objective start time and stored bytes, the
// bandwidth estimate and the choice, in join_decisions.py's JSON shape (one "run").
//
//   node fidelity/tools/sim_decisions.mjs SPEC --prefix transform,combine [--seed 1] [--cluster PROFILE] [--out FILE]
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register();
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = process.argv.slice(2);
let specPath = null;
let prefixes = ["join"];
let seed = 1;
let profilePath = null;
let out = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--prefix") prefixes = args[++i].split(",");
  else if (args[i] === "--seed") seed = Number(args[++i]);
  else if (args[i] === "--cluster") profilePath = args[++i];
  else if (args[i] === "--out") out = args[++i];
  else specPath = args[i];
}
if (specPath === null) {
  console.error("usage: sim_decisions.mjs SPEC --prefix P[,P] [--seed N] [--cluster PROFILE] [--out FILE]");
  process.exit(2);
}
const spanwork = await import(join(root, "src", "index.ts"));
const dask = spanwork.resolvePolicy("dask");
const log = [];
const create = (context) => {
  const policy = dask.create(context);
  const { cluster } = context;
  const decide = policy.decideWorker.bind(policy);
  policy.decideWorker = (task, origin) => {
    const chosen = decide(task, origin);
    const g = cluster.graph;
    const key = g.keys[task];
    if (origin !== "queued" && prefixes.some((p) => key.startsWith(`${p}-`))) {
      const holders = new Set();
      const deps = [];
      for (let e = g.depStart[task]; e < g.depStart[task + 1]; e++) {
        const d = g.deps[e];
        const who = [...cluster.whoHas(d)];
        for (const w of who) holders.add(w);
        deps.push({ key: g.keys[d], nbytes: cluster.nbytes(d), who_has: who.map((w) => cluster.workers[w].address).sort() });
      }
      log.push({
        t: cluster.now, key, bandwidth: cluster.bandwidth, chosen: chosen >= 0 ? cluster.workers[chosen].address : null,
        duration_average: cluster.durationAverage(cluster.prefixOf(task)), deps,
        candidates: [...holders].sort((a, b) => a - b).map((w) => {
          const ws = cluster.workers[w];
          return { worker: ws.address, occupancy: ws.occupancy, processing: ws.processing.size, network_occ: null,
            objective: ws.occupancy / ws.nthreads + cluster.missingBytes(task, w) / cluster.bandwidth, nthreads: ws.nthreads, nbytes: ws.nbytes };
        }),
      });
    }
    return chosen;
  };
  return policy;
};
const options = { seed, scheduler: { name: "dask", create } };
if (profilePath !== null) options.cluster = spanwork.loadClusterProfile(resolve(profilePath));
const { report } = await spanwork.simulate(spanwork.loadWorkloadFile(resolve(specPath)), options);
const addresses = [...new Set(report.taskRecords.map((t) => t.worker))].sort();
const t0 = log.length > 0 ? log[0].t : 0;
for (const d of log) {
  const w = (a) => `w${addresses.indexOf(a)}`;
  const cells = d.candidates.map((c) => `${w(c.worker)} occ=${c.occupancy.toFixed(3)} proc=${c.processing} obj=${c.objective.toFixed(3)}`).join(" | ");
  console.log(`  +${(d.t - t0).toFixed(3)} ${d.key.padEnd(13)} bw=${(d.bandwidth / 1e6).toFixed(1).padStart(5)} ${cells || "no dependencies"} -> ${d.chosen === null ? "none" : w(d.chosen)}`);
}
console.log(`spanwork: makespan ${report.makespan.toFixed(3)} s, ${report.transfer.count} transfers, ${log.length} decisions logged`);
if (out !== null) writeFileSync(out, JSON.stringify([{ run: { run: "spanwork", makespan: report.makespan }, decisions: log }]));
