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
  /**
   * Bytes/s each worker's event loop moves, its sends and receives together (max-min and
   * shared-host): dask runs every comm of a worker on its one loop thread. Unset or null: no
   * such limit (a run's cluster has DEFAULT_LOOP_BANDWIDTH unless it says otherwise).
   */
  loopBandwidth?: number | null;
  /**
   * The fraction of its loop's capacity a worker's event loop has now (max-min and shared-host):
   * its thread's share of the host's cores (src/sim/host-cpu.ts), read whenever the rates are
   * recomputed: a flow starts or ends, or the host's runnable threads change (`loopSharesChanged`).
   * Unset: the whole capacity.
   */
  loopShare?: (address: string) => number;
  /**
   * Bytes/s the receiving worker deserialises a message at once every byte is read (its GIL held,
   * its event loop stopped; deserialize.ts). Unset or null: free. The models then give the wire
   * what the capacities leave after it, and `deserializeSeconds` says what the receiver spends.
   */
  deserializeBandwidth?: number | null;
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

/**
 * What a dask 2022.12.1 worker's event loop moves per second, sending and receiving together:
 * one transfer between two worker processes of the fidelity machine with nothing else moving
 * ran at 744 MB/s (calibration.json), and two at once in opposite directions moved, together,
 * 0.49-1.29 times what one moved alone (fidelity/tools/duplex.py; full duplex would be 2): both
 * loops carry both transfers, so the one transfer was already as fast as the loops go.
 * docs/sim.md, "Network".
 */
export const DEFAULT_LOOP_BANDWIDTH = 744e6;

/**
 * What a dask 2022.12.1 worker deserialises per second of its GIL: `fidelity/tools/deserialise.py`
 * on the quiet fetch_cost.py run (64 idle fetches of 3-48 MB one way, load 0.14-1.27): a fit of
 * read-bytes → read-deserialised against bytes, 0.731 ms per MB. docs/sim.md, "Network".
 */
export const DESERIALIZE_BANDWIDTH = 1.37e9;

export interface SimNetwork extends NetworkModel {
  readonly kind: NetworkKind;
  /** The worker at `address` died: its transfers fail with NetworkError, now and from now on. */
  failWorker(address: string): void;
  /** Whether `address` has bytes moving now (models with flows; the host CPU model counts its loop busy then). */
  moving?(address: string): boolean;
  /**
   * Seconds the receiver `to` spends deserialising `bytes` that came from `from` over this model
   * (`deserializeBandwidth`; 0 when free, and on the instant network): the transport books them
   * on the receiver's event loop once the wire is through.
   */
  deserializeSeconds(from: string, to: string, bytes: number): number;
  /** The worker at `address` deserialises from time `at` for `seconds`: its loop moves no bytes meanwhile (models with loops). */
  holdLoop?(address: string, at: number, seconds: number): void;
  /** The loops' shares (`loopShare`) may have changed now: the rates are recomputed (models that read it). */
  loopSharesChanged?(): void;
}

/** A network model of the registry: one line for `spanwork list networks`, and how to build one for a run. */
export interface NetworkModelEntry extends RegistryEntry {
  create(clock: WorkerClock, parameters: NetworkParameters): SimNetwork;
}

export type { NetworkModel, TransferRequest, WorkerClock };
