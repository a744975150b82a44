// Writes, as JSON on stdout, the graphs whose dask.order priorities tools/dask_order_fixtures.py
// records: every fidelity graph (this repo's fidelity/*/graphs and the shared set) and every
// built-in workload at a small size, each as spanwork holds it (keys, dependency ids).
//   npx tsx test/tools/export-order-graphs.ts > /tmp/order-graphs.json
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { builtInWorkloads } from "../../src/sim/workloads/index.js";
import { loadWorkloadFile } from "../../src/sim/spec.js";
import { workloadFromSpec } from "../../src/sim/workloads/from-spec.js";
import type { TaskGraph } from "../../src/sim/graph.js";

const SHARED = "/work/shared/fidelity/graphs";
const SIZES = [1, 7, 64, 300];

function exported(name: string, g: TaskGraph): { name: string; keys: readonly string[]; deps: number[][] } {
  const deps: number[][] = [];
  for (let t = 0; t < g.size; t++) deps.push(Array.from(g.deps.subarray(g.depStart[t]!, g.depStart[t + 1]!)));
  return { name, keys: g.keys, deps };
}

/** The graphs dask ran (fidelity_tasks.py's export: tasks with key and deps). */
function daskGraph(path: string): { name: string; keys: string[]; deps: number[][] } {
  const tasks = (JSON.parse(readFileSync(path, "utf8")) as { tasks: { key: string; deps: string[] }[] }).tasks;
  const id = new Map(tasks.map((t, i) => [t.key, i]));
  return { name: path, keys: tasks.map((t) => t.key), deps: tasks.map((t) => [...new Set(t.deps.map((d) => id.get(d)!))]) };
}

function jsonFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => join(dir, f)) : [];
}

const graphs = [];
const sets = readdirSync("fidelity", { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join("fidelity", d.name)).sort();
for (const path of [SHARED, "fidelity/graphs", ...sets.map((s) => join(s, "graphs"))].flatMap(jsonFiles)) {
  graphs.push({ ...daskGraph(path), name: path.replace("/work/shared/", "shared/") });
}
for (const path of ["/work/shared/fidelity/specs", "fidelity/specs", ...sets.map((s) => join(s, "specs"))].flatMap(jsonFiles)) {
  graphs.push(exported(path.replace("/work/shared/", "shared/"), workloadFromSpec(loadWorkloadFile(path), 1).graph));
}
for (const [name, w] of Object.entries(builtInWorkloads)) {
  for (const size of SIZES) graphs.push(exported(`${name}-${size}`, w.generate({ seed: 1, size, workers: 2, threads: 2 }).graph));
}
process.stdout.write(JSON.stringify({ graphs }));
