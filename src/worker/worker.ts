// The Worker: an async shell around the pure WorkerState (dask's BaseWorker + Worker).
// It feeds the state events, carries out the instructions it returns, times every unit of
// work with a root span (span-roots.ts) and keeps the fine metrics. Real and simulated
// workers differ only in the clock, executor and transport plugged in.
//
// This file is the shell: options and wiring, the public API, close. The parts live
// beside it: stimulus-loop.ts (handling events, dispatching instructions), work-tracker.ts
// (outstanding work, thread slots, idle), async-work.ts (the life of an async
// instruction), execute-work.ts, gather-work.ts, get-data-server.ts, root-digest.ts
// (where finished roots go), gauges.ts, metrics-server.ts, worker-options.ts.
import { setMaxListeners } from "node:events";
import { SpanRegistry } from "../spans/index.js";
import type { SpillBuffer } from "../spill/index.js";
import { UpdateDataEvent, type Key, type StateMachineEvent, type WorkerState } from "../state/index.js";
import type { WorkerCore } from "./async-work.js";
import { RealClock, type TimerHandle, type WorkerClock } from "./clock.js";
import { AttributedStore } from "./data-store.js";
import { NetworkError, WorkerClosedError } from "./errors.js";
import { Executions } from "./execute-work.js";
import { errorText } from "./failure.js";
import { Transfers } from "./gather-work.js";
import { GetDataServer } from "./get-data-server.js";
import { MetricsStore, type MetricIncrement } from "./metrics-store.js";
import { serveMetrics, type MetricsServer, type ServeMetricsOptions } from "./metrics-server.js";
import { workerGauges } from "./gauges.js";
import { formatFamilies, formatFineMetrics, workerGaugeFamilies, type WorkerGauges } from "./prometheus.js";
import { RealExecutor } from "./real-executor.js";
import { RootDigester } from "./root-digest.js";
import { sizeof as workerSizeof } from "../util/sizeof.js";
import { MEMORY_MONITOR_ROOT, UNATTRIBUTED_ROOT, newRoot, stimulusRoot } from "./span-roots.js";
import { StimulusLoop } from "./stimulus-loop.js";
import { ThreadLedger, threadTimeOf, type ThreadTime } from "./thread-ledger.js";
import type { DataServer, GetDataResponse, GetDataServeOptions, MetricEntry, WorkerDataStore, WorkerOptions } from "./types.js";
import { buildDataStore, buildState, checkAddress, checkPositive, checkRetryBusyDelay, DEFAULT_GET_DATA_BUSY_LIMIT } from "./worker-options.js";
import { WorkTracker, type WorkKind } from "./work-tracker.js";

export type { MetricsServer, ServeMetricsOptions } from "./metrics-server.js";

export type WorkerStatus = "running" | "closing" | "closed";

export interface CloseOptions {
  /** Seconds (on the worker clock) to wait for aborted work to wind down (default 30). */
  timeout?: number;
  /**
   * The worker dies rather than closes (a simulated death): aborted work is recorded as
   * `killed`, not `cancelled`, and its thread slots stay in the ledger as `idle/dead` — its
   * lifetime goes on — instead of the lifetime ending at the close.
   */
  killed?: boolean;
}

export interface ThreadTimeOptions {
  /** Account the slots up to this clock time (default now): not before `threadTimeAccountedUntil`, not after now. */
  until?: number;
}

export class Worker implements DataServer {
  readonly address: string;
  readonly state: WorkerState;
  /** What the WorkerState writes to: the data store, with accesses outside spans attributed. */
  readonly data: WorkerDataStore;
  /** The default SpillBuffer (null when a custom `data` store was given). */
  readonly spillBuffer: SpillBuffer | null;
  readonly clock: WorkerClock;
  readonly metrics: MetricsStore;
  readonly spanRegistry: SpanRegistry;

  readonly #onError: (error: unknown) => void;
  readonly #abort = new AbortController();
  readonly #roots: RootDigester;
  readonly #work: WorkTracker;
  readonly #loop: StimulusLoop;
  readonly #getDataServer: GetDataServer;
  #status: WorkerStatus = "running";
  #stimulusCount = 0;
  #servers = new Set<MetricsServer>();

