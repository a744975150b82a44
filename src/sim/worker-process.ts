// One worker's process as a dask 2022.12.1 LocalCluster runs it: the real Worker shell (its
// WorkerState and SpillBuffer) and what the process gives it to run on — its event loop (a
// thread of its host when the cluster has a CPU model), its streams to and from the scheduler,
// its GIL when some task of the graph holds it, the copies that hold that GIL and do not let go
// (copy-holds.ts), its share of the host's cores, and its disk (one per host when the host's
// disks share a capacity). Apart from simulate.ts so that the run reads as its outline: which
// of these a process has, and which switch of the cluster decides it, is this file's one job.
import type { SendMessageToScheduler } from "../state/index.js";
import type { SpanRecord } from "../spans/index.js";
import type { SpillStore } from "../spill/index.js";
import type { VirtualClock } from "../worker/clock.js";
import type { InProcessTransport } from "../worker/in-process-transport.js";
import { Worker } from "../worker/worker.js";
import type { ResolvedCluster } from "./cluster.js";
import { BatchedLink, SerialLoop } from "./control-plane.js";
import { CopyHolds, holdingReads } from "./copy-holds.js";
import { VirtualDisk, simulatedDataSerializer } from "./disk.js";
import { RecordingExecutor } from "./executor.js";
import { workerGil, type Gil } from "./gil.js";
import type { ClusterCpu } from "./host-cpu.js";
import { HostDisk } from "./host-disk.js";
import { GcCounter, gcTerm } from "./gc.js";
import { deserializeCost } from "./network/index.js";
import { costDraw, meanCost } from "./overheads.js";
import type { SimOptions } from "./report.js";
import type { ReportBuilder } from "./report-builder.js";
import { ExecutionTracker } from "./scheduler/executing.js";
import { SimWorker } from "./sim-worker.js";
import type { SimTransport } from "./transport.js";

/** What the run gives every worker process: its clock, cluster and report, and the run's side of the streams. */
export interface ProcessWiring {
  readonly clock: VirtualClock;
  readonly cluster: ResolvedCluster;
  readonly options: SimOptions;
  readonly seed: number;
  /** The hosts' cores, when the cluster has a CPU model. */
  readonly cpu: ClusterCpu | null;
  /** Some task of the graph holds the GIL: every process then has one. */
  readonly anyGil: boolean;
  readonly report: ReportBuilder;
  readonly transport: SimTransport;
  readonly inner: InProcessTransport;
  /** How the scheduler reads a batch a worker's stream brings (on its one loop, after what it is busy with). */
  readonly readBatch: (run: () => void) => void;
  /** A worker's message to the scheduler. */
  readonly send: (worker: number, message: SendMessageToScheduler) => void;
  readonly onSpanRecord: (worker: string, record: SpanRecord) => void;
  /** An error inside a worker (the run fails with the first). */
  readonly onError: (error: unknown) => void;
}

export class WorkerProcess {
  /** The worker's event loop: messages, transfers' (de)serialisation and spilling queue on it. */
  readonly loop: SerialLoop;
  /** Scheduler → worker and worker → scheduler streams (dask's BatchedSend, then the wire). */
  readonly toWorker: BatchedLink;
  readonly toScheduler: BatchedLink;
  /** The GIL as held by copies that do not let go; undefined: switchInterval 0 or no network. */
  readonly holds: CopyHolds | undefined;
  /** The process's GIL, when some task of the graph holds it. */
  readonly gil: Gil | undefined;
  /** Its full garbage collections (the overheads' workerGc); undefined: none. */
  readonly gc: GcCounter | undefined;
  /** Seconds its loop was stopped by them (part of the loop's busy seconds). */
  gcSeconds = 0;
  /** The start time of each task it runs, for heartbeats. */
  readonly executing: ExecutionTracker;
  readonly sim: SimWorker;

