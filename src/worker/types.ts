// The narrow interfaces the Worker shell is built from. Real and simulated workers differ
// only in what is plugged in here (undici-style: one contract, many implementations):
// a clock, an executor that runs a task, a transport that fetches data from peers.
import type { Key, SendMessageToScheduler } from "../state/index.js";
import type { Span, SpanRecord, SpanRegistry } from "../spans/index.js";
import type { SpillBuffer } from "../spill/index.js";
import type { WorkerClock } from "./clock.js";

/**
 * Coarse end state of a unit of work, exported as its own metric dimension. `killed`: cut
 * short by the worker's death (`close({ killed: true })`), where a plain close says `cancelled`.
 */
export type Outcome = "ok" | "failed" | "cancelled" | "missing" | "busy" | "killed";

/**
 * Outcome label of increments exported while the work was still in progress (scrape or
 * heartbeat before the end). See docs/worker.md, "Outcome of in-progress increments".
 */
export const IN_PROGRESS_OUTCOME = "running";

// ---- executing tasks ----------------------------------------------------------------------

/** What an executor is asked to run. */
export interface ExecuteRequest {
  readonly key: Key;
  /** `keySplit(key)`. */
  readonly prefix: string;
  readonly runId: number;
  /** The task's `runSpec` from its ComputeTaskEvent, opaque to the Worker. */
  readonly runSpec: unknown;
  /** Values of the task's dependencies, already read from the worker's data (metered). */
  readonly dependencies: ReadonlyMap<Key, unknown>;
}

export interface ExecuteContext {
  /**
   * The task's root span `["execute", prefix]`, also the current span while the executor
   * runs. Executors record their activities (`thread-cpu`, `thread-noncpu`, modelled
   * activities…) as children of it; user code may add its own children or metrics.
   */
  readonly span: Span;
  readonly clock: WorkerClock;
  /** Aborted when the worker closes; an executor should stop waiting and throw. */
  readonly signal: AbortSignal;
}

export interface ExecuteResult {
  readonly value: unknown;
  /** Size of the value; when absent the worker's `sizeof` measures it. */
  readonly nbytes?: number;
  /** Type name reported to the scheduler (`TaskFinishedMsg.typename`). */
  readonly type?: string | null;
}

/**
 * Runs one task. Resolving → ExecuteSuccessEvent; throwing → ExecuteFailureEvent (the error
 * text and stack go to the scheduler); throwing a `Reschedule` → RescheduleEvent.
 */
export interface Executor {
  execute(task: ExecuteRequest, context: ExecuteContext): Promise<ExecuteResult>;
  /**
   * True when the executor records only under `context.span` and never needs it as
   * `currentSpan()`: the worker then binds no AsyncLocalStorage context around it, which
   * keeps every `await` of the process at its native cost (Node 20). Default false.
   */
  readonly explicitSpans?: boolean;
}

// ---- fetching data from peers ---------------------------------------------------------------

export type GetDataResponse =
  | {
      readonly status: "OK";
      /** The keys the peer had; keys it did not have are simply absent. */
      readonly data: Readonly<Record<Key, unknown>>;
      /** Sizes of the returned values as the sender measured them. */
      readonly nbytes?: Readonly<Record<Key, number>>;
    }
  | { readonly status: "busy" };

export interface TransportRequestOptions {
  /** Address of the worker asking (the receiver of the data). */
  readonly who: string;
  readonly signal: AbortSignal;
  /**
   * The requesting `["gather-dep"]` root span: a transport records its activities
   * (`network`, `deserialize`, …) as children of it.
   */
  readonly span: Span;
}

/**
 * Moves data between workers. Failures surface as events: a thrown `NetworkError` →
 * GatherDepNetworkFailureEvent (the peer is treated as dead), any other throw →
 * GatherDepFailureEvent, `{status: "busy"}` → GatherDepBusyEvent, `{status: "OK"}` →
 * GatherDepSuccessEvent (with fewer keys when the peer lacked some).
 */
export interface Transport {
  getData(fromWorker: string, keys: readonly Key[], options: TransportRequestOptions): Promise<GetDataResponse>;
  /**
   * True when the transport records only under `options.span` and never needs it as
   * `currentSpan()` (no AsyncLocalStorage binding around it; see `Executor.explicitSpans`).
   */
  readonly explicitSpans?: boolean;
}

/** One transfer to model: `bytes` from `from` to `to`. */
export interface TransferRequest {
  readonly from: string;
  readonly to: string;
  readonly bytes: number;
  readonly keys: number;
  readonly signal: AbortSignal;
}

/**
 * Pluggable time model of the wire, used by `InProcessTransport`: resolve when the bytes
 * have arrived (sleep on the clock), throw `NetworkError` to drop the connection.
 */
export interface NetworkModel {
  transfer(request: TransferRequest): Promise<void>;
}

/** Serving side of a transfer, as the transport sees a peer Worker. */
export interface DataServer {
  readonly address: string;
  getData(keys: readonly Key[], options: GetDataServeOptions): Promise<GetDataResponse>;
}

