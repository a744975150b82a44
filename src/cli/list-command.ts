import type { CliIo } from "./cli-io.js";
import type { SimulatorApi } from "./simulator-api.js";
import { DEFAULT_WORKLOAD } from "./workload-source.js";

/** `spanwork list`: one line per built-in workload, name and description aligned. */
export function listCommand(io: CliIo, simulator: SimulatorApi): number {
  const workloads = simulator.listWorkloads();
  const width = Math.max(0, ...workloads.map((workload) => workload.name.length));
  for (const workload of workloads) {
    const marker = workload.name === DEFAULT_WORKLOAD ? " (default)" : "";
    io.stdout.write(`${workload.name.padEnd(width)}  ${workload.description}${marker}\n`);
  }
  return 0;
}
