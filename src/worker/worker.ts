// The Worker: an async shell around the pure WorkerState (dask's BaseWorker + Worker).
// It feeds the state events, carries out the instructions it returns, times every unit of
// work with a root span and keeps the fine metrics. Real and simulated workers differ only
// in the clock, executor and transport plugged in.
//
// Span roots (docs/worker.md, "Span roots"):
//   ["execute", prefix]           one per Execute, started before the async work is launched
//   ["gather-dep"]                one per GatherDep (split over prefixes when digested)
//   ["get-data"]                  one per request served to a peer (split likewise)
//   <cause> for handleStimulus    the done event's root name, else ["handle-stimulus", <stimulus>]
//   ["memory-monitor"]            manual evict()
//   ["unattributed"]              data accesses made outside any span
import { setMaxListeners } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Span, SpanRegistry, toDigestMetrics, type AttributeValue, type SpanRecord } from "../spans/index.js";
import { bindSync, type LazySpan } from "../spans/context.js";
import { SpillBuffer } from "../spill/index.js";
import {
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  GatherDepBusyEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
  RescheduleEvent,
  RetryBusyWorkerEvent,
  UpdateDataEvent,
  WorkerState,
  isSchedulerMessage,
  keySplit,
  type DigestMetric,
  type Execute,
  type GatherDep,
  type Instruction,
  type Key,
  type RetryBusyWorkerLater,
  type SendMessageToScheduler,
  type StateMachineEvent,
  type TaskState,
} from "../state/index.js";
import { RealClock, type TimerHandle, type WorkerClock } from "./clock.js";
import { AttributedStore, LazyFileStore } from "./data-store.js";
import { NetworkError, Reschedule, WorkerClosedError } from "./errors.js";
import { MetricsStore, type MetricIncrement } from "./metrics-store.js";
import { prefixWeights, splitIncrement, type PrefixWeights } from "./prefix-split.js";
import { formatFamilies, formatFineMetrics, workerGaugeFamilies, type WorkerGauges } from "./prometheus.js";
import { RealExecutor } from "./real-executor.js";
import { workerSizeof } from "./simulated-data.js";
import type {
  DataServer,
  WorkerDataStore,
  Executor,
  GetDataResponse,
  GetDataServeOptions,
  MetricEntry,
  Outcome,
  Transport,
  WorkerOptions,
} from "./types.js";

export type WorkerStatus = "running" | "closing" | "closed";

type WorkKind = "execute" | "gather-dep" | "retry-busy-worker" | "get-data";

/** One unit of async work in progress (an async instruction or a get-data being served). */
interface Work {
  readonly kind: WorkKind;
  readonly root: Span | null;
  /** Prefix weights of a transfer; null for execute (its root names its prefix). */
  split: PrefixWeights | null;
  /** Private registry of a split root, so its in-progress increments can be split too. */
  readonly registry: SpanRegistry | null;
  readonly key: Key | null;
  /** Thread slot of an execute (0…nthreads-1), null for other kinds. */
  readonly thread: number | null;
  settled: boolean;
}

type ExecuteOutcome =
  | { readonly kind: "success"; readonly value: unknown; readonly nbytes: number; readonly type: string | null; readonly start: number; readonly stop: number }
  | { readonly kind: "failure"; readonly error: unknown; readonly start: number | null; readonly stop: number | null }
  | { readonly kind: "reschedule" }
  | { readonly kind: "aborted" };

type GatherOutcome =
  | { readonly kind: "success"; readonly data: Readonly<Record<Key, unknown>> }
  | { readonly kind: "busy" }
  | { readonly kind: "network-failure"; readonly error: unknown }
  | { readonly kind: "failure"; readonly error: unknown }
  | { readonly kind: "aborted" };

export interface ServeMetricsOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default "127.0.0.1" (never all interfaces unless asked). */
  host?: string;
}

