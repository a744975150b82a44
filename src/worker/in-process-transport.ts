// A transport between Workers of one process (simulation, tests, embedding several
// workers): routes a request to the registered Worker at that address, lets it serve the
// request (metered under its own ["get-data"] root) and models the wire with a pluggable
// NetworkModel. Values pass by reference unless `clone` is set, in which case they are
// serialized by the sender and deserialized by the receiver (node:v8), each side metered.
import { deserialize, serialize } from "node:v8";
import type { Key } from "../state/index.js";
import { NetworkError } from "./errors.js";
import type { WorkerClock } from "./clock.js";
import type {
  DataServer,
  GetDataReply,
  GetDataResponse,
  NetworkModel,
  TransferRequest,
  Transport,
  TransportRequestOptions,
} from "./types.js";

export interface InProcessTransportOptions {
  /** Time model of the wire (default: instant). */
  network?: NetworkModel;
  /** Copy values through node:v8 serialize/deserialize (metered) instead of passing references. Default false. */
  clone?: boolean;
}

export class InProcessTransport implements Transport {
  /** Records under the request's and the reply's spans only (no context binding needed). */
  readonly explicitSpans = true;
  readonly #servers = new Map<string, DataServer>();
  readonly #network: NetworkModel | undefined;
  readonly #clone: boolean;

  constructor(options: InProcessTransportOptions = {}) {
    this.#network = options.network;
    this.#clone = options.clone ?? false;
  }

  /** Makes `server` reachable at `server.address` (replacing any previous one). */
  register(server: DataServer): void {
    this.#servers.set(server.address, server);
  }

  unregister(address: string): void {
    this.#servers.delete(address);
  }

  has(address: string): boolean {
    return this.#servers.has(address);
  }

  async getData(fromWorker: string, keys: readonly Key[], options: TransportRequestOptions): Promise<GetDataResponse> {
    const { who, signal, span } = options;
    const server = this.#servers.get(fromWorker);
    if (server === undefined) throw new NetworkError(`no worker at ${fromWorker}`, { peer: fromWorker });
    const network = this.#network;
    const clone = this.#clone;
    let serialized: Buffer | undefined;
    let bytes = 0;
    const networkSpan = span.child("network");
    let response: GetDataResponse;
    try {
      response = await server.getData(keys, {
        who,
        signal,
        explicitSpans: true,
        send: async (reply: GetDataReply) => {
          bytes = reply.totalBytes;
          if (clone) {
            const serializeSpan = reply.span.child("serialize");
            try {
              serialized = serialize(reply.data);
            } finally {
              serializeSpan.end();
            }
          }
          const sending = reply.span.child("network");
          sending.addMetric("bytes", bytes);
          try {
            if (network !== undefined) {
              const request: TransferRequest = { from: fromWorker, to: who, bytes, keys: Object.keys(reply.data).length, signal: reply.signal };
              await network.transfer(request);
            }
          } finally {
            sending.end();
          }
        },
      });
      if (response.status === "OK") networkSpan.addMetric("bytes", bytes);
    } finally {
      networkSpan.end();
    }
    if (response.status !== "OK" || serialized === undefined) return response;
    const deserializeSpan = span.child("deserialize");
    try {
      const data = deserialize(serialized) as Record<Key, unknown>;
      return response.nbytes === undefined ? { status: "OK", data } : { status: "OK", data, nbytes: response.nbytes };
    } finally {
      deserializeSpan.end();
    }
  }
}

export interface LatencyBandwidthNetworkOptions {
  clock: WorkerClock;
  /** Seconds per transfer (default 0). */
  latency?: number;
  /** Bytes per second (default Infinity). */
  bandwidth?: number;
}

/** The simplest wire: every transfer takes `latency + bytes / bandwidth` seconds, independently. */
export class LatencyBandwidthNetwork implements NetworkModel {
  readonly #clock: WorkerClock;
  readonly #latency: number;
  readonly #bandwidth: number;

  constructor(options: LatencyBandwidthNetworkOptions) {
    const latency = options.latency ?? 0;
    const bandwidth = options.bandwidth ?? Infinity;
    if (!(latency >= 0) || !Number.isFinite(latency)) throw new RangeError(`latency must be finite seconds ≥ 0, got ${latency}`);
    if (!(bandwidth > 0)) throw new RangeError(`bandwidth must be bytes per second > 0, got ${bandwidth}`);
    this.#clock = options.clock;
    this.#latency = latency;
    this.#bandwidth = bandwidth;
  }

  transfer(request: TransferRequest): Promise<void> {
    const seconds = this.#latency + request.bytes / this.#bandwidth;
    if (seconds === 0) {
      request.signal.throwIfAborted();
      return Promise.resolve();
    }
    return this.#clock.sleep(seconds, request.signal);
  }
}
