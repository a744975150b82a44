// `simulate`: runs a whole task graph on N simulated workers — each the real Worker shell
// with the real WorkerState and SpillBuffer — on one virtual clock, with the scheduler,
// network, disk and faults of src/sim at the I/O boundary. This file is the run's outline
// (build the cluster, carry the messages, tick the memory monitor, apply faults, drive the
// clock, assemble the report); what each worker's process is made of is worker-process.ts's.
import { PauseEvent, UnpauseEvent, FindMissingEvent, type SendMessageToScheduler } from "../state/index.js";
import type { SpanRecord } from "../spans/index.js";
import { VirtualClock, type TimerHandle } from "../worker/clock.js";
import { InProcessTransport } from "../worker/in-process-transport.js";
import type { Worker } from "../worker/worker.js";
import type { ResolvedCluster } from "./cluster.js";
import { validateClusterProfile } from "./cluster-spec.js";
import { DEFAULT_SEED, DEFAULT_THREADS, DEFAULT_WORKERS } from "./defaults.js";
import type { ClusterCpu } from "./host-cpu.js";
import { FaultDice, resolveFaults, type FaultPlan } from "./faults.js";
import type { TaskGraph } from "./graph.js";
import { GcCounter, gcTerm } from "./gc.js";
import { MemoryMonitor } from "./memory.js";
import { DEFAULT_NETWORK_KIND, type NetworkKind, type SimNetwork } from "./network/index.js";
import { REPORT_SCHEMA_VERSION, type SimOptions, type SimReport, type SimResult, type TransferRecord } from "./report.js";
import { ReportBuilder, threadTimeProblems } from "./report-builder.js";
import { Scheduler } from "./scheduler.js";
import type { ResolvedPolicy } from "./scheduler/registry.js";
import type { SimWorker } from "./sim-worker.js";
import { checkOptions, clusterOf, schedulerPolicy, SimulationError, workloadOfInput, type SimInput } from "./sim-input.js";
import { clusterSummary, completionSentence, schedulerSummary, stealRecords, stuckTasks, taskCounts } from "./run-summary.js";
import { workerAddress } from "./addresses.js";
import { TaskModels } from "./task-models.js";
import { runNetwork } from "./run-network.js";
import { SimTransport } from "./transport.js";
import type { Workload } from "./workloads/index.js";
import { startProcesses, type WorkerProcess } from "./worker-process.js";

export { DEFAULT_NETWORK_KIND, DEFAULT_SEED, DEFAULT_THREADS, DEFAULT_WORKERS, workerAddress };
export { SimulationError, workloadOfInput, type SimInput } from "./sim-input.js";

/**
 * Simulates `input` and resolves with its report (and span records when `collectSpans`).
 * A run that cannot finish (all workers dead, a task stuck) still resolves: the report
 * says `complete: false`, names the stuck keys and the seed that replays it.
 */
export async function simulate(input: SimInput, options: SimOptions = {}): Promise<SimResult> {
  options.signal?.throwIfAborted();
  const seed = checkOptions(input, options);
  const profile = options.cluster === undefined ? undefined : validateClusterProfile(options.cluster, "options.cluster");
  // A built-in workload sizes itself to the cluster it will run on (its own settings aside).
  const hint = typeof input === "string" ? clusterOf({}, profile, options) : undefined;
  const workersHint = hint?.workers.length ?? DEFAULT_WORKERS;
  const threadsHint = hint?.workers[0]?.nthreads ?? DEFAULT_THREADS;
  const workload = workloadOfInput(input, options, seed, workersHint, threadsHint);
  const run = new SimulationRun(workload, options, seed, clusterOf(workload.cluster, profile, options), await schedulerPolicy(options.scheduler ?? profile?.scheduler ?? workload.cluster.scheduler));
  return run.execute();
}

