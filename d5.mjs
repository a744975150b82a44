import { pathToFileURL } from "node:url";
const sw = await import(pathToFileURL(process.cwd() + "/src/index.ts").href);
const spec = sw.loadWorkloadFile("/work/shared/fidelity/specs/shuffle.json");
const { report } = await sw.simulate(spec, { seed: 1, disk: { latency: 0.00013, bandwidth: 686e6 } });
const ph = (p) => { const xs = report.taskRecords.filter(t => t.prefix === p); return [Math.min(...xs.map(t=>t.start)), Math.max(...xs.map(t=>t.end))].map(x=>x.toFixed(3)); };
console.log(ph("input"), ph("split"), ph("join"), report.makespan);
for (const w of report.perWorker) console.log(w.address, w.utilisation * 2 * report.makespan);
console.log(report.transfers.slice(0,5));
