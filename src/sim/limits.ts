// The one table of limits on what a run may ask for. The spec's schema, simulate()'s options,
// the graph builder and the CLI's options all check against it, so a spec, the API and the
// command line accept the same things, and anything beyond is rejected up front with a line
// naming the limit, instead of a run that grows for a minute and dies of memory.
// docs/sim.md and docs/cli.md list the same table.

export const LIMITS = {
  /** Workers in a cluster (`--workers`, `cluster.workers`, `workers`). */
  workers: 10_000,
  /** Threads per worker (`--threads`, `cluster.threads`, `threads`). */
  threads: 1_024,
  /** Tasks in a graph: a spec's counts summed, or a built graph (about 0.7 KB of memory each in a run). */
  tasks: 2_000_000,
  /** Dependencies (edges) in a graph, a spec's patterns estimated before it is built. */
  dependencies: 20_000_000,
  /** Size of a built-in workload (`--size`, `size`); every built-in then stays within `tasks`. */
  size: 1_000_000,
  /** Any byte quantity: an output size (each parameter of its distribution), a memory limit, a bandwidth per second. 1 PiB. */
  bytes: 2 ** 50,
} as const;

/** "1,000,000": limits in messages, independent of the locale. */
export function formatLimit(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
