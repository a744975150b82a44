// Fidelity 2: every worker has a send and a receive capacity; concurrent transfers share
// them max-min fairly (progressive filling / water-filling, Estee's most faithful model).
// Rates are recomputed only when the set of flows changes; one timer, set for the earliest
// completion, is moved whenever the rates change.
import type { TimerHandle } from "../../worker/clock.js";
import { NetworkError } from "../../worker/errors.js";
import type { NetworkModelEntry, NetworkParameters, SimNetwork, TransferRequest, WorkerClock } from "./types.js";

export const maxMinModel: NetworkModelEntry = {
  description: "concurrent transfers share every worker's send and receive bandwidth max-min fairly (default)",
  create: (clock, parameters) => new MaxMinNetwork(clock, parameters),
};

export interface MaxMinParameters extends NetworkParameters {
  /** Bytes/s a worker can send in total (default: bandwidth). */
  sendCapacity?: number;
  /** Bytes/s a worker can receive in total (default: bandwidth). */
  receiveCapacity?: number;
}

/**
 * Max-min fair rates of flows `src[i] → dst[i]` over endpoints with the given send and
 * receive capacities (progressive filling: raise every unfrozen flow's rate together; when
 * a capacity runs out, freeze the flows through it). O(E² + F) for E endpoints, F flows.
 */
export function maxMinFairRates(
  src: ArrayLike<number>,
  dst: ArrayLike<number>,
  sendCapacity: ArrayLike<number>,
  receiveCapacity: ArrayLike<number>,
): Float64Array {
  const flows = src.length;
  const endpoints = sendCapacity.length;
  const resources = 2 * endpoints;
  const rates = new Float64Array(flows);
  const left = new Float64Array(resources);
  const users = new Int32Array(resources);
  for (let e = 0; e < endpoints; e++) {
    left[e] = sendCapacity[e]!;
    left[endpoints + e] = receiveCapacity[e]!;
  }
  for (let f = 0; f < flows; f++) {
    users[src[f]!]!++;
    users[endpoints + dst[f]!]!++;
  }
  // Flows by resource, CSR.
  const start = new Int32Array(resources + 1);
  for (let r = 0; r < resources; r++) start[r + 1] = start[r]! + users[r]!;
  const members = new Int32Array(2 * flows);
  const fill = start.slice(0, resources);
  for (let f = 0; f < flows; f++) {
    members[fill[src[f]!]!++] = f;
    members[fill[endpoints + dst[f]!]!++] = f;
  }
  const frozen = new Uint8Array(flows);
  let unfrozen = flows;
  while (unfrozen > 0) {
    let bottleneck = -1;
    let share = Number.POSITIVE_INFINITY;
    for (let r = 0; r < resources; r++) {
      if (users[r]! === 0) continue;
      const fair = left[r]! / users[r]!;
      if (fair < share) {
        share = fair;
        bottleneck = r;
      }
    }
    for (let m = start[bottleneck]!; m < start[bottleneck + 1]!; m++) {
      const f = members[m]!;
      if (frozen[f] === 1) continue;
      frozen[f] = 1;
      unfrozen--;
      rates[f] = share;
      const other = bottleneck < endpoints ? endpoints + dst[f]! : src[f]!;
      left[other] = Math.max(0, left[other]! - share);
      users[other]!--;
    }
    left[bottleneck] = 0;
    users[bottleneck] = 0;
  }
  return rates;
}

interface Flow {
  readonly request: TransferRequest;
  readonly src: number;
  readonly dst: number;
  remaining: number;
  rate: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
}

export class MaxMinNetwork implements SimNetwork {
  readonly kind = "max-min";
  private readonly endpointIndex = new Map<string, number>();
  private readonly sendCapacity: number[] = [];
  private readonly receiveCapacity: number[] = [];
  private readonly dead = new Set<string>();
  private flows: Flow[] = [];
  /** Transfers still in their latency phase, so a death can cut them too. */
  private readonly connecting = new Set<{ request: TransferRequest; fail: (error: unknown) => void }>();
  private lastUpdate = 0;
  private timer: TimerHandle | null = null;
  private readonly send: number;
  private readonly receive: number;

  constructor(
    private readonly clock: WorkerClock,
    private readonly parameters: MaxMinParameters,
  ) {
    this.send = parameters.sendCapacity ?? parameters.bandwidth;
    this.receive = parameters.receiveCapacity ?? parameters.bandwidth;
  }

  /** Current flows and their rates in bytes/s (for tests and reports). */
  currentRates(): Array<{ from: string; to: string; rate: number; remaining: number }> {
    return this.flows.map((flow) => ({ from: flow.request.from, to: flow.request.to, rate: flow.rate, remaining: flow.remaining }));
  }

