// Fidelity 2, for workers that share a machine: max-min fair sharing as in max-min, where
// each host's sends and receives also draw on one capacity of the host. On one machine the
// worker processes' transfers compete for the same cores (serializing, copying, the kernel's
// socket buffers): two transfers in opposite directions between two workers of a 2-core
// LocalCluster ran at 316-456 MB/s each against 744 MB/s for one alone (docs/sim.md, "Network").
import { MaxMinNetwork } from "./max-min.js";
import type { NetworkModelEntry } from "./types.js";

export const sharedHostModel: NetworkModelEntry = {
  description: "max-min, and each host's sends and receives share one capacity (workers on one machine)",
  create: (clock, parameters) => new MaxMinNetwork(clock, parameters, true),
};