export interface MetricsServer {
  /** e.g. "http://127.0.0.1:39123/metrics". */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface CloseOptions {
  /** Seconds (on the worker clock) to wait for aborted work to wind down (default 30). */
  timeout?: number;
}

const DEFAULT_RETRY_BUSY_DELAY = 0.15;
const DEFAULT_GET_DATA_BUSY_LIMIT = 10;
const DEFAULT_MEMORY_TARGET_FRACTION = 0.6;

// Root names are frozen once and reused: a Span keeps a frozen name as is (no copy per span).
const STIMULUS_ROOTS = new Map<string, readonly string[]>();
const EXECUTE_ROOTS = new Map<string, readonly string[]>();
const GATHER_DEP_ROOT: readonly string[] = Object.freeze(["gather-dep"]);
const GET_DATA_ROOT: readonly string[] = Object.freeze(["get-data"]);
const MEMORY_MONITOR_ROOT: readonly string[] = Object.freeze(["memory-monitor"]);
const UNATTRIBUTED_ROOT: readonly string[] = Object.freeze(["unattributed"]);

/** `["handle-stimulus", <kind in kebab case>]`: "ComputeTaskEvent" → "compute-task". */
function stimulusRoot(kind: string): readonly string[] {
  let name = STIMULUS_ROOTS.get(kind);
  if (name === undefined) {
    const stimulus = kind
      .replace(/Event$/, "")
      .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
      .toLowerCase();
    name = Object.freeze(["handle-stimulus", stimulus]);
    STIMULUS_ROOTS.set(kind, name);
  }
  return name;
}

function executeRoot(prefix: string): readonly string[] {
  let name = EXECUTE_ROOTS.get(prefix);
  if (name === undefined) {
    name = Object.freeze(["execute", prefix]);
    // prefixes are few in practice; a pathological stream of distinct ones cannot grow this forever
    if (EXECUTE_ROOTS.size >= 10_000) EXECUTE_ROOTS.clear();
    EXECUTE_ROOTS.set(prefix, name);
  }
  return name;
}

/** Latest end among a root's children: synchronous spill with a modelled duration can end "in the future". */
function latestChildEnd(root: Span, floor: number): number {
  let latest = floor;
  const children = root.children;
  // Indexed: called on every now() of a stimulus root, and an array iterator is not always optimised away.
  for (let i = 0; i < children.length; i++) {
    const end = children[i]!.endTime;
    if (end !== undefined && end > latest) latest = end;
  }
  return latest;
}

/**
 * A signal aborted by either input, with listeners removed by `dispose()` — unlike
 * `AbortSignal.any`, nothing stays attached to the worker's long-lived signal per request.
 */
function linkSignals(own: AbortSignal, other: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  if (other === undefined || other === own) return { signal: own, dispose: () => undefined };
  const controller = new AbortController();
  if (own.aborted || other.aborted) {
    controller.abort(own.aborted ? own.reason : other.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const onOwn = (): void => controller.abort(own.reason);
  const onOther = (): void => controller.abort(other.reason);
  own.addEventListener("abort", onOwn, { once: true });
  other.addEventListener("abort", onOther, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      own.removeEventListener("abort", onOwn);
      other.removeEventListener("abort", onOther);
    },
  };
}

/** The worker clock, but never earlier than the end of the root's latest ended child. */
class CursorClock {
  root: Span | undefined;
  readonly #base: WorkerClock;
  constructor(base: WorkerClock) {
    this.#base = base;
  }
  now(): number {
    const now = this.#base.now();
    return this.root === undefined ? now : latestChildEnd(this.root, now);
  }
}

/**
 * The root of one stimulus, created only when something records under it (spill caused by
 * storing a value) or when handling took time: most stimuli of a simulation record nothing,
 * and then no span is built at all. Starts at the time handling began, like an eager root.
 */
class LazyRoot implements LazySpan {
  span: Span | undefined = undefined;
  readonly #name: readonly string[];
  readonly #clock: WorkerClock;
  readonly #start: number;

  constructor(name: readonly string[], clock: WorkerClock, start: number) {
    this.#name = name;
    this.#clock = clock;
    this.#start = start;
  }

  get resolved(): boolean {
    return this.span !== undefined;
  }

  resolve(): Span {
    if (this.span === undefined) {
      const clock = new CursorClock(this.#clock);
      const root = new Span(this.#name, { parent: null, clock });
      clock.root = root;
      this.span = root.start(this.#start);
    }
    return this.span;
  }
}

function hasKeys(record: Readonly<Record<string, unknown>>): boolean {
  for (const _ in record) return true;
  return false;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return `non-Error thrown: ${typeof error === "string" ? error : JSON.stringify(error)}`;
  } catch {
    return `non-Error thrown: ${String(error)}`;
  }
}

/**
 * What a failed root records about its error: OpenTelemetry's exception attribute names,
 * which the OTel bridge turns into the span's ERROR status and exception event.
 */
function exceptionAttributes(error: unknown): Record<string, AttributeValue> {
  if (error instanceof Error) return { "exception.type": error.name, "exception.message": error.message };
  return { "exception.type": typeof error, "exception.message": errorText(error) };
}

function stackText(error: unknown): string {
  return error instanceof Error && typeof error.stack === "string" ? error.stack : "";
}

function checkPositive(value: number, name: string, integer: boolean): number {
  if (typeof value !== "number" || !(value > 0) || (integer && !Number.isInteger(value)) || !Number.isFinite(value)) {
    throw new RangeError(`Worker option ${name} must be a ${integer ? "positive integer" : "positive finite number"}, got ${String(value)}`);
  }
  return value;
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

  readonly #executor: Executor;
  readonly #transport: Transport | undefined;
  readonly #send: ((message: SendMessageToScheduler) => void) | undefined;
  readonly #onSpanRecord: ((record: SpanRecord) => void) | undefined;
  readonly #onError: (error: unknown) => void;
  readonly #retryBusyDelay: number;
  readonly #getDataBusyLimit: number;
  readonly #sizeof: (value: unknown) => number;
  /** Slot of each executing task as the state reports it (TaskFinishedMsg.thread). */
  readonly #threads = new Map<Key, number>();
  /** The execute work that holds each slot; a slot is free when it holds none. */
  readonly #slotOwners: Array<Work | undefined>;
  /** Free slots, lowest on top. */
  readonly #freeSlots: number[] = [];

  readonly #outstanding = new Set<Work>();
  readonly #abort = new AbortController();
  #status: WorkerStatus = "running";
  /** get-data requests being served (dask's transfer_outgoing_count). */
  #serving = 0;
  #stimulusCount = 0;
  /** Callers of idle(), released by a check made after the turn in which work ran out. */
  #idleWaiters: Array<() => void> = [];
  #idleCheckQueued = false;
  /** close() waiting for outstanding work to settle (at once, not after the turn). */
  #drainWaiters: Array<() => void> = [];
  #servers = new Set<{ close(): Promise<void> }>();

  constructor(options: WorkerOptions) {
    if (options === null || typeof options !== "object") throw new TypeError("Worker needs an options object with an address");
    if (typeof options.address !== "string" || options.address === "") {
      throw new TypeError(`Worker option address must be a non-empty string, got ${String(options.address)}`);
    }
    this.address = options.address;
    const nthreads = checkPositive(options.nthreads ?? 1, "nthreads", true);
    this.#slotOwners = new Array<Work | undefined>(nthreads).fill(undefined);
    for (let slot = nthreads - 1; slot >= 0; slot--) this.#freeSlots.push(slot);
    this.clock = options.clock ?? new RealClock();
    this.#executor = options.executor ?? new RealExecutor();
    this.#transport = options.transport;
    this.#send = options.send;
    this.#onSpanRecord = options.onSpanRecord;
    this.#onError =
      options.onError ??
      ((error) => {
        queueMicrotask(() => {
          throw error;
        });
      });
    // Every sleep, transfer and task of this worker listens to its one close signal.
    setMaxListeners(0, this.#abort.signal);
    this.#retryBusyDelay = options.retryBusyDelay ?? DEFAULT_RETRY_BUSY_DELAY;
    if (!(this.#retryBusyDelay >= 0)) throw new RangeError(`Worker option retryBusyDelay must be ≥ 0 seconds, got ${this.#retryBusyDelay}`);
    this.#getDataBusyLimit = checkPositive(options.getDataBusyLimit ?? DEFAULT_GET_DATA_BUSY_LIMIT, "getDataBusyLimit", true);
    this.#sizeof = options.sizeof ?? workerSizeof;
    this.spanRegistry = options.spanRegistry ?? new SpanRegistry();
    this.metrics = new MetricsStore({ inProgress: () => this.#inProgressIncrements() });

    let inner: WorkerDataStore;
    if (options.data !== undefined) {
      inner = options.data;
      this.spillBuffer = null;
    } else {
      const memoryLimit = options.memoryLimit ?? null;
      const fraction = options.memoryTargetFraction ?? DEFAULT_MEMORY_TARGET_FRACTION;
      if (!(fraction > 0 && fraction <= 1)) throw new RangeError(`Worker option memoryTargetFraction must be in (0, 1], got ${fraction}`);
      if (memoryLimit !== null && !(memoryLimit >= 0)) throw new RangeError(`Worker option memoryLimit must be bytes ≥ 0 or null, got ${memoryLimit}`);
      const target = memoryLimit === null ? Infinity : Math.floor(memoryLimit * fraction);
      const spill = options.spill ?? {};
      if (spill.store !== undefined && spill.directory !== undefined) {
        throw new TypeError("Worker option spill: pass either store or directory, not both (directory is for the default file store)");
      }
      const { directory, ...rest } = spill;
      this.spillBuffer = new SpillBuffer({
        sizeof: this.#sizeof,
        clock: this.clock,
        ...rest,
        target,
        // the default file store makes its directory only once something is spilled
        store: spill.store ?? new LazyFileStore(directory),
      });
      inner = this.spillBuffer as unknown as WorkerDataStore;
    }
    this.data = new AttributedStore(
      inner,
      () => this.#newRoot(UNATTRIBUTED_ROOT, {}),
      (root) => this.#finishSideRoot(root, "unattributed", null),
    );

    this.state = new WorkerState({
      address: this.address,
      nthreads,
      data: this.data,
      validate: options.validate ?? true,
      threads: this.#threads,
      sizeof: this.#sizeof,
      ...(options.resources === undefined ? {} : { resources: options.resources }),
      ...(options.transferIncomingCountLimit === undefined ? {} : { transferIncomingCountLimit: options.transferIncomingCountLimit }),
      ...(options.transferIncomingBytesLimit === undefined ? {} : { transferIncomingBytesLimit: options.transferIncomingBytesLimit }),
      ...(options.transferMessageBytesLimit === undefined ? {} : { transferMessageBytesLimit: options.transferMessageBytesLimit }),
      ...(options.transitionCounterMax === undefined ? {} : { transitionCounterMax: options.transitionCounterMax }),
    });
  }

  get status(): WorkerStatus {
    return this.#status;
  }

  /** Async instructions (execute, gather-dep, retry) and get-data requests in progress. */
  get outstanding(): number {
    return this.#outstanding.size;
  }

  /** Thread slot of each executing task (what `TaskFinishedMsg.thread` reports). */
  get threads(): ReadonlyMap<Key, number> {
    return this.#threads;
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
      this.#handle(event, stimulusRoot(event.kind), "ok", null);
    }
  }

  /** Scatter: stores values as if computed here (UpdateDataEvent). */
  updateData(data: Readonly<Record<Key, unknown>>, options: { stimulusId?: string } = {}): void {
    this.handleStimulus(UpdateDataEvent({ data, stimulusId: options.stimulusId ?? this.#stimulusId("update-data") }));
  }

  /** Spills one key like dask's memory monitor (metered under ["memory-monitor"]): evicted weight, or -1. */
  evict(): number {
    this.#assertOpen("evict");
    const root = this.#newRoot(MEMORY_MONITOR_ROOT, {}).start();
    let evicted = -1;
    try {
      evicted = root.runSync(() => this.data.evict?.() ?? -1);
    } finally {
      root.setAttribute("outcome", evicted >= 0 ? "ok" : "failed");
      this.#finishSideRoot(root, "evict", null);
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

  /**
   * One stimulus under a root span named after its cause, so that the spill work of
   * storing values (and the state machine's own time) is charged to it.
   */
  #handle(event: StateMachineEvent, rootName: readonly string[], outcome: Outcome, split: PrefixWeights | null, doneEvent = false): void {
    this.#assertOpen("handle", event);
    const start = this.clock.now();
    // The root exists only if something records under it or handling took time (a root
    // with no children, metrics or duration would be dropped below anyway).
    const lazy = new LazyRoot(rootName, this.clock, start);
    let instructions: readonly Instruction[];
    let result: Outcome = "failed";
    let failure: unknown;
    try {
      instructions = bindSync(lazy, () => this.state.handleStimulus(event));
      result = outcome;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const end = this.clock.now();
      const root = lazy.span ?? (end !== start ? lazy.resolve() : undefined);
      if (root !== undefined) {
        root.setAttribute("outcome", result);
        // a done event's root shares its work's name (its cost is charged there): say what it handled
        if (doneEvent) root.setAttribute("stimulus", stimulusRoot(event.kind)[1] as string);
        if (result === "failed" && failure !== undefined) root.setAttributes(exceptionAttributes(failure));
        // A modelled spill duration may end after now: the root covers it (virtual time does
        // not advance inside a synchronous stimulus).
        root.end(latestChildEnd(root, end));
        if (root.children.length > 0 || root.duration !== 0 || hasKeys(root.metrics)) {
          this.#digestRoot(root, event.stimulusId, split);
          this.#reportRecord(root);
        }
      }
    }
    this.#dispatch(instructions, split);
  }

  #dispatch(instructions: readonly Instruction[], split: PrefixWeights | null): void {
    for (const instruction of instructions) {
      switch (instruction.kind) {
        case "DigestMetric":
          this.#digestMetric(instruction, split);
          break;
        case "Execute":
          this.#startExecute(instruction);
          break;
        case "GatherDep":
          this.#startGatherDep(instruction);
          break;
        case "RetryBusyWorkerLater":
          this.#startRetryBusyWorker(instruction);
          break;
        default:
          if (isSchedulerMessage(instruction)) {
            this.#send?.(instruction);
            break;
          }
          throw new TypeError(
            `worker ${this.address}: unknown instruction ${JSON.stringify((instruction as { kind?: unknown }).kind)} (stimulus ${String((instruction as { stimulusId?: unknown }).stimulusId)})`,
          );
      }
    }
  }

  // ---- metrics ---------------------------------------------------------------------------

  #digestMetric(metric: DigestMetric, split: PrefixWeights | null): void {
    // A CPU-split node always carries both series; an async task (CPU not measured) or a
    // task that took no wall time reports a zero thread-cpu, which says nothing.
    if (metric.value === 0 && metric.name[metric.name.length - 2] === "thread-cpu") return;
    if (split === null) {
      this.metrics.digest(metric.name, metric.value, metric.outcome ?? "");
      return;
    }
    const parts: MetricIncrement[] = [];
    splitIncrement(split, metric, parts);
    for (const part of parts) this.metrics.digest(part.name, part.value, part.outcome ?? "");
  }

  #digestRoot(root: Span, stimulusId: string, split: PrefixWeights | null): void {
    for (const metric of toDigestMetrics(root, { stimulusId })) this.#digestMetric(metric, split);
  }

  /** Ends (if needed) and digests a root that no event carries: side roots and cancelled work. */
  #finishSideRoot(root: Span, stimulus: string, split: PrefixWeights | null): void {
    if (root.isRecording()) root.end(latestChildEnd(root, this.clock.now()));
    this.#digestRoot(root, this.#stimulusId(stimulus), split);
    this.#reportRecord(root);
  }

  /** Increments accrued by open roots since the previous collection (split where due). */
  #inProgressIncrements(): MetricIncrement[] {
    const now = this.clock.now();
    const out: MetricIncrement[] = [...this.spanRegistry.scrape(now)];
    for (const work of this.#outstanding) {
      if (work.registry === null) continue;
      for (const metric of work.registry.scrape(now)) splitIncrement(work.split, metric, out);
    }
    return out;
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
    // keyed records are null-prototype: no name reads as an inherited Object.prototype member
    const tasks = Object.create(null) as Record<string, number>;
    const spill = this.spillBuffer;
    for (const ts of this.state.tasks.values()) {
      const state = ts.state === "memory" && spill !== null && spill.slow.has(ts.key) ? "disk" : ts.state;
      tasks[state] = (tasks[state] ?? 0) + 1;
    }
    const inProgress = Object.create(null) as Record<string, number>;
    for (const kind of ["execute", "gather-dep", "get-data", "retry-busy-worker"]) inProgress[kind] = 0;
    for (const work of this.#outstanding) inProgress[work.kind] = (inProgress[work.kind] ?? 0) + 1;
    if (spill === null) return { tasks, inProgress };
    return {
      tasks,
      inProgress,
      memory: { managed: spill.fast.totalWeight, spilled: spill.slow.totalWeight.disk },
      keys: { memory: spill.fast.size, disk: spill.slow.size },
    };
  }

  /** Prometheus text exposition of fine metrics (incl. in-progress), task-state and spill gauges. */
  prometheus(): string {
    return formatFineMetrics(this.scrape()) + formatFamilies(workerGaugeFamilies(this.gauges()));
  }

  /** Serves `prometheus()` at GET /metrics over HTTP, bound to 127.0.0.1 unless told otherwise. */
  async serveMetrics(options: ServeMetricsOptions = {}): Promise<MetricsServer> {
    const host = options.host ?? "127.0.0.1";
    const port = options.port ?? 0;
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0];
      if (request.method !== "GET" && request.method !== "HEAD") {
        response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("method not allowed\n");
        return;
      }
      if (path !== "/metrics") {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found: try /metrics\n");
        return;
      }
      let body: string;
      try {
        body = this.prometheus();
      } catch (error) {
        response.writeHead(500, { "content-type": "text/plain" }).end(`${errorText(error)}\n`);
        return;
      }
      response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
      response.end(request.method === "HEAD" ? undefined : body);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const bound = (server.address() as AddressInfo).port;
    const shownHost = host.includes(":") ? `[${host}]` : host;
    const handle = {
      url: `http://${shownHost}:${bound}/metrics`,
      port: bound,
      close: () =>
        new Promise<void>((resolve, reject) => {
          this.#servers.delete(handle);
          server.closeAllConnections();
          server.close((error) => (error === undefined ? resolve() : reject(error)));
        }),
    };
    this.#servers.add(handle);
    return handle;
  }

  // ---- async work ------------------------------------------------------------------------

  #track(work: Work): void {
    this.#outstanding.add(work);
  }

  /** Marks work finished; false when it already was (close() got there first). */
  #settle(work: Work): boolean {
    if (work.settled) return false;
    work.settled = true;
    this.#outstanding.delete(work);
    if (this.#outstanding.size === 0) {
      if (this.#drainWaiters.length > 0) {
        const waiters = this.#drainWaiters;
        this.#drainWaiters = [];
        for (const resolve of waiters) resolve();
      }
      if (this.#idleWaiters.length > 0) this.#queueIdleCheck();
    }
    return true;
  }

  /**
   * Resolves when the worker is idle: no async work outstanding once every done event, and
   * every stimulus fed in reaction on a microtask (a scheduler answering TaskFinishedMsg),
   * has been handled. Work settles *before* its done event is handled — which may start more
   * work — so the check waits for the current turn to settle (a `setImmediate`) and looks
   * again; work outstanding then means waiting on. With a VirtualClock, resolves while its
   * driver runs.
   */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.#idleWaiters.push(resolve);
      if (this.#outstanding.size === 0) this.#queueIdleCheck();
    });
  }

  #queueIdleCheck(): void {
    if (this.#idleCheckQueued) return;
    this.#idleCheckQueued = true;
    setImmediate(() => {
      this.#idleCheckQueued = false;
      if (this.#outstanding.size !== 0) return;
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    });
  }

  /** Resolves as soon as no async work is outstanding (close(): no new work can start). */
  #drained(): Promise<void> {
    if (this.#outstanding.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Records work that ends without an event (worker closing): its metrics count as cancelled. */
  #cancelWork(work: Work): void {
    const root = work.root;
    if (root !== null && root.isRecording()) {
      root.setAttribute("outcome", "cancelled");
      this.#finishSideRoot(root, `cancelled-${work.kind}`, work.split);
    }
    if (work.thread !== null) {
      this.#releaseSlot(work);
      this.#forgetThread(work);
    }
  }

  /**
   * A root span (explicitly parentless: roots are roots, whatever span is current — no
   * pile-up, dask #7949) on a cursor clock: a child starts no earlier than the end of the
   * root's latest ended child. Synchronous spill with a modelled duration (a virtual disk)
   * ends "in the future" of a virtual clock that cannot advance mid-call; the cursor makes
   * the next activity start after it instead of overlapping it, so exclusive times stay
   * exact and non-negative, and the root itself ends no earlier than its children.
   */
  #newRoot(name: readonly string[], options: { registry?: SpanRegistry; attributes?: Readonly<Record<string, AttributeValue>> }): Span {
    const clock = new CursorClock(this.clock);
    const root = new Span(name, { registry: options.registry, attributes: options.attributes, parent: null, clock });
    clock.root = root;
    return root;
  }

  /** Hands a finished root to `onSpanRecord`; a throwing hook goes to onError and changes nothing else. */
  #reportRecord(rootOrRecord: Span | SpanRecord): void {
    const hook = this.#onSpanRecord;
    if (hook === undefined) return;
    try {
      hook(rootOrRecord instanceof Span ? rootOrRecord.toRecord() : rootOrRecord);
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Runs a completion step; a throw (state invariant, a throwing hook) goes to onError, never unhandled. */
  #guard(work: Work, step: () => void): void {
    try {
      step();
    } catch (error) {
      this.#internalError(error, work);
    }
  }

  #internalError(error: unknown, work: Work): void {
    this.#onError(
      error instanceof Error
        ? error
        : new Error(`worker ${this.address}: unexpected failure in ${work.kind}: ${errorText(error)}`),
    );
  }

  /**
   * A free slot for a task about to run. The state starts a task only on a free thread, so
   * there is one: a finishing task frees its slot before its done event is handled (that is
   * what starts the next task), and a seceded (long-running) task, which no longer counts
   * as a thread, hands its slot over when no other is free — like dask's secede(), where the
   * thread leaves the pool. Slots are therefore always 0…nthreads-1.
   */
  #acquireSlot(key: Key): number {
    const slot = this.#freeSlots.pop() ?? this.#slotOfLongRunning();
    if (slot === undefined) {
      throw new Error(`worker ${this.address}: no free thread slot for ${JSON.stringify(key)} (all ${this.state.nthreads} run tasks that are not long-running)`);
    }
    return slot;
  }

  #slotOfLongRunning(): number | undefined {
    const owners = this.#slotOwners;
    for (let slot = 0; slot < owners.length; slot++) {
      const ts = this.state.tasks.get(owners[slot]!.key as Key);
      if (ts !== undefined && this.state.longRunning.has(ts)) return slot;
    }
    return undefined;
  }

