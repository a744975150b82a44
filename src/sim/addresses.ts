// Simulated workers' addresses: one host per worker by default, or several workers per host
// (workersPerHost), which then differ by port.

/** Address of simulated worker `i` when every worker has a host of its own (the default layout). */
export function workerAddress(i: number): string {
  return hostAddress(i, i, 0);
}

/** Address of the worker in slot `slot` of host `host` (workers of one host differ by port). */
export function hostAddress(_worker: number, host: number, slot: number): string {
  return `tcp://10.0.${Math.floor(host / 250)}.${(host % 250) + 1}:${8786 + slot}`;
}

