import type { WorkerClock } from "../../worker/index.js";
import { InstantNetwork } from "./instant.js";
import { LatencyBandwidthNetwork } from "./latency-bandwidth.js";
import { MaxMinNetwork } from "./max-min.js";
import type { NetworkKind, NetworkParameters, SimNetwork } from "./types.js";

export { InstantNetwork } from "./instant.js";
export { LatencyBandwidthNetwork } from "./latency-bandwidth.js";
export { MaxMinNetwork, maxMinFairRates, type MaxMinParameters } from "./max-min.js";
export { DEFAULT_NETWORK, type NetworkKind, type NetworkParameters, type SimNetwork } from "./types.js";

export function createNetwork(kind: NetworkKind, clock: WorkerClock, parameters: NetworkParameters): SimNetwork {
  switch (kind) {
    case "instant":
      return new InstantNetwork();
    case "latency-bandwidth":
      return new LatencyBandwidthNetwork(clock, parameters);
    case "max-min":
      return new MaxMinNetwork(clock, parameters);
  }
}
