// What the scheduler core is built with: its options, and the host that runs it (the
// simulation: delivery to workers, the clock, the executing tasks a heartbeat reports).
import type { Key, StateMachineEvent } from "../../state/index.js";
import type { LoopThread } from "./loop.js";
import type { PolicyError } from "./policy-error.js";
import type { PolicySelection } from "./registry.js";

export interface SchedulerOptions {
  /** dask's `distributed.scheduler.worker-saturation` (default 1.1). */
  workerSaturation?: number;
  /** dask's `distributed.scheduler.allowed-failures` (default 3). */
  allowedFailures?: number;
  /** The placement policy: a registered name with options, or a factory (default: dask). */
  policy?: PolicySelection;
  /** Seeds the policy's `random()` (default 1). */
  seed?: number;
  /** At most this many steal events are kept (default 100,000; the rest are counted). */
  maxStealRecords?: number;
  /**
   * Seconds of the scheduler's event loop per task it sends (its decision and the message;
   * the overheads' schedulerDecision). One decision at a time: what one flush sends leaves once
   * all its tasks are decided (dask's send_all), a worker's batches in order. Needs the host's
   * `now` and `setTimer` (default 0).
   */
  decisionCost?: number;
  /** Seconds of the scheduler's event loop per message batch it writes to a worker (the overheads' schedulerMessage; default 0). */
  messageCost?: number;
  /** The scheduler loop's thread on a host with a CPU model (src/sim/host-cpu.ts): its share of the cores sets how long booked seconds take. Default (or null): none. */
  loopThread?: LoopThread | null;
}

export interface SchedulerHost {
  /** Hands a batch of events to a worker's state machine (in order). */
  deliver(worker: number, events: StateMachineEvent[]): void;
  /** The scheduler has outgoing events: call `flush()` soon (same simulated time). */
  requestFlush(): void;
  /** The runSpec of one execution attempt of task `id` (decides e.g. a modelled failure). */
  runSpec(id: number, runId: number): unknown;
  /** A task reached memory or erred (progress). */
  onProgress?(): void;
  /** Simulated seconds; without it the periodic hooks (heartbeats, balance) never run. */
  now?(): number;
  /** Calls `callback` at simulated time `at`. */
  setTimer?(at: number, callback: () => void): void;
  /** Visits every task executing on `worker` with its start time (what a heartbeat reports). */
  executing?(worker: number, visit: (key: Key, start: number) => void): void;
  /** The policy failed (PolicyError): stop the run. Without it the error is thrown to the caller. */
  abort?(error: PolicyError): void;
}
