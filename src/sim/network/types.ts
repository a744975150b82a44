// The simulator's network: a NetworkModel (src/worker) that also knows about faults, and the
// shape of an entry of the registry of models (registry.ts).
import type { RegistryEntry } from "../../util/registry.js";
import type { WorkerClock } from "../../worker/clock.js";
import type { NetworkModel, TransferRequest } from "../../worker/types.js";
import type { NetworkKind } from "./registry.js";

export type { NetworkKind } from "./registry.js";

export interface NetworkParameters {
  /** One-way latency of a transfer, seconds (default 0.001). */
  latency: number;
  /** Bytes per second: per transfer (latency-bandwidth) or per worker in each direction (max-min). Default 100 MB/s. */
  bandwidth: number;
  /** Each worker's own capacities and host, by address (workers not listed: `bandwidth` both ways, a host of their own). */
  endpoints?: ReadonlyMap<string, EndpointCapacity>;
  /** Capacity of a host that its workers' sends and receives share (shared-host); default: the largest bandwidth of its workers. */
  hostBandwidth?: number | null;
}

/** What one worker can move, and the host it runs on. */
export interface EndpointCapacity {
  /** Bytes/s it can send, all its outgoing transfers together. */
  readonly send: number;
  /** Bytes/s it can receive. */
  readonly receive: number;
  /** Its host: workers with the same host share that host's capacity under shared-host. */
  readonly host: number;
}

export const DEFAULT_NETWORK: NetworkParameters = { latency: 0.001, bandwidth: 100e6 };

export interface SimNetwork extends NetworkModel {
  readonly kind: NetworkKind;
  /** The worker at `address` died: its transfers fail with NetworkError, now and from now on. */
  failWorker(address: string): void;
}

/** A network model of the registry: one line for `spanwork list networks`, and how to build one for a run. */
export interface NetworkModelEntry extends RegistryEntry {
  create(clock: WorkerClock, parameters: NetworkParameters): SimNetwork;
}

export type { NetworkModel, TransferRequest, WorkerClock };