  constructor(options: WorkerOptions) {
    this.address = checkAddress(options);
    const nthreads = checkPositive(options.nthreads ?? 1, "nthreads", true);
    this.clock = options.clock ?? new RealClock();
    const executor = options.executor ?? new RealExecutor();
    this.#onError =
      options.onError ??
      ((error) => {
        queueMicrotask(() => {
          throw error;
        });
      });
    // Every sleep, transfer and task of this worker listens to its one close signal.
    setMaxListeners(0, this.#abort.signal);
    const retryBusyDelay = checkRetryBusyDelay(options);
    const getDataBusyLimit = checkPositive(options.getDataBusyLimit ?? DEFAULT_GET_DATA_BUSY_LIMIT, "getDataBusyLimit", true);
    const sizeof = options.sizeof ?? workerSizeof;
    const eventLoop = options.eventLoop;
    this.spanRegistry = options.spanRegistry ?? new SpanRegistry();
    this.metrics = new MetricsStore({ inProgress: () => this.#inProgressIncrements() });
    this.#roots = new RootDigester({
      metrics: this.metrics,
      clock: this.clock,
      onSpanRecord: options.onSpanRecord,
      onError: this.#onError,
      stimulusId: (name) => this.#stimulusId(name),
    });

    const { store, spillBuffer } = buildDataStore(options, this.clock, sizeof);
    this.spillBuffer = spillBuffer;
    this.data = new AttributedStore(
      store,
      () => newRoot(this.clock, UNATTRIBUTED_ROOT),
      (root) => this.#roots.finishSideRoot(root, "unattributed", null),
    );

    this.#work = new WorkTracker(nthreads, () => this.state, this.#roots, new ThreadLedger(nthreads, this.clock, this.metrics));
    this.state = buildState(options, { address: this.address, nthreads, data: this.data, threads: this.#work.threads, sizeof });

    const core: WorkerCore = {
      address: this.address,
      state: this.state,
      data: this.data,
      clock: this.clock,
      signal: this.#abort.signal,
      sizeof,
      spanRegistry: this.spanRegistry,
      roots: this.#roots,
      work: this.#work,
      doneEventDelay: eventLoop === undefined ? () => 0 : () => eventLoop.handlingDelay(),
      loopIdleIn: eventLoop?.idleIn === undefined ? () => 0 : eventLoop.idleIn.bind(eventLoop),
      isRunning: () => this.#status === "running",
      stimulusId: (name) => this.#stimulusId(name),
      handleStimulus: (event) => this.#loop.handle(event, stimulusRoot(event.kind), "ok", null, false),
      handleDone: (event, rootName, outcome, split) => this.#loop.handle(event, rootName, outcome, split, true),
      internalError: (error, kind) => this.#internalError(error, kind),
    };
    const executions = new Executions(core, executor);
    const transfers = new Transfers(core, options.transport, retryBusyDelay);
    this.#getDataServer = new GetDataServer(core, getDataBusyLimit);
    this.#loop = new StimulusLoop(
      this.address,
      this.state,
      this.clock,
      this.#roots,
      {
        execute: (instruction) => executions.start(instruction),
        gather: (instruction) => transfers.gather(instruction),
        retryLater: (instruction) => transfers.retryLater(instruction),
        send: options.send,
        handled: (event) => this.#work.afterStimulus(event),
      },
      (event) => this.#assertOpen("handle", event),
    );
  }

  get status(): WorkerStatus {
    return this.#status;
  }

  /** Async instructions (execute, gather-dep, retry) and get-data requests in progress. */
  get outstanding(): number {
    return this.#work.size;
  }

  /** Thread slot of each executing task (what `TaskFinishedMsg.thread` reports). */
  get threads(): ReadonlyMap<Key, number> {
    return this.#work.threads;
  }

  // ---- stimuli ---------------------------------------------------------------------------

  /**
   * Hands events to the state machine (one at a time, in order) and carries out the
   * instructions: scheduler messages go to `send` synchronously, Execute / GatherDep /
   * RetryBusyWorkerLater start async work, DigestMetric goes to `metrics`. State-machine
   * errors propagate to the caller.
   */
  handleStimulus(...events: StateMachineEvent[]): void {
    for (const event of events) {
      if (event === null || typeof event !== "object" || typeof (event as { kind?: unknown }).kind !== "string") {
        throw new TypeError(`Worker.handleStimulus: not an event: ${String(event)}`);
      }
      this.#loop.handle(event, stimulusRoot(event.kind), "ok", null, false);
    }
  }

  /** Scatter: stores values as if computed here (UpdateDataEvent). */
  updateData(data: Readonly<Record<Key, unknown>>, options: { stimulusId?: string } = {}): void {
    this.handleStimulus(UpdateDataEvent({ data, stimulusId: options.stimulusId ?? this.#stimulusId("update-data") }));
  }

  /** Spills one key like dask's memory monitor (metered under ["memory-monitor"]): evicted weight, or -1. */
  evict(): number {
    this.#assertOpen("evict");
    const root = newRoot(this.clock, MEMORY_MONITOR_ROOT).start();
    let evicted = -1;
    try {
      evicted = root.runSync(() => this.data.evict?.() ?? -1);
    } finally {
      root.setAttribute("outcome", evicted >= 0 ? "ok" : "failed");
      this.#roots.finishSideRoot(root, "evict", null);
    }
    return evicted;
  }

  #stimulusId(name: string): string {
    this.#stimulusCount += 1;
    return `${name}-${this.#stimulusCount}`;
  }

  // The message is built only when it is thrown: this runs for every stimulus.
  #assertOpen(action: string, event?: StateMachineEvent): void {
    if (this.#status === "running") return;
    const what = event === undefined ? action : `${action} ${event.kind} (stimulus ${event.stimulusId})`;
    throw new Error(`worker ${this.address} is ${this.#status}; cannot ${what}`);
  }

  #internalError(error: unknown, kind: WorkKind): void {
    this.#onError(error instanceof Error ? error : new Error(`worker ${this.address}: unexpected failure in ${kind}: ${errorText(error)}`));
  }

  /** Resolves when the worker is idle: no work left to come (docs/worker.md, "Idle"). */
  idle(): Promise<void> {
    return this.#work.idle();
  }

  // ---- serving peers -----------------------------------------------------------------------

  /**
   * Serves a peer's request for `keys` (dask's get_data), metered under a ["get-data"]
   * root: reading the values (memory-read / disk-read / deserialize), then `send` (the
   * transport's serialize / network). Answers busy when `getDataBusyLimit` requests are
   * already being served. Keys not in memory are left out of the reply.
   */
  async getData(keys: readonly Key[], options: GetDataServeOptions): Promise<GetDataResponse> {
    if (this.#status !== "running") throw new NetworkError(`worker ${this.address} is ${this.#status}`, { peer: this.address });
    return this.#getDataServer.serve(keys, options);
  }

  // ---- metrics ---------------------------------------------------------------------------

  /** Increments accrued by open roots since the previous collection (split where due). */
  #inProgressIncrements(): MetricIncrement[] {
    const now = this.clock.now();
    const out: MetricIncrement[] = [...this.spanRegistry.scrape(now)];
    this.#work.collectTransferIncrements(now, out);
    this.#work.ledger.settle(undefined, out);
    return out;
  }

  /**
   * Where the thread slots' time went (docs/worker.md, "Thread time"): every slot accounted
   * up to `until` (default now) — open intervals are digested into `metrics`, as a scrape
   * does, so nothing is counted twice — and the `worker` context's seconds by bucket.
   */
  threadTime(options: ThreadTimeOptions = {}): ThreadTime {
    this.#work.ledger.settle(options.until);
    return threadTimeOf(this.#work.ledger, this.metrics);
  }

  /** Clock time up to which the thread-time ledger has accounted every slot (its last change or settling). */
  get threadTimeAccountedUntil(): number {
    return this.#work.ledger.accountedUntil;
  }

  /** Cumulative fine metrics including work in progress up to now (never counted twice). */
  scrape(): MetricEntry[] {
    return this.metrics.scrape();
  }

  /** Deltas since the previous heartbeat, including work in progress up to now. */
  heartbeat(): MetricEntry[] {
    return this.metrics.takeSinceHeartbeat();
  }

  /** Gauges of the task states and the data store, for Prometheus. */
  gauges(): WorkerGauges {
    return workerGauges(this.state, this.spillBuffer, this.#work.countsByKind());
  }

  /** Prometheus text exposition of fine metrics (incl. in-progress), task-state and spill gauges. */
  prometheus(): string {
    return formatFineMetrics(this.scrape()) + formatFamilies(workerGaugeFamilies(this.gauges()));
  }

  /** Serves `prometheus()` at GET /metrics over HTTP, bound to 127.0.0.1 unless told otherwise. */
  async serveMetrics(options: ServeMetricsOptions = {}): Promise<MetricsServer> {
    const server = await serveMetrics(() => this.prometheus(), options, (closed) => this.#servers.delete(closed));
    this.#servers.add(server);
    return server;
  }

  // ---- closing -----------------------------------------------------------------------------

  /**
   * Aborts outstanding work (its AbortSignal fires), waits up to `timeout` seconds on the
   * worker clock for it to wind down, and records the metrics of whatever was aborted as
   * cancelled. Stored data stays readable (`worker.data`); `spillBuffer.close()` removes
   * spill files. Idempotent.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    if (this.#status !== "running") return;
    const timeout = options.timeout ?? 30;
    this.#status = "closing";
    if (options.killed === true) {
      this.#work.abortOutcome = "killed";
      this.#work.ledger.die();
    }
    this.#abort.abort(new WorkerClosedError(this.address));
    if (this.#work.size > 0) {
      let timer: TimerHandle | undefined;
      await Promise.race([
        this.#work.drained(),
        new Promise<void>((resolve) => {
          timer = this.clock.setTimer(this.clock.now() + timeout, resolve);
        }),
      ]);
      timer?.cancel();
    }
    for (const work of [...this.#work.values()]) {
      if (this.#work.settle(work)) this.#work.cancel(work);
    }
    // a dead worker's slots stay dead for the rest of the run; a closed one's lifetime ends here
    if (options.killed !== true) this.#work.ledger.finish();
    await Promise.all([...this.#servers].map((server) => server.close()));
    this.#status = "closed";
  }
}
