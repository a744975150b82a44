// Shared fixtures of the worker tests: virtual clock, in-memory spill store, workers
// wired to an in-process transport, and a scheduler outbox.
import type { SpillStore } from "../../src/spill/index.js";
import type { SendMessageToScheduler } from "../../src/state/index.js";
import {
  InProcessTransport,
  LatencyBandwidthNetwork,
  SimulatedExecutor,
  VirtualClock,
  Worker,
  type Executor,
  type MetricEntry,
  type Transport,
  type WorkerOptions,
} from "../../src/index.js";

/** A spill store in memory, optionally modelling a disk's speed. */
export class MemoryStore implements SpillStore {
  readonly files = new Map<string, Uint8Array>();
  constructor(private readonly secondsPerByte = 0) {}
  read(key: string): Uint8Array | { bytes: Uint8Array; seconds: number } {
    const bytes = this.files.get(key);
    if (bytes === undefined) throw new Error(`no file for ${key}`);
    return this.secondsPerByte === 0 ? bytes : { bytes, seconds: bytes.length * this.secondsPerByte };
  }
  write(key: string, bytes: Uint8Array): void | { seconds: number } {
    this.files.set(key, bytes);
    return this.secondsPerByte === 0 ? undefined : { seconds: bytes.length * this.secondsPerByte };
  }
  delete(key: string): void {
    this.files.delete(key);
  }
}

export interface TestWorker {
  worker: Worker;
  outbox: SendMessageToScheduler[];
}

export interface ClusterOptions {
  clock?: VirtualClock;
  transport?: Transport;
  executor?: Executor;
  latency?: number;
  bandwidth?: number;
  worker?: Partial<WorkerOptions>;
}

export function makeCluster(addresses: string[], options: ClusterOptions = {}) {
  const clock = options.clock ?? new VirtualClock();
  const inProcess =
    options.transport === undefined
      ? new InProcessTransport({
          network: new LatencyBandwidthNetwork({ clock, latency: options.latency ?? 0.01, bandwidth: options.bandwidth ?? 1e6 }),
        })
      : undefined;
  const transport = options.transport ?? (inProcess as InProcessTransport);
  const errors: unknown[] = [];
  const workers: TestWorker[] = addresses.map((address) => {
    const outbox: SendMessageToScheduler[] = [];
    const worker = new Worker({
      address,
      clock,
      executor: options.executor ?? new SimulatedExecutor(),
      transport,
      send: (message) => outbox.push(message),
      spill: { store: new MemoryStore() },
      onError: (error) => errors.push(error),
      ...options.worker,
    });
    inProcess?.register(worker);
    return { worker, outbox };
  });
  return { clock, transport, inProcess, workers, errors };
}

/** Sum of the entries whose name equals `name` (over outcomes unless one is given). */
export function total(entries: readonly MetricEntry[], name: readonly string[], outcome?: string): number {
  let sum = 0;
  for (const entry of entries) {
    if (entry.name.length !== name.length || entry.name.some((segment, i) => segment !== name[i])) continue;
    if (outcome !== undefined && entry.outcome !== outcome) continue;
    sum += entry.value;
  }
  return sum;
}

/** Activities recorded under a context (and prefix): the `activity` element of matching names. */
export function activities(entries: readonly MetricEntry[], context: readonly string[], unit?: string): string[] {
  const found = new Set<string>();
  for (const entry of entries) {
    const name = entry.name;
    if (name.length !== context.length + 2) continue;
    if (context.some((segment, i) => name[i] !== segment)) continue;
    if (unit !== undefined && name[name.length - 1] !== unit) continue;
    found.add(name[name.length - 2] as string);
  }
  return [...found].sort();
}

/** All metric entries as "name/joined|outcome" → value, for whole-store comparisons. */
export function asRecord(entries: readonly MetricEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) {
    const k = `${e.name.join("/")}|${e.outcome}`;
    out[k] = (out[k] ?? 0) + e.value;
  }
  return out;
}
