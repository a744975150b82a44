import { NETWORK_KINDS, NETWORK_MODELS } from "../sim/network/registry.js";
import type { CliIo } from "./cli-io.js";
import { CliUsageError } from "./errors.js";
import type { SimulatorApi } from "./simulator-api.js";
import { DEFAULT_WORKLOAD } from "./workload-source.js";

const LISTS = ["workloads", "networks"] as const;

/**
 * `spanwork list [workloads|networks]`: one line per built-in workload (the default) or per
 * network model, name and description aligned, straight from the simulator's registries.
 */
export function listCommand(what: string | undefined, io: CliIo, simulator: SimulatorApi): number {
  const list = what ?? "workloads";
  if (list === "networks") {
    printAligned(io, NETWORK_KINDS.map((name) => ({ name, description: NETWORK_MODELS[name].description })));
    return 0;
  }
  if (list !== "workloads") throw new CliUsageError(`list: unknown list "${list}" (choose one of: ${LISTS.join(", ")})`);
  printAligned(
    io,
    simulator.listWorkloads().map((workload) => ({ ...workload, description: `${workload.description}${workload.name === DEFAULT_WORKLOAD ? " (default)" : ""}` })),
  );
  return 0;
}

function printAligned(io: CliIo, entries: ReadonlyArray<{ name: string; description: string }>): void {
  const width = Math.max(0, ...entries.map((entry) => entry.name.length));
  for (const entry of entries) io.stdout.write(`${entry.name.padEnd(width)}  ${entry.description}\n`);
}
