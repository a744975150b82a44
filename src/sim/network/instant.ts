// Fidelity 0: data moves in no time. Useful to isolate compute and scheduling effects.
import { NetworkError } from "../../worker/errors.js";
import type { NetworkModelEntry, SimNetwork, TransferRequest } from "./types.js";

export const instantModel: NetworkModelEntry = {
  description: "transfers take no time: isolates compute and scheduling",
  create: () => new InstantNetwork(),
};

export class InstantNetwork implements SimNetwork {
  readonly kind = "instant";
  private readonly dead = new Set<string>();

  transfer(request: TransferRequest): Promise<void> {
    if (request.signal.aborted) return Promise.reject(request.signal.reason);
    const deadEnd = this.dead.has(request.from) ? request.from : this.dead.has(request.to) ? request.to : null;
    if (deadEnd !== null) return Promise.reject(new NetworkError(`worker ${deadEnd} is gone`, { peer: request.from }));
    return Promise.resolve();
  }

  /** Transfers take no time: nothing to deserialise either. */
  deserializeSeconds(): number {
    return 0;
  }

  failWorker(address: string): void {
    this.dead.add(address);
  }
}
