// What `simulate` is given, checked before anything runs: the input (a built-in name, a spec,
// or a Workload), the run's options, the cluster they resolve to and the placement policy.
// Every problem is a SimulationError or SpecError naming the option.
import { registryEntry } from "../util/registry.js";
import { hostAddress } from "./addresses.js";
import { ClusterLayoutError, resolveCluster, type ResolvedCluster } from "./cluster.js";
import type { ClusterSpec } from "./cluster-spec.js";
import { DEFAULT_SEED } from "./defaults.js";
import { formatLimit, LIMITS } from "./limits.js";
import type { SimOptions } from "./report.js";
import { PolicySelectionError, type ResolvedPolicy } from "./scheduler/registry.js";
import { loadPolicy } from "./scheduler/user-policy.js";
import { SpecError, validateSpec, type WorkloadSpecInput } from "./spec.js";
import { BUILT_IN_WORKLOAD_NAMES, BUILT_IN_WORKLOADS, workloadFromSpec, type Workload } from "./workloads/index.js";

/** Raised for a simulation that cannot run as asked (unknown workload, bad option). */
export class SimulationError extends Error {
  override readonly name = "SimulationError";
}

/** What `simulate` accepts: a built-in workload name, a spec (a plain object, validated here; a
 * validated WorkloadSpec is one too), or a ready Workload. */
export type SimInput = string | WorkloadSpecInput | Workload;

function isWorkload(input: SimInput): input is Workload {
  return typeof input === "object" && input !== null && "graph" in input;
}

/** Turns the input into a Workload (throws SpecError / SimulationError naming the problem); a Workload is used as it is. */
export function workloadOfInput(input: SimInput, options: SimOptions, seed: number, workers: number, threads: number): Workload {
  if (typeof input === "string") {
    const builtIn = registryEntry(BUILT_IN_WORKLOADS, input);
    if (builtIn === undefined) {
      throw new SpecError([`unknown workload "${input}" (built-in: ${BUILT_IN_WORKLOAD_NAMES.join(", ")})`]);
    }
    return builtIn.generate({ ...(options.size === undefined ? {} : { size: options.size }), seed, workers, threads });
  }
  if (isWorkload(input)) return input;
  return workloadFromSpec(validateSpec(input), seed);
}

function positiveOption(value: number | undefined, name: string, integer: boolean, max: number = Number.MAX_VALUE): void {
  if (value === undefined) return;
  if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new SimulationError(`option ${name} must be a positive ${integer ? "integer" : "number"}, got ${value}`);
  }
  if (value > max) throw new SimulationError(`option ${name} must be at most ${formatLimit(max)} (docs/sim.md, limits), got ${value}`);
}

/** Checks every option of a run (each error names the option and its limit) and returns its seed. */
export function checkOptions(input: SimInput, options: SimOptions): number {
  const seed = options.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new SimulationError(`option seed must be an integer ≥ 0, got ${seed}`);
  positiveOption(options.workers, "workers", true, LIMITS.workers);
  positiveOption(options.threads, "threads", true, LIMITS.threads);
  positiveOption(options.size, "size", true, LIMITS.size);
  if (options.size !== undefined && typeof input !== "string") {
    throw new SimulationError("option size sets the size of a built-in workload; a spec or a graph has its own task counts");
  }
  positiveOption(options.bandwidth, "bandwidth", false, LIMITS.bytes);
  if (typeof options.memoryLimit === "number" && options.memoryLimit > LIMITS.bytes) {
    throw new SimulationError(`option memoryLimit must be at most 1 PiB (${formatLimit(LIMITS.bytes)} bytes), got ${options.memoryLimit}`);
  }
  if (options.memoryLimit !== undefined && options.memoryLimit !== null && !(options.memoryLimit > 0)) {
    throw new SimulationError(`option memoryLimit must be a positive number of bytes or null, got ${options.memoryLimit}`);
  }
  if (options.latency !== undefined && !(options.latency >= 0)) throw new SimulationError(`option latency must be seconds ≥ 0, got ${options.latency}`);
  // A disk of no capacity would never finish a request: the run would spin, not fail.
  positiveOption(options.disk?.bandwidth, "disk.bandwidth", false, LIMITS.bytes);
  positiveOption(options.disk?.hostBandwidth ?? undefined, "disk.hostBandwidth", false, LIMITS.bytes);
  const diskLatency = options.disk?.latency;
  if (diskLatency !== undefined && !(diskLatency >= 0 && Number.isFinite(diskLatency))) throw new SimulationError(`option disk.latency must be seconds ≥ 0, got ${diskLatency}`);
  return seed;
}

/** The cluster of a run: the workload's settings, then the profile, then the run's options. */
export function clusterOf(workload: ClusterSpec, profile: ClusterSpec | undefined, options: SimOptions): ResolvedCluster {
  try {
    return resolveCluster(workload, profile, options, hostAddress);
  } catch (error) {
    if (error instanceof ClusterLayoutError) throw new SimulationError(error.message, { cause: error });
    throw error;
  }
}

/** The run's placement policy, a module loaded when it names a path (relative to the working directory). */
export async function schedulerPolicy(selection: SimOptions["scheduler"]): Promise<ResolvedPolicy> {
  try {
    return await loadPolicy(selection, process.cwd());
  } catch (error) {
    if (error instanceof PolicySelectionError) throw new SimulationError(error.message, { cause: error });
    throw error;
  }
}