/** One run: builds the cluster, drives the clock, collects the report. */
class SimulationRun {
  // Everything the simulation runs on this clock is promise-driven: settling needs no event-loop turn.
  private readonly clock = new VirtualClock({ settle: "microtasks" });
  private readonly graph: TaskGraph;
  private readonly workers: SimWorker[];
  /** Each worker's process: its loop, streams, GIL, copy holds, disk (worker-process.ts). */
  private readonly processes: WorkerProcess[];
  private readonly scheduler: Scheduler;
  private readonly plan: FaultPlan;
  private readonly dice: FaultDice;
  private readonly tasks: TaskModels;
  private readonly report: ReportBuilder;
  private readonly memory: MemoryMonitor;
  private readonly transport: SimTransport;
  private readonly inner: InProcessTransport;
  private readonly network: SimNetwork;
  private readonly spanRecords: Array<{ worker: string; record: SpanRecord }> = [];
  private readonly nworkers: number;
  private readonly networkKind: NetworkKind;
  /** The hosts' cores, when the cluster has a CPU model. */
  private readonly cpu: ClusterCpu | null;
  /** Workers differ in memory limit (the report then gives each its own). */
  private readonly heterogeneous: boolean;
  private tickTimer: TimerHandle | null = null;
  private lastActivity = 0;
  /** When a task last finished (in memory or erred): where a stuck run stopped moving. */
  private lastProgress = 0;
  private readonly stallTimeout: number;
  private internalError: unknown = null;
  private progressStep: number;
  private nextProgress: number;
  /** Workers whose data may have changed since the last tick (memory monitor, find-missing). */
  private readonly dirty: Uint8Array;
  private dirtyCount = 0;
  private readonly addressIndex = new Map<string, number>();
  /** The scheduler's full collections (the overheads' schedulerGc), counted in the tasks it hears finish; undefined: none. */
  private readonly schedulerGc: GcCounter | undefined;
  private schedulerGcSeconds = 0;

  constructor(
    private readonly workload: Workload,
    private readonly options: SimOptions,
    private readonly seed: number,
    private readonly cluster: ResolvedCluster,
    policy: ResolvedPolicy,
  ) {
    this.graph = workload.graph;
    this.nworkers = cluster.workers.length;
    this.networkKind = cluster.network;
    this.heterogeneous = cluster.workers.some((shape) => shape.memoryLimit !== cluster.workers[0]!.memoryLimit);
    const latency = cluster.latency;
    this.stallTimeout = options.stallTimeout ?? 600;
    const addresses = cluster.workers.map((shape) => shape.address);
    addresses.forEach((address, i) => this.addressIndex.set(address, i));
    this.plan = resolveFaults(
      [
        { faults: workload.faults, where: "faults" },
        { faults: options.faults ?? [], where: "options.faults" },
      ],
      addresses,
    );
    this.dice = new FaultDice(this.plan, seed);
    this.tasks = new TaskModels(this.graph, cluster.overheads.taskOverrun, this.dice, seed, () => this.clock.now());
    const { network, cpu } = runNetwork(cluster, this.clock, this.addressIndex, seed);
    this.network = network;
    this.cpu = cpu;
    this.inner = new InProcessTransport({ network: this.network });
    this.report = new ReportBuilder(
      addresses,
      cluster.workers.map((shape) => shape.nthreads),
      options.maxTaskRecords ?? 100_000,
    );
    this.transport = new SimTransport({
      inner: this.inner,
      network: this.network,
      clock: this.clock,
      addresses,
      dice: this.dice,
      latency: this.networkKind === "instant" ? 0 : latency,
      connectLatency: this.networkKind === "instant" ? 0 : cluster.overheads.connectLatency,
      receiverLoop: (to) => this.processes[to]!.loop,
      copyHolds: (to) => this.processes[to]!.holds,
      log: { record: (transfer) => this.transferDone(transfer), countFault: (kind, time) => this.report.countFault(kind, time) },
      onActivity: () => (this.lastActivity = this.clock.now()),
      onSettled: (to) => this.markDirty(to),
    });
    this.memory = new MemoryMonitor(
      cluster.memory,
      cluster.workers.map((shape) => shape.memoryLimit),
      options.memorySamplesPerWorker ?? 500,
    );
    const keepOutputs = options.keepOutputs ?? true;
    const graph = keepOutputs ? this.graph : { ...this.graph, isOutput: new Uint8Array(this.graph.size) };
    this.scheduler = new Scheduler(
      graph,
      cluster.workers.map((shape) => ({ address: shape.address, nthreads: shape.nthreads })),
      {
        deliver: (worker, events) => this.deliver(worker, events),
        requestFlush: () => this.requestTick(),
        runSpec: (id) => this.tasks.model(id),
        onProgress: () => this.progress(),
        now: () => this.clock.now(),
        setTimer: (at, callback) => void this.clock.setTimer(at, callback),
        executing: (worker, visit) => this.processes[worker]!.executing.visit(visit),
        abort: (error) => void this.clock.setTimer(this.clock.now(), () => {
          throw error;
        }),
      },
      { policy, seed, maxStealRecords: options.maxTaskRecords ?? 100_000, decisionCost: cluster.overheads.schedulerDecision, messageCost: cluster.overheads.schedulerMessage, loopThread: cpu?.schedulerThread ?? null },
    );
    this.dirty = new Uint8Array(this.nworkers);
    this.progressStep = Math.max(1, Math.floor(this.graph.size / 200));
    this.nextProgress = this.progressStep;
    this.processes = startProcesses({
      clock: this.clock,
      cluster,
      options,
      seed,
      cpu,
      anyGil: this.graph.anyGil,
      report: this.report,
      transport: this.transport,
      inner: this.inner,
      // The scheduler reads each batch a worker's stream brings on its one loop, after what it is busy with.
      readBatch: (run) => this.readBatch(run),
      send: (worker, message) => this.send(worker, message),
      onSpanRecord: (worker, record) => this.spanRecords.push({ worker, record }),
      onError: (error) => {
        this.internalError ??= error;
      },
    });
    this.workers = this.processes.map((process) => process.sim);
    const schedulerGc = gcTerm(cluster.overheads.schedulerGc);
    // Booked on the scheduler's loop after what is there: batches read and sent wait behind it.
    this.schedulerGc = schedulerGc === undefined ? undefined : new GcCounter(schedulerGc, (seconds) => {
      this.schedulerGcSeconds += seconds;
      this.scheduler.loopDelay(seconds);
    });
  }

