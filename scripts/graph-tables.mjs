// The graph dask ran (a fidelity set's graphs/CASE.json) as a spec's per-task table, shared by
// scripts/fidelity.mjs (--replay, --jitter) and fidelity/tools/placement.mjs (--jitter).

/**
 * Every task of `graph` as a table row, its duration from `durationOf(task)`, and what its group
 * in the nominal spec says of how it spends it (`cpu`, `gil`, `buildBandwidth`, `buildLatency`): a row without
 * `cpu` is all CPU, which under a host model is another workload.
 */
export function graphTable(graph, nominal, durationOf) {
  const groups = new Map((nominal.tasks ?? []).map((g) => [g.prefix, g]));
  const taskTable = graph.tasks.map((t) => {
    const group = groups.get(t.prefix);
    return {
      key: t.key,
      prefix: t.prefix,
      duration: durationOf(t),
      outputSize: t.nbytes,
      dependencies: t.deps,
      output: t.output,
      ...(group?.cpu === undefined ? {} : { cpu: group.cpu }),
      ...(group?.gil === undefined ? {} : { gil: group.gil }),
      ...(group?.buildBandwidth === undefined ? {} : { buildBandwidth: group.buildBandwidth }),
      ...(group?.buildLatency === undefined ? {} : { buildLatency: group.buildLatency }),
    };
  });
  return { name: nominal.name, taskTable, ...(nominal.cluster === undefined ? {} : { cluster: nominal.cluster }) };
}

/** `graph` with every task's nominal duration moved by a uniform draw in ±`ms` (`Rng` of seed `seed`). */
export function jitteredTable(Rng, graph, nominal, ms, seed) {
  const rng = new Rng(seed);
  return graphTable(graph, nominal, (t) => Math.max(0, t.duration + rng.uniform(-ms, ms) / 1e3));
}
