// The simulator's network: a NetworkModel (src/worker) that also knows about faults.
import type { NetworkModel, TransferRequest, WorkerClock } from "../../worker/index.js";

export type NetworkKind = "instant" | "latency-bandwidth" | "max-min";

export interface NetworkParameters {
  /** One-way latency of a transfer, seconds (default 0.001). */
  latency: number;
  /** Bytes per second: per transfer (latency-bandwidth) or per worker in each direction (max-min). Default 100 MB/s. */
  bandwidth: number;
}

export const DEFAULT_NETWORK: NetworkParameters = { latency: 0.001, bandwidth: 100e6 };

export interface SimNetwork extends NetworkModel {
  readonly kind: NetworkKind;
  /** The worker at `address` died: its transfers fail with NetworkError, now and from now on. */
  failWorker(address: string): void;
}

export type { NetworkModel, TransferRequest, WorkerClock };