  // ---- message flow ----

  /** A worker's message to the scheduler: its state may have changed now; the scheduler hears it over the stream. */
  private send(worker: number, message: SendMessageToScheduler): void {
    this.markDirty(worker);
    this.processes[worker]!.toScheduler.send(() => this.receive(worker, message));
  }

  /** A transfer ended: into the report, and (when it succeeded) into the receiver's bandwidth estimate. */
  private transferDone(transfer: TransferRecord): void {
    this.report.record(transfer);
    if (transfer.outcome !== "ok") return;
    const to = this.addressIndex.get(transfer.to);
    if (to !== undefined) this.scheduler.cluster.observeTransfer(to, transfer.bytes, transfer.end - transfer.start);
  }

  /**
   * A batch a worker's stream brought: the scheduler's one loop reads the batches one at a time,
   * in arrival order, each once the loop is through what the batches before it booked (their
   * decisions included), and what a batch sends is booked (flushed) before the next is read —
   * as dask's handle_stream handles a batch, returns to the loop, whose BatchedSends then write
   * what it sent, before it reads what came meanwhile. Read all at once when the loop came free,
   * the batches that arrived while it was busy were decided together and their sends left in
   * worker order, not arrival order. A loop that costs nothing reads each batch at once and
   * flushes at the tick, as before.
   */
  private readBatch(run: () => void): void {
    if (this.scheduler.loopFree) {
      run();
      return;
    }
    this.unread.push(run);
    if (!this.readPending) this.readBatches();
  }

  /** Batches waiting for the scheduler's loop, oldest first. */
  private readonly unread: Array<() => void> = [];
  /** A timer will resume readBatches(). */
  private readPending = false;

  private readBatches(): void {
    this.readPending = false;
    while (this.unread.length > 0) {
      const busy = this.scheduler.loopDelay(0);
      if (busy > 0) {
        this.readPending = true;
        this.clock.setTimer(this.clock.now() + busy, () => this.readBatches());
        return;
      }
      const run = this.unread.shift()!;
      // the read itself (schedulerMessage), then the batch's handlers, then its sends
      const read = this.scheduler.loopDelay(this.cluster.overheads.schedulerMessage);
      if (read > 0) {
        this.readPending = true;
        this.clock.setTimer(this.clock.now() + read, () => {
          this.handleBatch(run);
          this.readBatches();
        });
        return;
      }
      this.handleBatch(run);
    }
  }

  private handleBatch(run: () => void): void {
    run();
    this.scheduler.flush();
  }

  private receive(worker: number, message: SendMessageToScheduler): void {
    if (message.op !== "request-refresh-who-has") this.lastActivity = this.clock.now();
    this.markDirty(worker);
    this.scheduler.handleMessage(worker, message);
    if (message.op === "task-finished") this.schedulerGc?.taskDone();
  }

  /** The scheduler's batch for a worker (sent once its tasks are decided): over the stream, then handled once the worker's event loop has got through it. */
  private deliver(worker: number, events: Parameters<Worker["handleStimulus"]>): void {
    if (this.workers[worker]!.died) return;
    this.processes[worker]!.toWorker.send(() => this.arrive(worker, events));
  }