  constructor(index: number, wiring: ProcessWiring, hostDisk: HostDisk | undefined) {
    const { clock, cluster, options, seed } = wiring;
    const overheads = cluster.overheads;
    const shape = cluster.workers[index]!;
    const address = shape.address;
    const loop = new SerialLoop(clock, costDraw(overheads.workerHandling, seed, `overheads.workerHandling/${index}`), costDraw(overheads.workerMessage, seed, `overheads.workerMessage/${index}`), wiring.cpu?.loopThreads[index] ?? null);
    this.loop = loop;
    const holds = overheads.switchInterval > 0 && cluster.network !== "instant" ? new CopyHolds(overheads.switchInterval) : undefined;
    this.holds = holds;
    // A full collection: booked on the loop after what is there (the thread that allocated past
    // the threshold waits for the lock like any), holding the lock from its start to its end, as a
    // deserialisation does, in one piece (a collection never lets go). Its own holds when the
    // copies have none (switchInterval 0, the instant network), so the copies' rules stay theirs.
    const term = gcTerm(overheads.workerGc);
    let gcHolds: CopyHolds | undefined;
    let gcStart = 0;
    let gcEnd = 0;
    this.gc = undefined;
    if (term !== undefined) {
      const held = holds ?? new CopyHolds(Math.max(overheads.switchInterval, 0.005));
      gcHolds = held;
      this.gc = new GcCounter(term, (seconds) => {
        const now = clock.now();
        const before = loop.idleIn();
        const after = loop.reserve(seconds);
        gcStart = now + before;
        gcEnd = now + after;
        this.gcSeconds += seconds;
        held.open(now, gcStart, gcEnd, 1);
        held.value(1);
      });
    }
    this.toWorker = new BatchedLink(clock, overheads.schedulerBatch, overheads.messageLatency);
    // dask's BatchedSend writes from the loop: nothing leaves while a collection stops it.
    const heldUntil = gcHolds === undefined ? undefined : (now: number): number => (now >= gcStart && now < gcEnd ? gcEnd : 0);
    this.toScheduler = new BatchedLink(clock, overheads.workerBatch, overheads.messageLatency, wiring.readBatch, heldUntil);
    // dask 2022.12.1 reads and writes spilled data on the worker's event loop: it is busy meanwhile.
    const disk = new VirtualDisk(clock, cluster.disk, meanCost(overheads.workerHandling) > 0 ? (seconds) => void loop.reserve(seconds) : undefined, hostDisk);
    // A spilled value's read ends with the same join as a message's deserialisation, holding the GIL.
    const store: SpillStore = holds === undefined ? disk : holdingReads(disk, loop, holds, deserializeCost(cluster.deserializeBandwidth), () => clock.now());
    const limit = shape.memoryLimit;
    const target = cluster.memory.target;
    const report = wiring.report;
    // Spill warnings (disk full, …) would flood the console: the first of each kind per worker goes to the report.
    const reported = new Set<string>();
    const logOnce = (kind: string) => (message: string) => {
      if (reported.has(kind)) {
        report.countFault(kind, clock.now());
        return;
      }
      reported.add(kind);
      report.fault(clock.now(), kind, `${address}: ${message} (further ones only counted)`);
    };
    const hostCpu = wiring.cpu?.host(shape.host);
    const gil = wiring.anyGil ? workerGil(clock, hostCpu) : undefined;
    this.gil = gil;
    const gc = this.gc;
    const wake = gcHolds ?? holds;
    const executor = new RecordingExecutor({
      address,
      // Every task that ends counts towards the next collection (one counter, no allocation).
      sink: gc === undefined ? report : { taskRecord: (record) => (report.taskRecord(record), gc.taskDone()), countFault: (kind, time) => report.countFault(kind, time) },
      ...(hostCpu === undefined ? {} : { cpuPart: (seconds: number) => hostCpu.cpuPart(seconds, clock.now()) }),
      ...(gil === undefined ? {} : { gil: (seconds: number, signal: AbortSignal, onEnd: (cpuDone: number) => void) => gil.run(seconds, signal, onEnd) }),
      // The copies' holds, with the collections among them (or the collections' own).
      ...(wake === undefined ? {} : { gilWake: () => wake.wait(clock.now()) }),
      // The Worker is built with this executor; by the time a task runs, it exists.
      taskState: (key) => worker.state.tasks.get(key)?.state,
    });
    this.executing = new ExecutionTracker(executor, (key) => {
      const state = worker.state.tasks.get(key)?.state;
      return state === "executing" || state === "long-running";
    });
    const worker: Worker = new Worker({
      address,
      nthreads: shape.nthreads,
      clock,
      executor: this.executing,
      transport: wiring.transport,
      send: (message) => wiring.send(index, message),
      // The SpillBuffer's target (dask's memory.target of managed memory); false = none.
      memoryLimit: target === false ? null : limit,
      ...(target === false ? {} : { memoryTargetFraction: target }),
      eventLoop: loop,
      spill: {
        store,
        serializer: simulatedDataSerializer,
        logger: { warn: logOnce("spill-warning"), error: logOnce("spill-error") },
        ...(options.maxSpill === undefined ? {} : { maxSpill: options.maxSpill }),
      },
      validate: options.validate ?? false,
      // dask's defaults: distributed.worker.connections.outgoing, transfer.message-bytes-limit,
      // and memory.transfer × memory_limit.
      transferIncomingCountLimit: 50,
      transferMessageBytesLimit: 50e6,
      ...(limit === null ? {} : { transferIncomingBytesLimit: Math.floor(limit * 0.1) }),
      ...(options.collectSpans === true ? { onSpanRecord: (record: SpanRecord) => wiring.onSpanRecord(address, record) } : {}),
      onError: wiring.onError,
    });
    wiring.inner.register(worker);
    this.sim = new SimWorker(index, address, worker, disk, wiring.transport);
  }
}

/** Every worker's process, in worker order; one shared disk per host when the cluster says its workers' disks share a capacity. */
export function startProcesses(wiring: ProcessWiring): WorkerProcess[] {
  const hostDisks = new Map<number, HostDisk>();
  const hostBandwidth = wiring.cluster.disk.hostBandwidth ?? null;
  return wiring.cluster.workers.map((shape, index) => {
    let shared: HostDisk | undefined;
    if (hostBandwidth !== null) {
      shared = hostDisks.get(shape.host);
      if (shared === undefined) hostDisks.set(shape.host, (shared = new HostDisk(hostBandwidth)));
    }
    return new WorkerProcess(index, wiring, shared);
  });
}
