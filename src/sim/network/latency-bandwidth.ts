// Fidelity 1: each transfer takes latency + bytes / bandwidth, independently of the others
// (no contention; the bandwidth of a transfer is the smaller of its sender's send and its
// receiver's receive capacity). Cheap, and easy to compute by hand.
import { NetworkError } from "../../worker/errors.js";
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

  constructor(
    private readonly clock: WorkerClock,
    private readonly parameters: NetworkParameters,
  ) {}

  transfer(request: TransferRequest): Promise<void> {
    if (request.signal.aborted) return Promise.reject(request.signal.reason);
    const deadEnd = this.dead.has(request.from) ? request.from : this.dead.has(request.to) ? request.to : null;
    const { endpoints, bandwidth } = this.parameters;
    const rate = Math.min(endpoints?.get(request.from)?.send ?? bandwidth, endpoints?.get(request.to)?.receive ?? bandwidth);
    const seconds = this.parameters.latency + request.bytes / rate;
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