  private arrive(worker: number, events: Parameters<Worker["handleStimulus"]>): void {
    const wait = this.processes[worker]!.loop.messagesDelay(events.length);
    const handle = (): void => {
      const sim = this.workers[worker]!;
      if (sim.died) return;
      this.markDirty(worker);
      sim.worker.handleStimulus(...events);
    };
    if (wait <= 0) handle();
    else this.clock.setTimer(this.clock.now() + wait, handle);
  }

  private markDirty(worker: number): void {
    if (this.dirty[worker] === 0) {
      this.dirty[worker] = 1;
      this.dirtyCount++;
    }
    this.requestTick();
  }

  private requestTick(): void {
    if (this.tickTimer !== null) return;
    this.tickTimer = this.clock.setTimer(this.clock.now(), () => this.tick());
  }

  /** Delivers the scheduler's events, then runs the memory monitor of the workers that changed. */
  private tick(): void {
    this.tickTimer = null;
    this.scheduler.flush();
    if (this.dirtyCount === 0) return;
    // Checks can pause or unpause, which delivers events and marks workers again: those
    // wait for the next tick, so each worker is checked once per tick, in worker order.
    const dirty = this.dirty.slice();
    this.dirty.fill(0);
    this.dirtyCount = 0;
    for (let index = 0; index < dirty.length; index++) if (dirty[index] === 1) this.checkWorker(this.workers[index]!);
  }

  private checkWorker(sim: SimWorker): void {
    if (sim.died) return;
    const now = this.clock.now();
    if (this.cluster.memory.monitorInterval === 0) this.checkMemory(sim);
    else this.armMonitor(sim);
    // dask's find_missing: ask the scheduler again about dependencies nobody could serve.
    if (sim.findMissing === null && sim.worker.state.missingDepFlight.size > 0) {
      sim.findMissing = this.clock.setTimer(now + 1, () => {
        sim.findMissing = null;
        if (sim.died) return;
        sim.worker.handleStimulus(FindMissingEvent({ stimulusId: `find-missing-${this.clock.now()}` }));
        this.markDirty(sim.index);
      });
    }
  }

  /** The next periodic check of a worker that changed (dask's monitor runs every monitorInterval). */
  private armMonitor(sim: SimWorker): void {
    if (sim.monitor !== null) return;
    const interval = this.cluster.memory.monitorInterval;
    // The next tick of the monitor's period strictly after now (a float multiple can land on now).
    const now = this.clock.now();
    let at = (Math.floor(now / interval) + 1) * interval;
    if (at <= now) at += interval;
    sim.monitor = this.clock.setTimer(at, () => {
      sim.monitor = null;
      if (sim.died) return;
      this.checkMemory(sim);
      // A paused worker changes nothing by itself: the monitor keeps looking until it unpauses.
      if (sim.paused && !this.scheduler.done) this.armMonitor(sim);
    });
  }

  private checkMemory(sim: SimWorker): void {
    const now = this.clock.now();
    const { shouldPause, terminate, processMemory } = this.memory.check(sim.index, sim.worker, now);
    if (shouldPause !== sim.paused) {
      sim.paused = shouldPause;
      this.report.fault(now, shouldPause ? "pause" : "unpause", `${sim.address} process memory ${shouldPause ? "above" : "back below"} the pause fraction`);
      sim.worker.handleStimulus(shouldPause ? PauseEvent({ stimulusId: `pause-${now}` }) : UnpauseEvent({ stimulusId: `unpause-${now}` }));
      // dask's worker-status-change goes over the worker's stream like any other message.
      this.processes[sim.index]!.toScheduler.send(() => this.scheduler.setPaused(sim.index, shouldPause));
    }
    if (terminate) {
      this.kill(sim.index, `${sim.address} terminated by the nanny: process memory ${processMemory} bytes above the terminate fraction of its limit`);
    }
  }

  private progress(): void {
    this.lastActivity = this.clock.now();
    this.lastProgress = this.lastActivity;
    const onProgress = this.options.onProgress;
    if (onProgress === undefined) return;
    const done = this.graph.size - this.scheduler.unfinished;
    if (done < this.nextProgress && !this.scheduler.done) return;
    this.nextProgress = done + this.progressStep;
    onProgress({ done, total: this.graph.size, simulatedSeconds: this.clock.now() });
  }

  // ---- faults ----

