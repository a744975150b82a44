// The simulator's transport: the Worker's InProcessTransport (real get-data serving, the
// network model on the wire) behind a layer that injects faults, opens connections, books the
// receiver's deserialisation on its event loop and records transfers.
import type { Key } from "../state/index.js";
import { NetworkError } from "../worker/errors.js";
import type { InProcessTransport } from "../worker/in-process-transport.js";
import type { WorkerClock } from "../worker/clock.js";
import type { GetDataResponse, Transport, TransportRequestOptions } from "../worker/types.js";
import type { CopyHolds } from "./copy-holds.js";
import type { FaultDice } from "./faults.js";
import type { SimNetwork } from "./network/types.js";
import type { TransferRecord } from "./report.js";

export interface TransferLog {
  record(transfer: TransferRecord): void;
  /** An injected fault fired (transfer-failure, busy). */
  countFault(kind: string, time: number): void;
}

/** A worker's event loop as the deserialisation books it (SerialLoop). */
export interface ReceiverLoop {
  /** Seconds until the loop is through its booked work. */
  idleIn(): number;
  /** Books `seconds` of work after what is booked; seconds until it is done. */
  reserve(seconds: number): number;
}

export interface SimTransportOptions {
  /** Real get-data serving between the registered workers, over `network`. */
  readonly inner: InProcessTransport;
  /** The network model under `inner`, which a death must cut too. */
  readonly network: SimNetwork;
  readonly clock: WorkerClock;
  /** Worker addresses by index (fault plans and callbacks speak in indices). */
  readonly addresses: readonly string[];
  readonly dice: FaultDice;
  /** Seconds before an injected failure or busy answer arrives (one latency; 0 on the instant network). */
  readonly latency: number;
  /**
   * Seconds a fetch spends opening a connection to its peer when the fetching worker has none
   * idle to it (dask's ConnectionPool: TCP connect and the comm handshake); 0: connections are free.
   */
  readonly connectLatency?: number;
  /**
   * Worker `to`'s event loop, where a received message's deserialisation (the network's
   * `deserializeSeconds`) is booked: it waits for what is booked before it, and what is booked
   * after it waits for it. Unset: deserialisations take no loop time.
   */
  readonly receiverLoop?: (to: number) => ReceiverLoop;
  /**
   * Worker `to`'s GIL as its task threads see it: a deserialisation holds it from its start on
   * the loop to its end, one join per value (copy-holds.ts). Unset: the task threads never wait.
   */
  readonly copyHolds?: (to: number) => CopyHolds | undefined;
  readonly log: TransferLog;
  /** Data moved or a request started: the run is not stalled. */
  readonly onActivity: () => void;
  /** A request of worker `to` ended (any outcome): its state may need the memory monitor or find-missing. */
  readonly onSettled: (to: number) => void;
}

export class SimTransport implements Transport {
  private readonly index = new Map<string, number>();
  private readonly dead = new Set<string>();
  /** Like the InProcessTransport it wraps: records under the request's span only. */
  readonly explicitSpans: boolean;
  private readonly inner: InProcessTransport;
  private readonly network: SimNetwork;
  private readonly clock: WorkerClock;
  private readonly dice: FaultDice;
  private readonly latency: number;
  private readonly connectLatency: number;
  private readonly receiverLoop: ((to: number) => ReceiverLoop) | undefined;
  private readonly copyHolds: ((to: number) => CopyHolds | undefined) | undefined;
  /** Idle pooled connections: receiver → sender → how many (dask's `rpc.available`). */
  private readonly idle = new Map<string, Map<string, number>>();
  private readonly log: TransferLog;
  private readonly onActivity: () => void;
  private readonly onSettled: (to: number) => void;

  constructor(options: SimTransportOptions) {
    this.inner = options.inner;
    this.network = options.network;
    this.clock = options.clock;
    this.dice = options.dice;
    this.latency = options.latency;
    this.connectLatency = options.connectLatency ?? 0;
    this.receiverLoop = options.receiverLoop;
    this.copyHolds = options.copyHolds;
    this.log = options.log;
    this.onActivity = options.onActivity;
    this.onSettled = options.onSettled;
    options.addresses.forEach((address, i) => this.index.set(address, i));
    this.explicitSpans = this.inner.explicitSpans;
  }

  /**
   * The worker at `address` died: its connections drop (transfers to and from it fail with a
   * network error, now and from now on, requests to it like a refused connection) and it
   * serves nothing any more. Call it before the worker's own shutdown, so peers see a network
   * failure rather than the worker closing.
   */
  disconnect(address: string): void {
    this.dead.add(address);
    this.idle.delete(address);
    for (const peers of this.idle.values()) peers.delete(address);
    this.network.failWorker(address);
    this.inner.unregister(address);
  }

  async getData(fromWorker: string, keys: readonly Key[], options: TransportRequestOptions): Promise<GetDataResponse> {
    try {
      return await this.fetch(fromWorker, keys, options);
    } finally {
      const to = this.index.get(options.who);
      if (to !== undefined) this.onSettled(to);
    }
  }

