// Fidelity 1: each transfer takes latency + bytes / bandwidth, independently of the others
// (no contention; the bandwidth of a transfer is the smaller of its sender's send and its
// receiver's receive capacity), the receiver's deserialisation included when the cluster has
// one (deserialize.ts). Cheap, and easy to compute by hand.
import { NetworkError } from "../../worker/errors.js";
import { deserializeCost, deserializeSeconds, wireCapacity } from "./deserialize.js";
import type { NetworkModelEntry, NetworkParameters, SimNetwork, TransferRequest, WorkerClock } from "./types.js";

export const latencyBandwidthModel: NetworkModelEntry = {
  description: "each transfer takes latency + bytes / bandwidth, independently of the others",
  create: (clock, parameters) => new LatencyBandwidthNetwork(clock, parameters),
};

export class LatencyBandwidthNetwork implements SimNetwork {
  readonly kind = "latency-bandwidth";
  private readonly dead = new Set<string>();
  /** Transfers in progress, by one of their ends, so a death can cut them. */
  private readonly active = new Set<ActiveTransfer>();
  /** Seconds per byte the receiver deserialises (0: free). */
  private readonly perByte: number;

  constructor(
    private readonly clock: WorkerClock,
    private readonly parameters: NetworkParameters,
  ) {
    this.perByte = deserializeCost(parameters.deserializeBandwidth);
  }

  /** What a transfer from `from` to `to` gets: the smaller of the sender's send and the receiver's receive capacity. */
  private rate(from: string, to: string): number {
    const { endpoints, bandwidth } = this.parameters;
    return Math.min(endpoints?.get(from)?.send ?? bandwidth, endpoints?.get(to)?.receive ?? bandwidth);
  }

  deserializeSeconds(from: string, to: string, bytes: number): number {
    return deserializeSeconds(bytes, this.perByte, this.rate(from, to));
  }

  transfer(request: TransferRequest): Promise<void> {
    if (request.signal.aborted) return Promise.reject(request.signal.reason);
    const deadEnd = this.dead.has(request.from) ? request.from : this.dead.has(request.to) ? request.to : null;
    // The wire's part; the deserialisation after it is the receiver's (deserialize.ts).
    const seconds = this.parameters.latency + request.bytes / wireCapacity(this.rate(request.from, request.to), this.perByte);
    return new Promise<void>((resolve, reject) => {
      const entry: ActiveTransfer = {
        request,
        fail: (error) => {
          timer.cancel();
          finish();
          reject(error);
        },
      };
      const onAbort = (): void => entry.fail(request.signal.reason);
      const finish = (): void => {
        this.active.delete(entry);
        request.signal.removeEventListener("abort", onAbort);
      };
      // A dead peer is noticed after one latency (connection refused), not instantly.
      const timer = this.clock.setTimer(this.clock.now() + (deadEnd === null ? seconds : this.parameters.latency), () => {
        finish();
        if (deadEnd !== null) reject(new NetworkError(`worker ${deadEnd} is gone`, { peer: request.from }));
        else resolve();
      });
      this.active.add(entry);
      request.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  failWorker(address: string): void {
    this.dead.add(address);
    for (const entry of [...this.active]) {
      if (entry.request.from === address || entry.request.to === address) {
        entry.fail(new NetworkError(`connection to worker ${address} lost`, { peer: entry.request.from }));
      }
    }
  }
}

interface ActiveTransfer {
  readonly request: TransferRequest;
  fail(error: unknown): void;
}
