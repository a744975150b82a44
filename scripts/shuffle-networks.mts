// Issue 14's network check on the default shuffle: the makespan with the instant network
// against latency-bandwidth, 4 and 8 workers, seeds 1-10 (over +2 % fails), with the bytes
// spilled and the pauses of each.
//   node --import tsx scripts/shuffle-networks.mts CHECKOUT [default|none]
import { pathToFileURL } from "node:url";
const [root, limit = "default"] = process.argv.slice(2);
const { simulate } = await import(pathToFileURL(root + "/src/index.ts").href);
let fails = 0; let worst = -Infinity; let worstAt = "";
const lines: string[] = [];
for (const workers of [4, 8]) for (let seed = 1; seed <= 10; seed++) {
  const r: Record<string, any> = {};
  for (const network of ["instant", "latency-bandwidth"]) {
    const o: any = { seed, workers, network }; if (limit === "none") o.memoryLimit = null;
    const { report } = await simulate("shuffle", o);
    r[network] = { makespan: report.makespan, spilled: report.perWorker.reduce((x: number, w: any) => x + w.spilledBytes, 0) / 1e6, pauses: report.faults.filter((f: any) => f.kind === "pause").length };
  }
  const d = r.instant.makespan / r["latency-bandwidth"].makespan - 1;
  if (d > 0.02) fails++;
  if (d > worst) { worst = d; worstAt = `${workers}w s${seed}`; }
  lines.push(`${workers}w s${seed}: instant ${r.instant.makespan.toFixed(2)} s (spilled ${r.instant.spilled.toFixed(0)} MB, pauses ${r.instant.pauses}) vs l-b ${r["latency-bandwidth"].makespan.toFixed(2)} s (spilled ${r["latency-bandwidth"].spilled.toFixed(0)} MB, pauses ${r["latency-bandwidth"].pauses}): ${(100 * d).toFixed(1)} %${d > 0.02 ? " FAIL" : ""}`);
}
console.log(lines.join("\n"));
console.log(`${root} limit=${limit}: instant slower by > 2 % on ${fails}/20; worst ${(100 * worst).toFixed(1)} % (${worstAt})`);
