// Turns a validated workload spec into a TaskGraph: expands each group into keys
// `<prefix>-<i>`, draws durations and sizes, and wires the dependency patterns.
import { sample } from "./distributions.js";
import { GraphBuilder, GraphError, type TaskGraph } from "./graph.js";
import { Rng } from "./rng.js";
import { SpecError, type DependencyPattern, type WorkloadSpec } from "./spec.js";
import { explicitEntryIndex, explicitProblem, patternPath } from "./spec-checks.js";
import { compileTaskTable, TASK_TABLE_FIELD } from "./task-table.js";

/** Builds the graph of a validated spec. Throws SpecError for unknown explicit keys and cycles. */
export function compileSpec(spec: WorkloadSpec, seed: number): TaskGraph {
  if (spec.taskTable !== undefined) {
    try {
      return compileTaskTable(spec.taskTable, spec.name ?? "workload", spec.outputs);
    } catch (error) {
      if (error instanceof GraphError) throw new SpecError([`${TASK_TABLE_FIELD}: ${error.message}`]);
      throw error;
    }
  }
  const rng = Rng.derive(seed, `graph:${spec.name ?? "workload"}`);
  const builder = new GraphBuilder();
  const firstId = new Map<string, number>();
  for (const group of spec.tasks) {
    firstId.set(group.prefix, builder.size);
    for (let i = 0; i < group.count; i++) {
      builder.addTask({
        key: `${group.prefix}-${i}`,
        prefix: group.prefix,
        duration: sample(group.duration, rng),
        nbytes: Math.round(sample(group.outputSize, rng)),
        cpuShare: group.cpu,
        gil: group.gil === true,
        buildBandwidth: group.buildBandwidth ?? 0,
        buildLatency: group.buildLatency ?? 0,
        failureProbability: group.failureProbability,
      });
    }
  }
  const problems: string[] = [];
  spec.tasks.forEach((group, g) => {
    const base = firstId.get(group.prefix)!;
    const patterns: DependencyPattern[] = Array.isArray(group.dependsOn) ? group.dependsOn : [group.dependsOn];
    patterns.forEach((pattern, j) => {
      const at = patternPath(g, j, Array.isArray(group.dependsOn));
      wire(pattern, at, group.prefix, base, group.count, spec, firstId, builder, rng, problems);
    });
  });
  if (problems.length > 0) throw new SpecError(problems);
  const outputs = spec.outputs === undefined ? undefined : new Set(spec.outputs);
  try {
    return builder.build(spec.name ?? "workload", outputs === undefined ? undefined : (id) => outputs.has(prefixOfKey(builder, id)));
  } catch (error) {
    if (error instanceof GraphError) throw new SpecError([`tasks: ${error.message}`]);
    throw error;
  }
}

function prefixOfKey(builder: GraphBuilder, id: number): string {
  return builder.prefixOf(id);
}

function wire(
  pattern: DependencyPattern,
  at: ReadonlyArray<string | number>,
  ownPrefix: string,
  base: number,
  count: number,
  spec: WorkloadSpec,
  firstId: ReadonlyMap<string, number>,
  builder: GraphBuilder,
  rng: Rng,
  problems: string[],
): void {
  if (pattern.pattern === "none") return;
  if (pattern.pattern === "explicit") {
    // validateSpec reports these already; a spec built in code may still name keys that do not exist.
    const entries: Array<[number, string[], Array<string | number>]> = Array.isArray(pattern.deps)
      ? pattern.deps.map((keys, i) => [i, keys, [...at, "deps", i]])
      : [...pattern.deps].map(([name, keys]) => [explicitEntryIndex(name, ownPrefix, count), keys, [...at, "deps", name]]);
    for (const [i, keys, where] of entries) {
      if (i < 0) {
        problems.push(explicitProblem.notInGroup(where, String(where.at(-1))));
        continue;
      }
      keys.forEach((key, k) => {
        const dep = builder.idOf(key);
        if (dep === undefined) problems.push(explicitProblem.unknownDependency([...where, k], key));
        else builder.addDependency(base + i, dep);
      });
    }
    return;
  }
  const target = spec.tasks.find((group) => group.prefix === pattern.on)!;
  const targetBase = firstId.get(pattern.on)!;
  switch (pattern.pattern) {
    case "one-to-one":
      for (let i = 0; i < count; i++) builder.addDependency(base + i, targetBase + i);
      return;
    case "all-to-all":
      for (let i = 0; i < count; i++) for (let d = 0; d < target.count; d++) builder.addDependency(base + i, targetBase + d);
      return;
    case "fan-out": {
      const pieces = count / target.count;
      for (let i = 0; i < count; i++) builder.addDependency(base + i, targetBase + Math.floor(i / pieces));
      return;
    }
    case "strided":
      for (let i = 0; i < count; i++) for (let d = i; d < target.count; d += count) builder.addDependency(base + i, targetBase + d);
      return;
    case "reduce":
      for (let d = 0; d < target.count; d++) builder.addDependency(base + Math.floor(d / pattern.fanIn), targetBase + d);
      return;
    case "random": {
      const self = pattern.on === ownPrefix;
      for (let i = 0; i < count; i++) {
        const limit = self ? i : target.count;
        // Geometric gaps between chosen dependencies: O(edges) draws instead of O(pairs).
        for (let d = nextGap(rng, pattern.p); d < limit; d += 1 + nextGap(rng, pattern.p)) {
          builder.addDependency(base + i, targetBase + d);
        }
      }
      return;
    }
  }
}

/** Number of failures before the next success of a Bernoulli(p) sequence. */
function nextGap(rng: Rng, p: number): number {
  if (p >= 1) return 0;
  if (p <= 0) return Number.POSITIVE_INFINITY;
  const u = 1 - rng.random();
  return Math.floor(Math.log(u) / Math.log1p(-p));
}
