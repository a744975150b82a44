// The network models a run can use, by name, in `spanwork list networks` order. The spec's
// `cluster.network`, the CLI's `--network` choices, `SimOptions["network"]` and the list all
// derive from this object: a new model is one new file exporting its entry plus one line here.
import { registryNames, type Registry } from "../../util/registry.js";
import { instantModel } from "./instant.js";
import { latencyBandwidthModel } from "./latency-bandwidth.js";
import { maxMinModel } from "./max-min.js";
import { sharedHostModel } from "./shared-host.js";
import type { NetworkModelEntry } from "./types.js";

export const NETWORK_MODELS = {
  instant: instantModel,
  "latency-bandwidth": latencyBandwidthModel,
  "max-min": maxMinModel,
  "shared-host": sharedHostModel,
} as const satisfies Registry<NetworkModelEntry>;

export type NetworkKind = keyof typeof NETWORK_MODELS;

/** The model names in registry order (a non-empty tuple, as z.enum takes). */
export const NETWORK_KINDS = registryNames(NETWORK_MODELS);

export const DEFAULT_NETWORK_KIND: NetworkKind = "max-min";
