// The slow tier of each simulated worker: a virtual disk that keeps spilled values in
// memory and reports how long each read and write would have taken. One disk per worker,
// serving one request at a time: a request issued while the disk is busy waits its turn,
// and that wait is part of its modelled duration. The disks of one host may share a capacity
// (host-disk.ts): the worker processes of a machine spill onto one disk and page cache.
import type { ModelledDuration, ModelledRead, SpillStore } from "../spill/store.js";
import type { Serializer } from "../spill/serializer.js";
import type { WorkerClock } from "../worker/clock.js";
import type { HostDisk } from "./host-disk.js";
import { isSimulatedData, type SimulatedData } from "./simulated-data.js";

export interface DiskParameters {
  /** Bytes per second, reads and writes alike (default 500 MB/s). */
  bandwidth: number;
  /** Seconds per operation (default 0.0001). */
  latency: number;
  /** Bytes per second that the disks of one host's workers share (HostDisk); null or absent: each worker's disk is its own (the default). */
  hostBandwidth?: number | null;
  /**
   * A spilled value's file removed (read back into memory, or freed): seconds per file, and
   * bytes per second at which its pages are let go (null or absent: no per-byte term). dask's
   * zict File.__delitem__ is an os.remove on the worker's event loop. Default 0 and null: free.
   */
  removeLatency?: number;
  removeBandwidth?: number | null;
}

export const DEFAULT_DISK: DiskParameters = { bandwidth: 500e6, latency: 0.0001, hostBandwidth: null, removeLatency: 0, removeBandwidth: null };

/**
 * The "serialized bytes" of a SimulatedData: an empty buffer whose byteLength reports the
 * modelled size, so the SpillBuffer's disk accounting (bytes written, maxSpill) sees the
 * size the value stands for without allocating it. Only the VirtualDisk ever holds one.
 */
export class ModelledBytes extends Uint8Array {
  constructor(readonly value: SimulatedData) {
    super(0);
  }

  override get byteLength(): number {
    return this.value.nbytes;
  }
}

/** Serializer of the simulator's task values for the virtual disk. */
export const simulatedDataSerializer: Serializer = {
  dump(value) {
    if (!isSimulatedData(value)) throw new TypeError(`the simulator can only spill simulated task values, got ${typeof value}`);
    return new ModelledBytes(value);
  },
  load(bytes) {
    if (!(bytes instanceof ModelledBytes)) throw new TypeError("not the bytes of a simulated value");
    return bytes.value;
  },
};

export class VirtualDisk implements SpillStore {
  private readonly files = new Map<string, Uint8Array>();
  private busyUntil = 0;
  /**
   * Totals of what this disk did, modelled seconds included. `writeSeconds`, `readSeconds`: the
   * service of its writes and reads, the wait behind earlier requests left out — what dask's
   * SpillBuffer metrics time (each value's pickle + write, read + unpickle, one after the other),
   * where a span's duration also holds the queue a burst of evictions builds.
   */
  readonly totals = { bytesWritten: 0, bytesRead: 0, writes: 0, reads: 0, removals: 0, busySeconds: 0, writeSeconds: 0, readSeconds: 0 };

  /**
   * `onService`: told the service time of every request (the simulator books its worker's event
   * loop with it: dask spills and unspills on the loop). `host`: the capacity this disk shares
   * with the other disks of its host, if any.
   */
  constructor(
    private readonly clock: WorkerClock,
    private readonly parameters: DiskParameters,
    private readonly onService?: (seconds: number) => void,
    private readonly host?: HostDisk,
  ) {}

  /** Time at which the disk has finished every request issued so far. */
  get idleAt(): number {
    return Math.max(this.busyUntil, this.clock.now());
  }

  write(key: string, bytes: Uint8Array): ModelledDuration {
    this.files.set(key, bytes);
    this.totals.bytesWritten += bytes.byteLength;
    this.totals.writes++;
    const { seconds, service } = this.occupy(bytes.byteLength);
    this.totals.writeSeconds += service;
    return { seconds };
  }

  read(key: string): ModelledRead {
    const bytes = this.files.get(key);
    if (bytes === undefined) throw new Error(`virtual disk: no spilled data for key "${key}"`);
    this.totals.bytesRead += bytes.byteLength;
    this.totals.reads++;
    const { seconds, service } = this.occupy(bytes.byteLength);
    this.totals.readSeconds += service;
    return { bytes, seconds };
  }

  /**
   * The file of `key` removed: a value read back into memory or freed (dask's
   * File.__delitem__). The removal is served like a request, after the ones before it, for
   * `removeLatency + bytes / removeBandwidth`, and that time goes to the worker's event loop
   * (`onService`). It is no read or write: no span records it (dask's SpillBuffer metrics
   * leave it out), so it is the `other` time of whatever waits for the loop behind it.
   */
  delete(key: string): void {
    const bytes = this.files.get(key);
    if (bytes === undefined) return;
    this.files.delete(key);
    const { removeLatency = 0, removeBandwidth = null } = this.parameters;
    const seconds = removeLatency + (removeBandwidth === null ? 0 : bytes.byteLength / removeBandwidth);
    if (seconds <= 0) return;
    this.totals.removals++;
    this.serve(seconds);
  }

  /** Everything on this disk is gone (its worker died). */
  clear(): void {
    this.files.clear();
  }

  /** Queues a request of `bytes`; returns its duration from now (waiting included) and its service alone. */
  private occupy(bytes: number): { seconds: number; service: number } {
    const now = this.clock.now();
    const start = Math.max(now, this.busyUntil);
    const { latency, bandwidth } = this.parameters;
    const service =
      this.host === undefined ? latency + bytes / bandwidth : this.host.book(start + latency, bytes, bandwidth, now) - start;
    this.serve(service, start);
    return { seconds: this.busyUntil - now, service };
  }

  /** The disk busy for `service` seconds from `start` (after what it serves already), its loop told. */
  private serve(service: number, start = Math.max(this.clock.now(), this.busyUntil)): void {
    this.busyUntil = start + service;
    this.totals.busySeconds += service;
    this.onService?.(service);
  }
}
