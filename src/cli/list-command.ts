import { NETWORK_KINDS, NETWORK_MODELS } from "../sim/network/registry.js";
import type { CliIo } from "./cli-io.js";
import { CliUsageError } from "./errors.js";
import { schedulerListings } from "./parse-scheduler.js";
import type { SimulatorApi } from "./simulator-api.js";
import { DEFAULT_WORKLOAD } from "./workload-source.js";

const LISTS = ["workloads", "networks", "schedulers"] as const;

export interface ListFlags {
  /** The same as `list schedulers`. */
  schedulers?: boolean;
}

/**
 * `spanwork list [workloads|networks|schedulers]`: one line per built-in workload (the
 * default), network model or placement policy (with its options), name and description
 * aligned, straight from the simulator's registries.
 */
export function listCommand(what: string | undefined, io: CliIo, simulator: SimulatorApi, flags: ListFlags = {}): number {
  if (flags.schedulers === true && what !== undefined && what !== "schedulers") {
    throw new CliUsageError(`list: --schedulers lists the placement policies; leave out "${what}"`);
  }
  const list = flags.schedulers === true ? "schedulers" : (what ?? "workloads");
  if (list === "schedulers") return listSchedulers(io);
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

function listSchedulers(io: CliIo): number {
  const policies = schedulerListings();
  const width = Math.max(0, ...policies.map((policy) => policy.name.length));
  for (const policy of policies) {
    io.stdout.write(`${policy.name.padEnd(width)}  ${policy.description}${policy.isDefault ? " (default)" : ""}\n`);
    const settings = policy.options.map((option) => `${option.name}=${option.default === undefined ? `<${option.type}>` : String(option.default)}`);
    // one policy's option descriptions in one column
    const settingWidth = Math.max(0, ...settings.map((setting) => setting.length));
    policy.options.forEach((option, i) => io.stdout.write(`${" ".repeat(width)}    ${settings[i]!.padEnd(settingWidth)}  ${option.description}\n`));
  }
  io.stdout.write(`${"".padEnd(width)}  or a path to a .ts/.js/.mjs module whose default export is a policy factory (docs/sim.md)\n`);
  return 0;
}