  transfer(request: TransferRequest): Promise<void> {
    if (request.signal.aborted) return Promise.reject(request.signal.reason);
    return new Promise<void>((resolve, reject) => {
      const deadEnd = this.deadEnd(request);
      const pending = {
        request,
        fail: (error: unknown): void => {
          timer.cancel();
          this.connecting.delete(pending);
          request.signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      const onAbort = (): void => pending.fail(request.signal.reason);
      const timer = this.clock.setTimer(this.clock.now() + this.parameters.latency, () => {
        this.connecting.delete(pending);
        request.signal.removeEventListener("abort", onAbort);
        if (deadEnd !== null) reject(new NetworkError(`worker ${deadEnd} is gone`, { peer: request.from }));
        else this.startFlow(request, resolve, reject);
      });
      this.connecting.add(pending);
      request.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  failWorker(address: string): void {
    this.dead.add(address);
    for (const pending of [...this.connecting]) {
      if (pending.request.from === address || pending.request.to === address) {
        pending.fail(new NetworkError(`connection to worker ${address} lost`, { peer: pending.request.from }));
      }
    }
    const cut = this.flows.filter((flow) => flow.request.from === address || flow.request.to === address);
    if (cut.length === 0) return;
    this.advance();
    this.flows = this.flows.filter((flow) => flow.request.from !== address && flow.request.to !== address);
    this.reschedule();
    for (const flow of cut) {
      flow.request.signal.removeEventListener("abort", flow.onAbort);
      flow.reject(new NetworkError(`connection to worker ${address} lost`, { peer: flow.request.from }));
    }
  }

  private deadEnd(request: TransferRequest): string | null {
    if (this.dead.has(request.from)) return request.from;
    if (this.dead.has(request.to)) return request.to;
    return null;
  }

  private endpoint(address: string): number {
    let index = this.endpointIndex.get(address);
    if (index === undefined) {
      index = this.sendCapacity.length;
      this.endpointIndex.set(address, index);
      this.sendCapacity.push(this.send);
      this.receiveCapacity.push(this.receive);
    }
    return index;
  }

  private startFlow(request: TransferRequest, resolve: () => void, reject: (error: unknown) => void): void {
    if (request.bytes <= 0) {
      resolve();
      return;
    }
    this.advance();
    const flow: Flow = {
      request,
      src: this.endpoint(request.from),
      dst: this.endpoint(request.to),
      remaining: request.bytes,
      rate: 0,
      resolve,
      reject,
      onAbort: () => {
        this.advance();
        this.flows = this.flows.filter((other) => other !== flow);
        this.reschedule();
        reject(request.signal.reason);
      },
    };
    request.signal.addEventListener("abort", flow.onAbort, { once: true });
    this.flows.push(flow);
    this.reschedule();
  }

  /** Moves every flow forward to now at its current rate. */
  private advance(): void {
    const now = this.clock.now();
    const elapsed = now - this.lastUpdate;
    this.lastUpdate = now;
    if (elapsed <= 0) return;
    for (const flow of this.flows) flow.remaining -= flow.rate * elapsed;
  }

  /** Recomputes the rates and moves the completion timer to the earliest finishing flow. */
  private reschedule(): void {
    this.timer?.cancel();
    this.timer = null;
    const flows = this.flows;
    if (flows.length === 0) return;
    const src = new Int32Array(flows.length);
    const dst = new Int32Array(flows.length);
    for (let f = 0; f < flows.length; f++) {
      src[f] = flows[f]!.src;
      dst[f] = flows[f]!.dst;
    }
    const rates = maxMinFairRates(src, dst, this.sendCapacity, this.receiveCapacity);
    let soonest = Number.POSITIVE_INFINITY;
    for (let f = 0; f < flows.length; f++) {
      const flow = flows[f]!;
      flow.rate = rates[f]!;
      const finish = Math.max(0, flow.remaining) / flow.rate;
      if (finish < soonest) soonest = finish;
    }
    this.timer = this.clock.setTimer(this.clock.now() + soonest, () => this.completeDue());
  }

  private completeDue(): void {
    this.timer = null;
    this.advance();
    const done: Flow[] = [];
    const running: Flow[] = [];
    for (const flow of this.flows) {
      // Float residue of remaining -= rate × elapsed: a flow within a nanosecond of its end is done.
      if (flow.remaining <= flow.rate * 1e-9 || flow.remaining <= 1e-6) done.push(flow);
      else running.push(flow);
    }
    this.flows = running;
    this.reschedule();
    for (const flow of done) {
      flow.request.signal.removeEventListener("abort", flow.onAbort);
      flow.resolve();
    }
  }
}