  private async fetch(fromWorker: string, keys: readonly Key[], options: TransportRequestOptions): Promise<GetDataResponse> {
    const start = this.clock.now();
    const from = this.index.get(fromWorker) ?? -1;
    const to = this.index.get(options.who) ?? -1;
    this.onActivity();
    const log = (outcome: TransferRecord["outcome"], bytes: number, keyCount: number): void =>
      this.log.record({ from: fromWorker, to: options.who, keys: keyCount, bytes, start, end: this.clock.now(), outcome });
    if (!this.dead.has(fromWorker) && !this.takeConnection(options.who, fromWorker)) {
      try {
        await this.clock.sleep(this.connectLatency, options.signal);
      } catch (error) {
        log("failed", 0, keys.length);
        throw error;
      }
    }
    if (!this.dead.has(fromWorker)) {
      if (this.dice.busy(from, start)) {
        await this.clock.sleep(this.latency, options.signal);
        log("busy", 0, keys.length);
        this.log.countFault("busy", this.clock.now());
        this.returnConnection(options.who, fromWorker);
        return { status: "busy" };
      }
      if (this.dice.transferFails(from, to, start)) {
        await this.clock.sleep(this.latency, options.signal);
        log("failed", 0, keys.length);
        this.log.countFault("transfer-failure", this.clock.now());
        throw new NetworkError(`simulated network failure fetching from ${fromWorker}`, { peer: fromWorker });
      }
    }
    let response: GetDataResponse;
    try {
      response = await this.inner.getData(fromWorker, keys, options);
    } catch (error) {
      log("failed", 0, keys.length);
      // A peer that died mid-request is a lost connection, whatever its shutdown threw.
      if (!(error instanceof NetworkError) && this.dead.has(fromWorker) && !options.signal.aborted) {
        throw new NetworkError(`worker ${fromWorker} died during the transfer`, { peer: fromWorker, cause: error });
      }
      throw error;
    }
    if (response.status === "busy") {
      this.returnConnection(options.who, fromWorker);
      log("busy", 0, keys.length);
      return response;
    }
    let bytes = 0;
    let count = 0;
    for (const key in response.data) {
      count++;
      bytes += response.nbytes?.[key] ?? 0;
    }
    const deserializing = this.receiverLoop === undefined || to < 0 ? 0 : this.network.deserializeSeconds(fromWorker, options.who, bytes);
    // Nothing to book: no await either, so a run without deserialisation keeps its order of events.
    if (deserializing > 0) {
      try {
        await this.deserialize(this.receiverLoop!(to), deserializing, options, this.copyHolds?.(to), response, bytes);
      } catch (error) {
        log("failed", 0, keys.length);
        throw error;
      }
    }
    // dask's comm.read returns once the message is deserialised; the comm is pooled after it.
    this.returnConnection(options.who, fromWorker);
    log(count === 0 ? "missing" : "ok", bytes, count);
    this.onActivity();
    return response;
  }

  /**
   * The receiver deserialises what arrived, on its event loop after what is booked there (the
   * wait is the gather-dep root's `other` time), as the root's `deserialize` activity. It holds
   * the receiver's GIL meanwhile (`holds`), one join of the message's `bytes` per value.
   */
  private async deserialize(
    loop: ReceiverLoop,
    seconds: number,
    options: TransportRequestOptions,
    holds: CopyHolds | undefined,
    response: Extract<GetDataResponse, { status: "OK" }>,
    bytes: number,
  ): Promise<void> {
    const queued = loop.idleIn();
    const done = loop.reserve(seconds);
    const now = this.clock.now();
    this.network.holdLoop?.(options.who, now + queued, done - queued);
    if (holds !== undefined) {
      holds.open(now, now + queued, now + done, bytes);
      for (const key in response.data) holds.value(response.nbytes?.[key] ?? 0);
    }
    if (queued > 0) await this.clock.sleep(queued, options.signal);
    const span = options.span.child("deserialize");
    try {
      await this.clock.sleep(done - queued, options.signal);
    } finally {
      span.end();
    }
  }

  /** Takes an idle connection of `to` to `from` from the pool: false when there is none (the fetch opens one). */
  private takeConnection(to: string, from: string): boolean {
    if (this.connectLatency <= 0) return true;
    const peers = this.idle.get(to);
    const count = peers?.get(from) ?? 0;
    if (count === 0) return false;
    peers!.set(from, count - 1);
    return true;
  }

  /**
   * The fetch is done with its connection and the pool keeps it (dask's `rpc.reuse`); a fetch
   * that failed does not call this — dask aborts a comm that raised, so the next one connects anew.
   */
  private returnConnection(to: string, from: string): void {
    if (this.connectLatency <= 0 || this.dead.has(from) || this.dead.has(to)) return;
    let peers = this.idle.get(to);
    if (peers === undefined) this.idle.set(to, (peers = new Map()));
    peers.set(from, (peers.get(from) ?? 0) + 1);
  }
}