export interface GetDataServeOptions {
  /** Address of the requesting worker. */
  readonly who: string;
  readonly signal?: AbortSignal;
  /**
   * Sends the reply (called once, only for an "OK" reply, inside the `["get-data"]` root
   * which is passed as `span`): the transport records `serialize`/`network` under it.
   * Resolving means the reply was delivered. Absent = delivered instantly.
   */
  readonly send?: (reply: GetDataReply) => Promise<void>;
  /**
   * True when `send` records only under `reply.span` and never needs it as `currentSpan()`
   * (no AsyncLocalStorage binding around it; see `Executor.explicitSpans`).
   */
  readonly explicitSpans?: boolean;
}

export interface GetDataReply {
  readonly data: Readonly<Record<Key, unknown>>;
  readonly nbytes: Readonly<Record<Key, number>>;
  readonly totalBytes: number;
  readonly span: Span;
  /** Aborted when either side gives up (the requester's signal or the server closing). */
  readonly signal: AbortSignal;
}

// ---- data store ------------------------------------------------------------------------------

/** The Map-like store the WorkerState writes task values into (a SpillBuffer by default). */
export interface WorkerDataStore {
  has(key: Key): boolean;
  get(key: Key): unknown;
  set(key: Key, value: unknown): unknown;
  delete(key: Key): unknown;
  readonly size: number;
  keys(): IterableIterator<Key>;
  /** Spill one key (SpillBuffer): evicted weight, or -1 when nothing could be evicted. */
  evict?(): number;
}

/** SpillBuffer constructor options except `target`, which the Worker derives. */
export type WorkerSpillOptions = Omit<NonNullable<ConstructorParameters<typeof SpillBuffer>[0]>, "target">;

// ---- worker options ----------------------------------------------------------------------------

export interface WorkerOptions {
  /** This worker's address, e.g. "127.0.0.1:1"; peers and the transport know it by it. */
  address: string;
  /** Execution slots (default 1). */
  nthreads?: number;
  /** Default `new RealClock()`; use a `VirtualClock` for simulation. */
  clock?: WorkerClock;
  /** Default `new RealExecutor()`. */
  executor?: Executor;
  /** How GatherDep reaches peers. Default: none — every GatherDep fails with a NetworkError. */
  transport?: Transport;
  /** Receives every scheduler message, synchronously, in instruction order. Default: dropped. */
  send?: (message: SendMessageToScheduler) => void;
  /**
   * Bytes of memory the worker may use; `target = memoryLimit × memoryTargetFraction` is the
   * spill threshold of the default SpillBuffer. null/absent = no limit (nothing spills by itself).
   */
  memoryLimit?: number | null;
  /** dask's `distributed.worker.memory.target` (default 0.6). */
  memoryTargetFraction?: number;
  /** Options of the default SpillBuffer (directory, store, serializer, sizeof, maxSpill, logger). */
  spill?: WorkerSpillOptions;
  /** A ready-made data store instead of the default SpillBuffer (then `spill`/`memoryLimit` are ignored). */
  data?: WorkerDataStore;
  /** WorkerState validation after each stimulus (default true). */
  validate?: boolean;
  resources?: Readonly<Record<string, number>>;
  transferIncomingCountLimit?: number;
  transferIncomingBytesLimit?: number;
  transferMessageBytesLimit?: number;
  transitionCounterMax?: number | false;
  /** Registry of open root spans (in-progress scraping). Default: a new one per worker. */
  spanRegistry?: SpanRegistry;
  /** Called with every finished root span record (e.g. the simulator builds Chrome traces). */
  onSpanRecord?: (record: SpanRecord) => void;
  /** Seconds RetryBusyWorkerLater waits before RetryBusyWorkerEvent (default 0.15, like dask). */
  retryBusyDelay?: number;
  /** Concurrent get-data requests served before answering "busy" (dask's transfer_outgoing_count_limit, default 10). */
  getDataBusyLimit?: number;
  /** Size of a value, for tasks whose executor reports none (default: `sizeof` of src/worker). */
  sizeof?: (value: unknown) => number;
  /** Unexpected internal errors (a state-machine exception while handling a done event). Default: rethrown asynchronously. */
  onError?: (error: unknown) => void;
  /**
   * The worker's event loop as a serial resource with a cost per stimulus (a simulator
   * knob; real workers pay it for real). When set, the done event of every async instruction
   * (execute, gather-dep) waits `handlingDelay()` seconds before it is handled, inside the
   * instruction's root span: that wait shows as the root's `other` time, as in dask's ledger.
   * Default: none (done events are handled as soon as the work ends).
   */
  eventLoop?: EventLoopModel;
}

/** See `WorkerOptions.eventLoop`. */
export interface EventLoopModel {
  /** Seconds from now until the loop has handled one more stimulus (its queue plus its cost); reserves that time. */
  handlingDelay(): number;
  /**
   * Seconds from now until the loop has got through the work booked so far, booking nothing.
   * An Execute instruction's task starts then: asyncio runs ready callbacks in order, so the
   * coroutine that reads a task's arguments and hands it to a thread waits for what was
   * queued before it (other done events, spilling). Optional: without it, tasks start at once.
   */
  idleIn?(): number;
}

// ---- metrics ---------------------------------------------------------------------------------

/** One series of the metrics store. */
export interface MetricEntry {
  /** `[context, …qualifiers, activity, unit]`. */
  readonly name: readonly string[];
  /** ok, failed, cancelled, missing, busy, or "running" for in-progress increments; "" when unknown. */
  readonly outcome: string;
  readonly value: number;
}
