// The cores of one host, shared by the cluster's threads there (each worker's event loop, the
// scheduler's loop, tasks' CPU parts) and by other jobs' runnable threads (`load`). Linux's fair
// scheduler gives a thread that stays runnable its fair share of the cores; a thread that wakes
// after sleeping is placed where it runs at once, so a short burst is not slowed. As a fluid
// model, per thread: a credit (CPU seconds it may run ahead of the others at full speed) that it
// earns back while it sleeps, up to `credit`, and spends while it runs ahead of them; once it is
// spent the thread runs at its fair share, min(1, cores / (load + runnable threads)).
// A piece of work's speed is computed when it starts (as the host disk does): later pieces never
// change an earlier one's end. docs/sim.md, "Host CPU".
import type { ResolvedHost } from "./cluster.js";
import type { HostSummary } from "./report.js";

/** The host model's parameters (a cluster's `host` section, resolved). */
export interface HostCpuParameters {
  /** Cores of each host. */
  readonly cores: number;
  /** Other jobs' runnable threads on each host (a load average). */
  readonly load: number;
  /** CPU seconds a thread that slept long enough may run at full speed before it falls to its share. */
  readonly credit: number;
}

/** The kernel's logarithmic tunable scaling: 1 + log2 min(cores, 8). */
function scaling(cores: number): number {
  return 1 + Math.floor(Math.log2(Math.min(Math.max(cores, 1), 8)));
}

/**
 * The default credit: one base slice of EEVDF, Linux's fair scheduler since 6.6 (the fidelity
 * machine runs 6.18), 0.75 ms × scaling — a thread that wakes with no lag is eligible at once
 * and runs its slice. fidelity/tools/cpu_share.py measures it (docs/sim.md, "Host CPU").
 */
export function eevdfCredit(cores: number): number {
  return 0.00075 * scaling(cores);
}

/** CFS's sleeper credit (kernels before 6.6): half of sched_latency, 6 ms × scaling. */
export function cfsCredit(cores: number): number {
  return (0.006 * scaling(cores)) / 2;
}

export class HostCpu {
  private readonly threads: CpuThread[] = [];
  /** End times of the CPU parts of tasks running on this host (few: one per executor thread at most). */
  private cpuParts: number[] = [];
  /** Seconds task CPU parts waited for a core, all of this host's. */
  taskWaitSeconds = 0;

  constructor(readonly parameters: HostCpuParameters) {}

  /** A thread of the cluster on this host (an event loop); `busy` says when it is runnable for reasons of its own (e.g. moving bytes). */
  thread(busy?: (now: number) => boolean): CpuThread {
    const thread = new CpuThread(this, busy);
    this.threads.push(thread);
    return thread;
  }

  /** Runnable threads at `now` besides `self`: other jobs' load, this host's busy loops and running CPU parts. */
  others(self: CpuThread | null, now: number): number {
    let n = this.parameters.load;
    for (const thread of this.threads) if (thread !== self && thread.busyAt(now)) n++;
    for (const end of this.cpuParts) if (end > now) n++;
    return n;
  }

  /** Fair share of a thread with `others` runnable beside it. */
  share(others: number): number {
    return Math.min(1, this.parameters.cores / (others + 1));
  }

  /**
   * How long `cpu` seconds of a task's CPU part take from `now` (a thread of its own, which slept
   * before: it starts with the full credit). The excess over `cpu` is its wait for a core.
   */
  cpuPart(cpu: number, now: number): number {
    if (cpu <= 0) return 0;
    this.cpuParts = this.cpuParts.filter((end) => end > now);
    const wall = runFor(this.parameters, this.others(null, now), this.parameters.credit, cpu).wall;
    this.cpuParts.push(now + wall);
    this.taskWaitSeconds += wall - cpu;
    return wall;
  }
}

/** One thread's run of `cpu` seconds with `others` runnable beside it and `credit` to spend. */
function runFor(p: HostCpuParameters, others: number, credit: number, cpu: number): { wall: number; credit: number } {
  const share = Math.min(1, p.cores / (others + 1));
  if (share >= 1) return { wall: cpu, credit };
  // While it runs at full speed on one core, each of the others progresses at (cores - 1) / others:
  // its lead over them (the credit) shrinks by the difference.
  const spend = 1 - Math.min(1, (p.cores - 1) / others);
  const atFull = credit / spend;
  if (cpu <= atFull) return { wall: cpu, credit: credit - spend * cpu };
  return { wall: atFull + (cpu - atFull) / share, credit: 0 };
}

/**
 * A serial thread of the host (an event loop): `run(start, cpu)` books `cpu` seconds of work
 * that arrives at `start`, after what is booked, and returns when it is done.
 */
export class CpuThread {
  private freeAt = 0;
  private credit: number;
  /** Seconds its work waited for a core (wall less CPU), for the report. */
  waitSeconds = 0;

  constructor(
    private readonly host: HostCpu,
    private readonly busy?: (now: number) => boolean,
  ) {
    this.credit = host.parameters.credit;
  }

  busyAt(now: number): boolean {
    return this.freeAt > now || (this.busy !== undefined && this.busy(now));
  }

  /** Its fair share at `now` if it were runnable (the network scales a loop's capacity by it). */
  shareAt(now: number): number {
    return this.host.share(this.host.others(this, now));
  }

  run(start: number, cpu: number): number {
    const p = this.host.parameters;
    const begin = Math.max(start, this.freeAt);
    const others = this.host.others(this, begin);
    // Asleep since freeAt: it earns its credit back a second per second slept, up to the cap
    // (cpu_share.py: 1 ms bursts 1 ms apart ran at full speed under a load that gave a busy
    // thread a tenth of a core).
    if (begin > this.freeAt) this.credit = Math.min(p.credit, this.credit + (begin - this.freeAt));
    const { wall, credit } = runFor(p, others, this.credit, cpu);
    this.credit = credit;
    this.waitSeconds += wall - cpu;
    this.freeAt = begin + wall;
    return this.freeAt;
  }
}

/**
 * The cores of a run's hosts: one HostCpu per host its workers fill, each worker's loop thread
 * (busy also while the network moves its bytes) and the scheduler loop's thread on its host.
 */
export class ClusterCpu {
  private readonly hosts = new Map<number, HostCpu>();
  /** Per worker, in order: its event loop's thread. */
  readonly loopThreads: CpuThread[] = [];
  readonly schedulerThread: CpuThread | null;

  constructor(
    private readonly parameters: ResolvedHost,
    workerHosts: readonly number[],
    moving: (worker: number) => boolean,
  ) {
    workerHosts.forEach((host, worker) => this.loopThreads.push(this.host(host).thread(() => moving(worker))));
    this.schedulerThread = parameters.schedulerHost === null ? null : this.host(parameters.schedulerHost).thread();
  }

  /** The cores of host `index`. */
  host(index: number): HostCpu {
    let host = this.hosts.get(index);
    if (host === undefined) this.hosts.set(index, (host = new HostCpu(this.parameters)));
    return host;
  }

  summary(): HostSummary {
    let tasks = 0;
    for (const host of this.hosts.values()) tasks += host.taskWaitSeconds;
    const { cores, load, credit, schedulerHost } = this.parameters;
    return {
      cores,
      load,
      credit,
      schedulerHost,
      coreWaitSeconds: { scheduler: this.schedulerThread?.waitSeconds ?? 0, eventLoops: this.loopThreads.map((thread) => thread.waitSeconds), tasks },
    };
  }
}