  /** Frees the slot of a finished execute, unless a task started in its place holds it now. */
  #releaseSlot(work: Work): void {
    const slot = work.thread as number;
    if (this.#slotOwners[slot] !== work) return;
    this.#slotOwners[slot] = undefined;
    this.#freeSlots.push(slot);
  }

  /** Drops the finished task's entry (the state may have dropped it already when it forgot the key). */
  #forgetThread(work: Work): void {
    const key = work.key as Key;
    if (this.#threads.get(key) === work.thread) this.#threads.delete(key);
  }

  // ---- Execute ---------------------------------------------------------------------------

  #startExecute(instruction: Execute): void {
    const ts = this.state.tasks.get(instruction.key);
    if (ts === undefined) {
      throw new Error(`worker ${this.address}: Execute for unknown task ${JSON.stringify(instruction.key)} (stimulus ${instruction.stimulusId})`);
    }
    const thread = this.#acquireSlot(ts.key);
    // Explicitly a root (no parent), whatever span is current: no pile-up (dask #7949).
    const root = this.#newRoot(executeRoot(ts.prefix), {
      registry: this.spanRegistry,
      attributes: { key: ts.key, thread },
    }).start();
    const work: Work = { kind: "execute", root, split: null, registry: null, key: ts.key, thread, settled: false };
    this.#slotOwners[thread] = work;
    this.#threads.set(ts.key, thread);
    this.#track(work);
    const runId = ts.runId;
    // An executor that records under its explicit span needs no context binding.
    (this.#executor.explicitSpans === true ? this.#runExecute(ts, root) : root.asCurrent(() => this.#runExecute(ts, root)))
      .then(
        (outcome) => this.#guard(work, () => this.#finishExecute(work, ts.key, runId, outcome)),
        (error: unknown) => {
          if (this.#settle(work)) this.#cancelWork(work);
          this.#internalError(error, work);
        },
      );
  }

  async #runExecute(ts: TaskState, root: Span): Promise<ExecuteOutcome> {
    const signal = this.#abort.signal;
    // Start on a later turn, like an asyncio task: the stimulus that emitted Execute
    // finishes dispatching first.
    await undefined;
    if (signal.aborted) return { kind: "aborted" };
    const key = ts.key;
    const dependencies = new Map<Key, unknown>();
    try {
      root.runSync(() => {
        for (const dep of ts.dependencies) {
          if (!this.data.has(dep.key)) {
            throw new Error(
              `dependency ${JSON.stringify(dep.key)} of task ${JSON.stringify(key)} is not in memory on worker ${this.address} (state ${dep.state}); it was released before the task could read it (dask #6893)`,
            );
          }
          dependencies.set(dep.key, this.data.get(dep.key));
        }
      });
    } catch (error) {
      return { kind: "failure", error, start: null, stop: null };
    }
    const behind = latestChildEnd(root, 0) - this.clock.now();
    if (behind > 0) {
      try {
        await this.clock.sleep(behind, signal);
      } catch {
        return { kind: "aborted" };
      }
    }
    const start = this.clock.now();
    try {
      const result = await this.#executor.execute(
        { key, prefix: ts.prefix, runId: ts.runId, runSpec: ts.runSpec, dependencies },
        { span: root, clock: this.clock, signal },
      );
      const stop = this.clock.now();
      const nbytes = result.nbytes ?? this.#sizeof(result.value);
      return { kind: "success", value: result.value, nbytes, type: result.type ?? null, start, stop };
    } catch (error) {
      if (signal.aborted) return { kind: "aborted" };
      if (error instanceof Reschedule) return { kind: "reschedule" };
      return { kind: "failure", error, start, stop: this.clock.now() };
    }
  }

  #finishExecute(work: Work, key: Key, runId: number, outcome: ExecuteOutcome): void {
    if (!this.#settle(work)) return;
    if (outcome.kind === "aborted" || this.#status !== "running") {
      this.#cancelWork(work);
      return;
    }
    // The slot is free for the task this done event starts; the finishing task keeps its
    // entry in `threads` while the event is handled, so TaskFinishedMsg/TaskErredMsg report it.
    this.#releaseSlot(work);
    try {
      this.#handleExecuteDone(work, key, runId, outcome);
    } finally {
      this.#forgetThread(work);
    }
  }

  /** Ends the root, builds the done event carrying its record, and handles it. */
  #handleExecuteDone(work: Work, key: Key, runId: number, outcome: Exclude<ExecuteOutcome, { kind: "aborted" }>): void {
    const root = work.root as Span;
    const ts = this.state.tasks.get(key);
    const discarded = ts === undefined || ts.state === "cancelled";
    const coarse: Outcome =
      outcome.kind === "success" ? (discarded ? "cancelled" : "ok") : outcome.kind === "failure" ? (discarded ? "cancelled" : "failed") : "cancelled";
    root.setAttribute("outcome", coarse);
    if (outcome.kind === "failure") root.setAttributes(exceptionAttributes(outcome.error));
    // Ended when handling of the done event begins: the event-loop delay lands in `other`.
    root.end();
    const span = root.toRecord();
    this.#reportRecord(span);
    let event: StateMachineEvent;
    switch (outcome.kind) {
      case "success":
        event = ExecuteSuccessEvent({
          key,
          runId,
          value: outcome.value,
          start: outcome.start,
          stop: outcome.stop,
          nbytes: outcome.nbytes,
          type: outcome.type,
          span,
          stimulusId: this.#stimulusId("execute-success"),
        });
        break;
      case "failure":
        event = ExecuteFailureEvent({
          key,
          runId,
          start: outcome.start,
          stop: outcome.stop,
          exception: outcome.error,
          traceback: stackText(outcome.error) || null,
          exceptionText: errorText(outcome.error),
          tracebackText: stackText(outcome.error),
          span,
          stimulusId: this.#stimulusId("execute-failure"),
        });
        break;
      case "reschedule":
        event = RescheduleEvent({ key, span, stimulusId: this.#stimulusId("reschedule") });
        break;
    }
    this.#handle(event, root.name, coarse, null, true);
  }

  // ---- GatherDep -------------------------------------------------------------------------

  #startGatherDep(instruction: GatherDep): void {
    const split = prefixWeights(
      "gather-dep",
      instruction.toGather.map((key) => {
        const ts = this.state.tasks.get(key);
        return [ts?.prefix ?? keySplit(key), ts?.getNbytes() ?? 0] as const;
      }),
    );
    const registry = new SpanRegistry();
    const root = this.#newRoot(GATHER_DEP_ROOT, {
      registry,
      attributes: { worker: instruction.worker, keys: instruction.toGather.length, totalNbytes: instruction.totalNbytes },
    }).start();
    const work: Work = { kind: "gather-dep", root, split, registry, key: null, thread: null, settled: false };
    this.#track(work);
    (this.#transport?.explicitSpans === true ? this.#runGatherDep(instruction, root) : root.asCurrent(() => this.#runGatherDep(instruction, root)))
      .then(
        (outcome) => this.#guard(work, () => this.#finishGatherDep(work, instruction, outcome)),
        (error: unknown) => {
          if (this.#settle(work)) this.#cancelWork(work);
          this.#internalError(error, work);
        },
      );
  }

  async #runGatherDep(instruction: GatherDep, root: Span): Promise<GatherOutcome> {
    const signal = this.#abort.signal;
    await undefined;
    if (signal.aborted) return { kind: "aborted" };
    const transport = this.#transport;
    try {
      if (transport === undefined) {
        throw new NetworkError(`worker ${this.address} has no transport to reach ${instruction.worker}`, { peer: instruction.worker });
      }
      const response: GetDataResponse = await transport.getData(instruction.worker, instruction.toGather, {
        who: this.address,
        signal,
        span: root,
      });
      if (response.status === "busy") return { kind: "busy" };
      if (response.status !== "OK") throw new Error(`peer ${instruction.worker} answered with status ${JSON.stringify((response as { status?: unknown }).status)}`);
      return { kind: "success", data: response.data };
    } catch (error) {
      if (signal.aborted) return { kind: "aborted" };
      if (error instanceof NetworkError) return { kind: "network-failure", error };
      return { kind: "failure", error };
    }
  }

  #gatherOutcome(outcome: GatherOutcome): Outcome {
    switch (outcome.kind) {
      case "busy":
        return "busy";
      case "network-failure":
      case "failure":
        return "failed";
      case "aborted":
        return "cancelled";
      case "success": {
        let received = false;
        for (const key in outcome.data) {
          received = true;
          const state = this.state.tasks.get(key)?.state;
          // flight and resumed(flight→waiting) store the value; cancelled discards it
          if (state === "flight" || state === "resumed") return "ok";
        }
        return received ? "cancelled" : "missing";
      }
    }
  }

  #finishGatherDep(work: Work, instruction: GatherDep, outcome: GatherOutcome): void {
    if (!this.#settle(work)) return;
    const root = work.root as Span;
    if (outcome.kind === "aborted" || this.#status !== "running") {
      this.#cancelWork(work);
      return;
    }
    const coarse = this.#gatherOutcome(outcome);
    root.setAttribute("outcome", coarse);
    if (outcome.kind === "failure" || outcome.kind === "network-failure") root.setAttributes(exceptionAttributes(outcome.error));
    root.end();
    const span = root.toRecord();
    this.#reportRecord(span);
    const worker = instruction.worker;
    const totalNbytes = instruction.totalNbytes;
    let event: StateMachineEvent;
    switch (outcome.kind) {
      case "success":
        event = GatherDepSuccessEvent({ worker, totalNbytes, data: outcome.data, span, stimulusId: this.#stimulusId("gather-dep-success") });
        break;
      case "busy":
        event = GatherDepBusyEvent({ worker, totalNbytes, span, stimulusId: this.#stimulusId("gather-dep-busy") });
        break;
      case "network-failure":
        event = GatherDepNetworkFailureEvent({ worker, totalNbytes, span, stimulusId: this.#stimulusId("gather-dep-network-failure") });
        break;
      case "failure":
        event = GatherDepFailureEvent({
          worker,
          totalNbytes,
          exception: outcome.error,
          traceback: stackText(outcome.error) || null,
          exceptionText: errorText(outcome.error),
          tracebackText: stackText(outcome.error),
          span,
          stimulusId: this.#stimulusId("gather-dep-failure"),
        });
        break;
    }
    this.#handle(event, root.name, coarse, work.split, true);
  }

  // ---- RetryBusyWorkerLater ----------------------------------------------------------------

  #startRetryBusyWorker(instruction: RetryBusyWorkerLater): void {
    const work: Work = { kind: "retry-busy-worker", root: null, split: null, registry: null, key: null, thread: null, settled: false };
    this.#track(work);
    this.clock.sleep(this.#retryBusyDelay, this.#abort.signal).then(
      () => {
        if (!this.#settle(work) || this.#status !== "running") return;
        this.#guard(work, () =>
          this.#handle(
            RetryBusyWorkerEvent({ worker: instruction.worker, stimulusId: this.#stimulusId("retry-busy-worker") }),
            stimulusRoot("RetryBusyWorkerEvent"),
            "ok",
            null,
          ),
        );
      },
      () => {
        this.#settle(work);
      },
    );
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
    const registry = new SpanRegistry();
    const root = this.#newRoot(GET_DATA_ROOT, {
      registry,
      attributes: { who: options.who, keys: keys.length },
    }).start();
    if (this.#serving >= this.#getDataBusyLimit) {
      root.setAttribute("outcome", "busy");
      this.#finishSideRoot(root, "get-data-busy", prefixWeights("get-data", keys.map((key) => [this.#prefixOf(key), 0] as const)));
      return { status: "busy" };
    }
    const items: Array<readonly [string, number]> = [];
    // keys are data: a plain {} would turn `data["__proto__"] = value` into a prototype change
    const data = Object.create(null) as Record<Key, unknown>;
    const nbytes = Object.create(null) as Record<Key, number>;
    let totalBytes = 0;
    // One per key until the values are read (synchronously, before anything can scrape), then their stored sizes.
    const work: Work = {
      kind: "get-data",
      root,
      split: prefixWeights("get-data", keys.map((key) => [this.#prefixOf(key), 0] as const)),
      registry,
      key: null,
      thread: null,
      settled: false,
    };
    this.#track(work);
    this.#serving++;
    const link = linkSignals(this.#abort.signal, options.signal);
    const signal = link.signal;
    let outcome: Outcome = "failed";
    let failure: unknown;
    const serve = async (): Promise<void> => {
      root.runSync(() => {
        for (const key of keys) {
          if (!this.data.has(key)) continue;
          const value = this.data.get(key);
          const size = this.state.tasks.get(key)?.nbytes ?? this.#sizeof(value);
          data[key] = value;
          nbytes[key] = size;
          totalBytes += size;
          items.push([this.#prefixOf(key), size]);
        }
      });
      // from here on (in-progress scrapes included) the split follows the stored sizes
      if (items.length > 0) work.split = prefixWeights("get-data", items);
      const behind = latestChildEnd(root, 0) - this.clock.now();
      if (behind > 0) await this.clock.sleep(behind, signal);
      if (options.send !== undefined) await options.send({ data, nbytes, totalBytes, span: root, signal });
    };
    try {
      // A sender that records under `reply.span` needs no context binding.
      await (options.explicitSpans === true || options.send === undefined ? serve() : root.asCurrent(serve));
      outcome = items.length === 0 && keys.length > 0 ? "missing" : "ok";
    } catch (error) {
      outcome = signal.aborted ? "cancelled" : "failed";
      failure = error;
      // to the requesting peer, a server that closes mid-reply is a dropped connection
      if (this.#abort.signal.aborted) throw new NetworkError(`worker ${this.address} closed while serving`, { peer: this.address, cause: error });
      throw error;
    } finally {
      link.dispose();
      this.#serving--;
      if (this.#settle(work) && root.isRecording()) {
        root.setAttribute("outcome", outcome);
        if (outcome === "failed") root.setAttributes(exceptionAttributes(failure));
        this.#finishSideRoot(root, "get-data", work.split);
      }
    }
    return { status: "OK", data, nbytes };
  }

  #prefixOf(key: Key): string {
    return this.state.tasks.get(key)?.prefix ?? keySplit(key);
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
    this.#abort.abort(new WorkerClosedError(this.address));
    if (this.#outstanding.size > 0) {
      let timer: TimerHandle | undefined;
      await Promise.race([
        this.#drained(),
        new Promise<void>((resolve) => {
          timer = this.clock.setTimer(this.clock.now() + timeout, resolve);
        }),
      ]);
      timer?.cancel();
    }
    for (const work of [...this.#outstanding]) {
      if (this.#settle(work)) this.#cancelWork(work);
    }
    await Promise.all([...this.#servers].map((server) => server.close()));
    this.#status = "closed";
  }
}
