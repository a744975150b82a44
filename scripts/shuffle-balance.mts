// Issue 14's join-balance check on the default shuffle: 4 and 8 workers, seeds 1-10, the
// joins per worker, max / mean (over 1.3 fails), steals requested/confirmed/rejected, makespan.
//   node --import tsx scripts/shuffle-balance.mts CHECKOUT [default|none] [NETWORK|-] [SCALE] [SCHEDULER]
// CHECKOUT: the spanwork checkout to measure (`.`, or another one for a before/after pair);
// none: no memory limit; SCALE multiplies every task's duration (more balance rounds per task).
import { pathToFileURL } from "node:url";
const [root, limit = "default", network = "-", scale = "1", scheduler = ""] = process.argv.slice(2);
const { simulate } = await import(pathToFileURL(root + "/src/index.ts").href);
const { shuffleWorkload } = await import(pathToFileURL(root + "/src/sim/workloads/shuffle.ts").href);
let fails = 0; const ratios: number[] = [];
for (const workers of [4, 8]) for (let seed = 1; seed <= 10; seed++) {
  const o: any = { seed, workers };
  if (network !== "-") o.network = network;
  if (limit === "none") o.memoryLimit = null;
  if (scheduler) o.scheduler = scheduler;
  let input: any = "shuffle";
  if (scale !== "1") {
    input = shuffleWorkload.generate({ seed, workers, threads: 2 });
    const d = input.graph.duration as Float64Array;
    for (let i = 0; i < d.length; i++) d[i] *= Number(scale);
  }
  const { report } = await simulate(input, o);
  const by = new Map(report.perWorker.map((w: any) => [w.address, 0]));
  for (const t of report.taskRecords) if (t.prefix === "shuffle-join" && t.outcome === "ok") by.set(t.worker, by.get(t.worker)! + 1);
  const c = [...by.values()] as number[]; const mean = c.reduce((a, b) => a + b) / c.length;
  const r = Math.max(...c) / mean; if (r > 1.3) fails++; ratios.push(r);
  const s = report.scheduler.steals;
  const out = new Map<string, number>(); for (const e of report.steals ?? []) out.set(e.outcome, (out.get(e.outcome) ?? 0) + 1);
  console.log(`${workers}w s${seed}\t[${c.join(",")}]\t${r.toFixed(3)}${r > 1.3 ? " FAIL" : ""}\tsteals ${s.requested}/${s.confirmed}/${s.rejected}${out.get("rescheduled") ? " resched " + out.get("rescheduled") : ""}${out.get("aborted") ? " aborted " + out.get("aborted") : ""}\tmakespan ${report.makespan.toFixed(2)}`);
}
console.log("fails", fails, "/ 20; worst", Math.max(...ratios).toFixed(3), "mean", (ratios.reduce((a, b) => a + b) / ratios.length).toFixed(3));
