import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { CliUsageError } from "./errors.js";
import type { ClusterProfile } from "../sim/cluster-spec.js";
import { SIZE_UNITS } from "../sim/units.js";
import type { CliWorkload, SimulatorApi } from "./simulator-api.js";

/** The workload `spanwork run` (and `npm start`) runs when none is named: a few seconds, with transfers and spill. */
export const DEFAULT_WORKLOAD = "shuffle";

const SPEC_FILE = /\.(json|ya?ml)$/i;

/**
 * A built-in workload by name, or a JSON/YAML spec file by path. A name that is neither a
 * built-in nor an existing file is an error listing the built-ins; a path that looks like a
 * file (has a separator or a .json/.yaml/.yml ending) but does not exist is a missing file.
 */
export function workloadFromArgument(argument: string, simulator: SimulatorApi, cwd: string, seed?: number): CliWorkload {
  const builtIn = simulator.builtInWorkload(argument);
  if (builtIn) return builtIn;
  const path = resolve(cwd, argument);
  const looksLikeFile = SPEC_FILE.test(argument) || argument.includes("/") || argument.includes("\\");
  if (existsSync(path)) return simulator.loadWorkloadFile(path, argument, seed === undefined ? {} : { seed });
  if (looksLikeFile) throw new CliUsageError(`${argument}: no such file`);
  const names = simulator.listWorkloads().map((workload) => workload.name);
  // `--memory-limit 64 KiB` unquoted leaves the unit where the workload goes (one letter, "m", is
  // more likely a typo of a name)
  const unit = argument.length >= 2 && SIZE_UNITS.has(argument.toLowerCase()) ? `; "${argument}" is a size unit: quote a size with a space, --memory-limit "64 ${argument}"` : "";
  throw new CliUsageError(`unknown workload "${argument}" (built-in: ${names.join(", ")}; or give the path of a JSON/YAML spec file${unit})`);
}

/** A spec file for `spanwork validate`: the path must exist. */
export function loadSpecFile(argument: string, simulator: SimulatorApi, cwd: string): CliWorkload {
  const path = resolve(cwd, argument);
  if (!existsSync(path)) throw new CliUsageError(`${argument}: no such file`);
  return simulator.loadWorkloadFile(path, argument);
}

/** A cluster profile file for `--cluster FILE`: the path must exist; problems name the file and the field. */
export function clusterProfileFromArgument(argument: string, simulator: SimulatorApi, cwd: string): ClusterProfile {
  const path = resolve(cwd, argument);
  if (!existsSync(path)) throw new CliUsageError(`--cluster: ${argument}: no such file`);
  return simulator.loadClusterProfile(path, argument);
}
