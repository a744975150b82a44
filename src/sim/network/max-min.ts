// Fidelity 2: every worker has a send and a receive capacity, and an event loop that carries
// its sends and receives together (dask runs a worker's comms on its one loop thread);
// concurrent transfers share them max-min fairly (progressive filling / water-filling,
// Estee's most faithful model).
// Rates are recomputed only when the set of flows changes, or (with a host CPU model) when the
// loops' shares of the cores do; one timer, set for the earliest completion, is moved whenever
// the rates change. With a deserialisation (deserialize.ts) the
// flows are the wire's part, every capacity its wire share.
import type { TimerHandle } from "../../worker/clock.js";
import { NetworkError } from "../../worker/errors.js";
import { deserializeCost, deserializeSeconds, wireCapacity } from "./deserialize.js";
import type { NetworkKind, NetworkModelEntry, NetworkParameters, SimNetwork, TransferRequest, WorkerClock } from "./types.js";

export const maxMinModel: NetworkModelEntry = {
  description: "concurrent transfers share every worker's send and receive bandwidth and its event loop (loopBandwidth) max-min fairly (default)",
  create: (clock, parameters) => new MaxMinNetwork(clock, parameters),
};

export interface MaxMinParameters extends NetworkParameters {
  /** Bytes/s a worker can send in total (default: bandwidth), for workers without an entry in `endpoints`. */
  sendCapacity?: number;
  /** Bytes/s a worker can receive in total (default: bandwidth). */
  receiveCapacity?: number;
}

/**
 * Max-min fair rates of flows over shared resources: flow f uses the resources
 * `resources[start[f]] … resources[start[f + 1] - 1]` (each at most once) and resource r has
 * `capacity[r]` (progressive filling: raise every unfrozen flow's rate together; when a
 * resource runs out, freeze the flows through it). O(R × B + Σ degrees) for R resources and
 * B bottlenecks found.
 */
export function maxMinFairRatesOver(start: ArrayLike<number>, resources: ArrayLike<number>, capacity: ArrayLike<number>): Float64Array {
  const flows = start.length - 1;
  const count = capacity.length;
  const rates = new Float64Array(flows);
  const left = Float64Array.from(capacity);
  const users = new Int32Array(count);
  for (let m = 0; m < resources.length; m++) users[resources[m]!]!++;
  // Flows by resource, CSR.
  const byStart = new Int32Array(count + 1);
  for (let r = 0; r < count; r++) byStart[r + 1] = byStart[r]! + users[r]!;
  const members = new Int32Array(resources.length);
  const fill = byStart.slice(0, count);
  for (let f = 0; f < flows; f++) for (let m = start[f]!; m < start[f + 1]!; m++) members[fill[resources[m]!]!++] = f;
  const frozen = new Uint8Array(flows);
  let unfrozen = flows;
  while (unfrozen > 0) {
    let bottleneck = -1;
    let share = Number.POSITIVE_INFINITY;
    for (let r = 0; r < count; r++) {
      if (users[r]! === 0) continue;
      const fair = left[r]! / users[r]!;
      if (fair < share) {
        share = fair;
        bottleneck = r;
      }
    }
    for (let m = byStart[bottleneck]!; m < byStart[bottleneck + 1]!; m++) {
      const f = members[m]!;
      if (frozen[f] === 1) continue;
      frozen[f] = 1;
      unfrozen--;
      rates[f] = share;
      for (let k = start[f]!; k < start[f + 1]!; k++) {
        const other = resources[k]!;
        if (other === bottleneck) continue;
        left[other] = Math.max(0, left[other]! - share);
        users[other]!--;
      }
    }
    left[bottleneck] = 0;
    users[bottleneck] = 0;
  }
  return rates;
}

/**
 * Max-min fair rates of flows `src[i] → dst[i]` over endpoints with the given send and
 * receive capacities: each flow uses its source's send and its destination's receive capacity.
 */