  private kill(index: number, detail = `${this.workers[index]!.address} died`): void {
    const sim = this.workers[index]!;
    if (sim.died) return;
    const now = this.clock.now();
    this.report.fault(now, "worker-death", detail);
    // Its last sample: what it held when it died.
    this.memory.sample(index, sim.worker, now, true);
    sim.kill();
    this.processes[index]!.toWorker.close();
    this.processes[index]!.toScheduler.close();
    this.scheduler.removeWorker(index);
  }

  // ---- driving ----

  private watchdog(): void {
    if (this.scheduler.done) return;
    const now = this.clock.now();
    // A task computing or data moving is activity, however long it takes.
    for (const sim of this.workers) {
      if (!sim.died && (sim.worker.state.executingCount > 0 || sim.worker.state.inFlightTasksCount > 0)) this.lastActivity = now;
    }
    const onlyWatchdog = this.clock.pending === 0;
    if (onlyWatchdog || now - this.lastActivity >= this.stallTimeout) throw new StallSignal();
    this.clock.setTimer(now + Math.max(1, this.stallTimeout / 10), () => this.watchdog());
  }

  async execute(): Promise<SimResult> {
    for (const death of this.plan.deaths) this.clock.setTimer(death.at, () => this.kill(death.worker));
    this.scheduler.start();
    this.requestTick();
    this.clock.setTimer(Math.max(1, this.stallTimeout / 10), () => this.watchdog());
    try {
      await this.clock.run(this.options.signal === undefined ? {} : { signal: this.options.signal });
    } catch (error) {
      // A stall ends the run; the report names the unfinished tasks.
      if (!(error instanceof StallSignal) && this.scheduler.failure === null) throw error;
    }
    if (this.scheduler.failure !== null) throw new SimulationError(this.scheduler.failure.message, { cause: this.scheduler.failure });
    if (this.internalError !== null) {
      const error = this.internalError;
      throw new SimulationError(
        `internal error while simulating ${this.workload.name} (seed ${this.seed}): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const report = this.buildReport();
    if (this.options.validate === true) {
      const problems = threadTimeProblems(report);
      if (problems.length > 0) throw new SimulationError(`${problems.join("; ")} (${this.workload.name}, seed ${this.seed})`);
    }
    return { report, spanRecords: this.spanRecords };
  }

  private buildReport(): SimReport {
    const scheduler = this.scheduler;
    const graph = this.graph;
    const { completed, erred, lost } = taskCounts(scheduler, graph.size);
    const makespan = this.report.makespan();
    const end = this.report.lastEnd();
    for (const sim of this.workers) if (!sim.died) this.memory.sample(sim.index, sim.worker, end, true);
    const tasks = { total: graph.size, completed, erred, lost };
    const complete = lost === 0;
    const stuck = complete ? undefined : stuckTasks(scheduler, graph, this.workers);
    return this.report.build({
      schemaVersion: REPORT_SCHEMA_VERSION,
      workload: this.workload.name,
      seed: this.seed,
      workers: this.nworkers,
      threadsPerWorker: this.cluster.workers[0]!.nthreads,
      memoryLimit: this.cluster.workers[0]!.memoryLimit,
      network: this.networkKind,
      tasks,
      makespan,
      complete,
      completion: completionSentence(tasks, this.lastProgress, this.seed),
      stuck,
      scheduler: schedulerSummary(scheduler),
      steals: stealRecords(scheduler, graph, this.workers),
      workerStates: this.workers.map((sim, i) => {
        const shape = this.cluster.workers[i]!;
        const { loop, gil } = this.processes[i]!;
        return {
          worker: sim.worker,
          disk: sim.disk,
          died: sim.died,
          eventLoopSeconds: loop.busySeconds,
          ...(gil === undefined ? {} : { gilWaitSeconds: gil.waitSeconds }),
          ...(this.processes[i]!.gc === undefined ? {} : { gcSeconds: this.processes[i]!.gcSeconds }),
          ...(this.heterogeneous ? { memoryLimit: shape.memoryLimit } : {}),
          ...(shape.group === null ? {} : { group: shape.group }),
        };
      }),
      cluster: clusterSummary(this.cluster, this.scheduler.decisionSeconds, this.cpu?.summary() ?? null, this.schedulerGc === undefined ? null : this.schedulerGcSeconds),
      memory: this.memory,
    });
  }
}

class StallSignal extends Error {
  constructor() {
    super("simulation stalled");
  }
}
