import type { WorkerClock } from "../../worker/clock.js";
import { NETWORK_MODELS } from "./registry.js";
import type { NetworkKind, NetworkParameters, SimNetwork } from "./types.js";

export { InstantNetwork } from "./instant.js";
export { LatencyBandwidthNetwork } from "./latency-bandwidth.js";
export { MaxMinNetwork, maxMinFairRates, maxMinFairRatesOver, type MaxMinParameters } from "./max-min.js";
export { NETWORK_MODELS, NETWORK_KINDS, DEFAULT_NETWORK_KIND, type NetworkKind } from "./registry.js";
export { DEFAULT_TRANSFER_SPREAD, SHARED_CALIBRATION_TRANSFER_SPREAD, withTransferSpread } from "./spread.js";
export { deserializeCost, deserializeSeconds, wireCapacity } from "./deserialize.js";
export { DEFAULT_LOOP_BANDWIDTH, DEFAULT_NETWORK, DESERIALIZE_BANDWIDTH, type EndpointCapacity, type NetworkModelEntry, type NetworkParameters, type SimNetwork } from "./types.js";

export function createNetwork(kind: NetworkKind, clock: WorkerClock, parameters: NetworkParameters): SimNetwork {
  return NETWORK_MODELS[kind].create(clock, parameters);
}