export function maxMinFairRates(
  src: ArrayLike<number>,
  dst: ArrayLike<number>,
  sendCapacity: ArrayLike<number>,
  receiveCapacity: ArrayLike<number>,
): Float64Array {
  const endpoints = sendCapacity.length;
  const start = new Int32Array(src.length + 1);
  const resources = new Int32Array(2 * src.length);
  for (let f = 0; f < src.length; f++) {
    start[f + 1] = 2 * (f + 1);
    resources[2 * f] = src[f]!;
    resources[2 * f + 1] = endpoints + dst[f]!;
  }
  const capacity = new Float64Array(2 * endpoints);
  for (let e = 0; e < endpoints; e++) {
    capacity[e] = sendCapacity[e]!;
    capacity[endpoints + e] = receiveCapacity[e]!;
  }
  return maxMinFairRatesOver(start, resources, capacity);
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
  readonly kind: NetworkKind;
  private readonly endpointIndex = new Map<string, number>();
  /** Resources: every endpoint's send, receive and (with a loop bandwidth) loop capacity, then (shared hosts) every host's: the wire's share of each (Infinity: never binds). */
  private readonly capacity: number[] = [];
  /** The same resources' calibrated capacities (what a transfer limited by one gets end to end). */
  private readonly calibrated: number[] = [];
  /** Seconds per byte the receiver deserialises (0: free). */
  private readonly perByte: number;
  /** Per endpoint: its send resource (receive is the next one), its loop and its host resource (-1: none, or hosts do not share). */
  private readonly sendResource: number[] = [];
  private readonly loopResource: number[] = [];
  /** Per endpoint: its address (the loop's share is asked by it). */
  private readonly addresses: string[] = [];
  private readonly hostResource: number[] = [];
  private readonly hostResources = new Map<number, number>();
  private readonly dead = new Set<string>();
  private flows: Flow[] = [];
  /** Transfers still in their latency phase, so a death can cut them too. */
  private readonly connecting = new Set<{ request: TransferRequest; fail: (error: unknown) => void }>();
  private lastUpdate = 0;
  private timer: TimerHandle | null = null;
  private readonly send: number;
  private readonly receive: number;
  /** Default capacity of each host, from the largest bandwidth of its workers (shared hosts only). */
  private readonly hostCapacity = new Map<number, number>();
  private nextOwnHost = -1;
  /** Loop resources stopped now, each by how many deserialisations (holdLoop). */
  private readonly held = new Map<number, number>();
  /** Room for one flow's path (startFlow asks whether it has any resource). */
  private readonly scratch = new Int32Array(6);
  /** Capacity of every worker's event loop (its sends and receives together); null = none. */
  private readonly loop: number | null;
  /** The loops' shared capacities the rates were last computed with (`loopShare` only). */
  private lastShared: number[] | null = null;
  /** loopSharesChanged's buffer while the shares it reads have not moved (no array per unchanged call). */
  private spareShared: number[] | null = null;

  /** `sharedHosts`: every host's sends and receives also draw on one capacity of the host (the shared-host model). */
  constructor(
    private readonly clock: WorkerClock,
    private readonly parameters: MaxMinParameters,
    private readonly sharedHosts = false,
  ) {
    this.kind = sharedHosts ? "shared-host" : "max-min";
    this.send = parameters.sendCapacity ?? parameters.bandwidth;
    this.receive = parameters.receiveCapacity ?? parameters.bandwidth;
    this.loop = parameters.loopBandwidth ?? null;
    this.perByte = deserializeCost(parameters.deserializeBandwidth);
    if (sharedHosts) {
      for (const endpoint of parameters.endpoints?.values() ?? []) {
        const largest = Math.max(endpoint.send, endpoint.receive);
        this.hostCapacity.set(endpoint.host, Math.max(this.hostCapacity.get(endpoint.host) ?? 0, largest));
      }
    }
  }

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
    if (index !== undefined) return index;
    index = this.sendResource.length;
    this.endpointIndex.set(address, index);
    const own = this.parameters.endpoints?.get(address);
    this.sendResource.push(this.capacity.length);
    this.addresses.push(address);
    const send = own?.send ?? this.send;
    const receive = own?.receive ?? this.receive;
    this.addResource(send);
    this.addResource(receive);
    // A loop that can carry all the worker can send and receive at once never binds: left out,
    // the rates are the same and the water-filling has a resource less per flow (unless its
    // share of the host's cores may shrink it).
    const wire = (capacity: number): number => wireCapacity(capacity, this.perByte);
    if (this.loop !== null && (wire(this.loop) < wire(send) + wire(receive) || this.parameters.loopShare !== undefined)) {
      this.loopResource.push(this.capacity.length);
      this.addResource(this.loop);
    } else if (this.perByte > 0) {
      // A loop the wire never exhausts still stops while its worker deserialises (holdLoop).
      this.loopResource.push(this.capacity.length);
      this.calibrated.push(this.loop ?? Number.POSITIVE_INFINITY);
      this.capacity.push(Number.POSITIVE_INFINITY);
    } else {
      this.loopResource.push(-1);
    }
    if (!this.sharedHosts) {
      this.hostResource.push(-1);
      return index;
    }
    // A worker the parameters do not list runs on a host of its own.
    const host = own?.host ?? this.nextOwnHost--;
    let resource = this.hostResources.get(host);
    if (resource === undefined) {
      resource = this.capacity.length;
      this.hostResources.set(host, resource);
      const largest = Math.max(own?.send ?? this.send, own?.receive ?? this.receive);
      this.addResource(this.parameters.hostBandwidth ?? this.hostCapacity.get(host) ?? largest);
    }
    this.hostResource.push(resource);
    return index;
  }

  /** A resource of calibrated capacity `capacity`: the wire gets its share of it. */
  private addResource(capacity: number): void {
    this.calibrated.push(capacity);
    this.capacity.push(wireCapacity(capacity, this.perByte));
  }

  /**
   * The resources a flow from endpoint `src` to `dst` draws on, written into `into` from `at`;
   * returns the end. Resources the wire never exhausts (Infinity) are left out.
   */
  private path(src: number, dst: number, into: Int32Array, at: number): number {
    let used = this.add(this.sendResource[src]!, into, at);
    used = this.add(this.sendResource[dst]! + 1, into, used);
    // The bytes pass through the sender's loop (its writes) and the receiver's (its reads).
    used = this.add(this.loopResource[src]!, into, used);
    used = this.add(this.loopResource[dst]!, into, used);
    const fromHost = this.hostResource[src]!;
    const toHost = this.hostResource[dst]!;
    used = this.add(fromHost, into, used);
    // A transfer between two workers of one host draws on the host once.
    return toHost === fromHost ? used : this.add(toHost, into, used);
  }

  /** Writes `resource` at `at` unless it is none (-1) or unlimited (and not a held loop); returns the next free place. */
  private add(resource: number, into: Int32Array, at: number): number {
    // (no Map lookup while no loop is held: the common case, on every flow of every recomputation)
    if (resource < 0 || (this.capacity[resource]! === Number.POSITIVE_INFINITY && (this.held.size === 0 || !this.held.has(resource)))) return at;
    into[at] = resource;
    return at + 1;
  }

  /**
   * The worker at `address` deserialises from `at` for `seconds` (its GIL held): its loop reads
   * and writes nothing meanwhile, so every flow through it stops, sends and receives alike.
   */
  holdLoop(address: string, at: number, seconds: number): void {
    if (seconds <= 0) return;
    const endpoint = this.endpoint(address);
    const loop = this.loopResource[endpoint]!;
    if (loop < 0) return;
    const change = (by: number): void => {
      // No flow through the loop: no rate changes (the common case — the receiver's other reads are done).
      const touched = this.flows.some((flow) => flow.src === endpoint || flow.dst === endpoint);
      if (touched) this.advance();
      const count = (this.held.get(loop) ?? 0) + by;
      if (count > 0) this.held.set(loop, count);
      else this.held.delete(loop);
      if (touched) this.reschedule();
    };
    this.clock.setTimer(Math.max(at, this.clock.now()), () => {
      change(1);
      this.clock.setTimer(this.clock.now() + seconds, () => change(-1));
    });
  }

  deserializeSeconds(from: string, to: string, bytes: number): number {
    if (this.perByte <= 0 || bytes <= 0) return 0;
    const src = this.endpoint(from);
    const dst = this.endpoint(to);
    // The loops count even where the wire leaves them out (they never bind it): a lone transfer is limited by them.
    let lone = Math.min(this.calibrated[this.sendResource[src]!]!, this.calibrated[this.sendResource[dst]! + 1]!, this.loop ?? Number.POSITIVE_INFINITY);
    for (const host of [this.hostResource[src]!, this.hostResource[dst]!]) if (host >= 0) lone = Math.min(lone, this.calibrated[host]!);
    return deserializeSeconds(bytes, this.perByte, lone);
  }

  private startFlow(request: TransferRequest, resolve: () => void, reject: (error: unknown) => void): void {
    const src = this.endpoint(request.from);
    const dst = this.endpoint(request.to);
    // No bytes, or a wire that nothing on its path limits (its deserialisation takes all a lone transfer's time).
    if (request.bytes <= 0 || this.path(src, dst, this.scratch, 0) === 0) {
      resolve();
      return;
    }
    this.advance();
    const flow: Flow = {
      request,
      src,
      dst,
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

  /** Recomputes the rates and moves the completion timer to the earliest finishing flow; `shared`: the loops' shared capacities, when already read. */
  private reschedule(shared?: number[]): void {
    this.timer?.cancel();
    this.timer = null;
    const flows = this.flows;
    if (flows.length === 0) return;
    const start = new Int32Array(flows.length + 1);
    const resources = new Int32Array(6 * flows.length);
    let used = 0;
    for (let f = 0; f < flows.length; f++) {
      const flow = flows[f]!;
      used = this.path(flow.src, flow.dst, resources, used);
      start[f + 1] = used;
    }
    let capacity = this.loopShare === undefined ? this.capacity : (shared ?? this.sharedCapacity());
    if (this.loopShare !== undefined) this.lastShared = capacity;
    if (this.held.size > 0) {
      capacity = capacity.slice();
      for (const loop of this.held.keys()) capacity[loop] = 0;
    }
    const rates = maxMinFairRatesOver(start, resources.subarray(0, used), capacity);
    let soonest = Number.POSITIVE_INFINITY;
    for (let f = 0; f < flows.length; f++) {
      const flow = flows[f]!;
      flow.rate = rates[f]!;
      // a stopped flow (rate 0) moves again when its loop is released, which reschedules
      if (flow.rate <= 0) continue;
      const finish = Math.max(0, flow.remaining) / flow.rate;
      if (finish < soonest) soonest = finish;
    }
    if (soonest !== Number.POSITIVE_INFINITY) this.timer = this.clock.setTimer(this.clock.now() + soonest, () => this.completeDue());
  }

  /** Whether `address` has bytes moving now (its loop's thread is busy with them). */
  moving(address: string): boolean {
    for (const flow of this.flows) if (flow.request.from === address || flow.request.to === address) return true;
    return false;
  }

  /**
   * A host's runnable threads changed (host-cpu.ts): the loops' shares may have, and the rates
   * with them from now on — recomputed (O(flows)) only when some loop's capacity did change.
   */
  loopSharesChanged(): void {
    if (this.flows.length === 0 || this.loopShare === undefined) return;
    const shared = this.sharedCapacity(this.spareShared ?? undefined);
    if (this.lastShared !== null && sameValues(shared, this.lastShared)) {
      this.spareShared = shared;
      return;
    }
    // reschedule keeps it as lastShared
    this.spareShared = null;
    this.advance();
    this.reschedule(shared);
  }

  private get loopShare(): ((address: string) => number) | undefined {
    return this.parameters.loopShare;
  }

  /** The capacities with every loop scaled by its thread's share of its host's cores now (written into `into` when given). */
  private sharedCapacity(into?: number[]): number[] {
    let capacity: number[];
    if (into === undefined) capacity = this.capacity.slice();
    else {
      // resources are added as endpoints appear: the spare may be shorter
      capacity = into;
      capacity.length = this.capacity.length;
      for (let r = 0; r < capacity.length; r++) capacity[r] = this.capacity[r]!;
    }
    const share = this.parameters.loopShare!;
    for (let e = 0; e < this.loopResource.length; e++) {
      const loop = this.loopResource[e]!;
      if (loop >= 0) capacity[loop] = capacity[loop]! * share(this.addresses[e]!);
    }
    return capacity;
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

function sameValues(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
