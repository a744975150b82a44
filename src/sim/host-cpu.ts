// The cores of one host, shared by the cluster's threads there (each worker's event loop, the
// scheduler's loop, tasks' CPU parts) and by other jobs' runnable threads (`load`). Linux's fair
// scheduler (EEVDF since 6.6) gives a thread that stays runnable its fair share of the cores,
// s = min(1, cores / (load + runnable threads)); what a short burst waits depends on the thread's
// lag, the service it is owed less what it received on its core's run queue, a fluid version of
// EEVDF's (rule `lag`, the default): it falls while the thread runs at full speed and rises while
// it waits or sleeps owing; a thread that wakes owing waits to be repaid, and for the core. The rule before it
// (`credit`: a full-speed credit earned back a second per second asleep) stays for comparison.
// A piece of work's speed is computed when it starts (as the host disk does): later pieces never
// change an earlier one's end. docs/sim.md, "Host CPU".
import type { WorkerClock } from "../worker/clock.js";
import type { ResolvedHost } from "./cluster.js";
import type { HostSummary } from "./report.js";

/** How a thread that wakes is treated: EEVDF's lag (the default) or the sleeper credit before it. */
export const HOST_CPU_RULES = ["lag", "credit"] as const;
export type HostCpuRule = (typeof HOST_CPU_RULES)[number];

/** The host model's parameters (a cluster's `host` section, resolved). */
export interface HostCpuParameters {
  /** Cores of each host. */
  readonly cores: number;
  /** Other jobs' runnable threads on each host (a load average). */
  readonly load: number;
  readonly rule: HostCpuRule;
  /** `lag`: CPU seconds an eligible thread runs at full speed once it has the core (EEVDF's base slice). */
  readonly slice: number;
  /** `credit`: CPU seconds a thread that slept long enough may run at full speed before it falls to its share. */
  readonly credit: number;
}

/** The kernel's logarithmic tunable scaling: 1 + log2 min(cores, 8). */
function scaling(cores: number): number {
  return 1 + Math.floor(Math.log2(Math.min(Math.max(cores, 1), 8)));
}

/**
 * One base slice of EEVDF, Linux's fair scheduler since 6.6 (the fidelity machine runs 6.18):
 * 0.75 ms × scaling (sysctl_sched_base_slice). The `lag` rule's slice and the `credit` rule's
 * default credit; fidelity/tools/cpu_share.py measures it (docs/sim.md, "Host CPU").
 */
export function eevdfSlice(cores: number): number {
  return 0.00075 * scaling(cores);
}

/** The `credit` rule's default: one EEVDF base slice (eevdfSlice). */
export const eevdfCredit = eevdfSlice;

/** CFS's sleeper credit (kernels before 6.6): half of sched_latency, 6 ms × scaling. */
export function cfsCredit(cores: number): number {
  return (0.006 * scaling(cores)) / 2;
}

/** A thread's scheduling state under the `lag` rule. */
interface LagState {
  /** CPU seconds owed less received (negative: it ran ahead of its share). */
  lag: number;
  /** CPU seconds left of its current slice at full speed. */
  sliceLeft: number;
}

/**
 * The `lag` rule: wall seconds of `cpu` seconds of work, after a sleep of `slept` seconds (null:
 * the thread stayed runnable, its slice goes on); `q` is its share on its core's run queue,
 * which its lag moves by, `s` its share of the host, which work beyond its slice runs at.
 * Updates `state`.
 *
 * Asleep, a thread that owes (lag < 0) stays queued (DELAY_DEQUEUE, kernel 6.12+) and is repaid
 * at q; once repaid it leaves the queue, owing nothing (DELAY_ZERO), at the first pick on its
 * core — the running thread's slice end, one slice apart, at a phase the fluid cannot know: over
 * a uniform phase it is gone by its wake with probability τ / slice (τ: repaid that long before),
 * else it is still queued where it was and gets the core at the next slice end, (slice − τ) / 2
 * later on average; the rule takes the expected wait, (slice − τ)² / (2 slice). A thread still
 * owing at its wake waits to be repaid, then half a slice for the pick. Waiting, it earns lag at
 * q (kept across a sleep: PLACE_LAG). One that left the queue wakes eligible and runs at once
 * (cpu_share.py: 1 ms bursts after 20 ms of sleep never waited). Once it has the core it runs
 * its slice at full speed, its lag falling at 1 − q; the rest runs at s, the average of EEVDF's
 * wait-and-slice turns once the load balancer has evened the queues out.
 */
function lagRun(slice: number, q: number, s: number, state: LagState, slept: number | null, cpu: number): number {
  if (q >= 1) {
    state.lag = 0;
    state.sliceLeft = slice;
    return cpu;
  }
  let wait = 0;
  if (slept !== null) {
    if (state.lag < 0) {
      const repaid = -state.lag / q;
      if (slept < repaid) wait = repaid - slept + slice / 2;
      else if (slept - repaid < slice) wait = (slice - (slept - repaid)) ** 2 / (2 * slice);
      state.lag = q * wait - (slept < repaid ? (repaid - slept) * q : 0);
    }
    state.sliceLeft = slice;
  }
  const full = Math.min(cpu, state.sliceLeft);
  state.sliceLeft -= full;
  state.lag -= (1 - q) * full;
  return wait + full + (cpu - full) / s;
}

/** The `credit` rule: one thread's run of `cpu` seconds with `others` runnable beside it and `credit` to spend. */
function creditRun(p: HostCpuParameters, others: number, credit: number, cpu: number): { wall: number; credit: number } {
  const share = Math.min(1, p.cores / (others + 1));
  if (share >= 1) return { wall: cpu, credit };
  // While it runs at full speed on one core, each of the others progresses at (cores - 1) / others:
  // its lead over them (the credit) shrinks by the difference.
  const spend = 1 - Math.min(1, (p.cores - 1) / others);
  const atFull = credit / spend;
  if (cpu <= atFull) return { wall: cpu, credit: credit - spend * cpu };
  return { wall: atFull + (cpu - atFull) / share, credit: 0 };
}

export class HostCpu {
  private readonly threads: CpuThread[] = [];
  /** End times of the CPU parts of tasks running on this host (few: one per executor thread at most). */
  private cpuParts: number[] = [];
  /** Seconds task CPU parts waited for a core, all of this host's. */
  taskWaitSeconds = 0;
  /**
   * `changed` hears that this host's runnable threads change now (a CPU part starts, the GIL's
   * thread wakes or sleeps) and, with `until`, again then (the part's end): ClusterCpu.watch.
   */
  constructor(
    readonly parameters: HostCpuParameters,
    readonly changed: (until?: number) => void = () => {},
  ) {}

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
   * Share of a thread on its core's run queue, with `others` runnable on the host: EEVDF keeps
   * lag per run queue (each CPU's), and a thread that wakes stays on its core for a while (the
   * load balancer evens the queues out over longer times: `share`). The others spread evenly:
   * with every core busy (others ≥ cores) others / cores of them share its core; with one core
   * free only part of the time (cores − 1 ≤ others < cores) the part beyond cores − 1 does;
   * with a core free, none.
   */
  queueShare(others: number): number {
    const cores = this.parameters.cores;
    const beside = others >= cores ? others / cores : Math.max(0, others - (cores - 1));
    return Math.min(this.share(others), 1 / (1 + beside));
  }

  /**
   * How long `cpu` seconds of a task's CPU part take from `now` (a thread of its own that slept
   * long before: no lag, a fresh slice; or the full credit). The excess over `cpu` is its wait for a core.
   */
  cpuPart(cpu: number, now: number): number {
    if (cpu <= 0) return 0;
    this.cpuParts = this.cpuParts.filter((end) => end > now);
    const p = this.parameters;
    const others = this.others(null, now);
    const wall = p.rule === "lag" ? lagRun(p.slice, this.queueShare(others), this.share(others), { lag: 0, sliceLeft: p.slice }, null, cpu) : creditRun(p, others, p.credit, cpu).wall;
    this.cpuParts.push(now + wall);
    this.taskWaitSeconds += wall - cpu;
    this.changed(now + wall);
    return wall;
  }
}

/**
 * A serial thread of the host (an event loop): `run(start, cpu)` books `cpu` seconds of work
 * that arrives at `start`, after what is booked, and returns when it is done.
 */
export class CpuThread {
  private freeAt = 0;
  private credit: number;
  private readonly state: LagState;
  /** Seconds its work waited for a core (wall less CPU), for the report. */
  waitSeconds = 0;

  constructor(
    private readonly host: HostCpu,
    private readonly busy?: (now: number) => boolean,
  ) {
    this.credit = host.parameters.credit;
    this.state = { lag: 0, sliceLeft: host.parameters.slice };
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
    let wall: number;
    if (p.rule === "lag") {
      wall = lagRun(p.slice, this.host.queueShare(others), this.host.share(others), this.state, begin > this.freeAt ? begin - this.freeAt : null, cpu);
    } else {
      // Asleep since freeAt: it earns its credit back a second per second slept, up to the cap.
      if (begin > this.freeAt) this.credit = Math.min(p.credit, this.credit + (begin - this.freeAt));
      const run = creditRun(p, others, this.credit, cpu);
      this.credit = run.credit;
      wall = run.wall;
    }
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
  private watcher: ((until?: number) => void) | null = null;

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
    if (host === undefined) this.hosts.set(index, (host = new HostCpu(this.parameters, (until) => this.watcher?.(until))));
    return host;
  }

  /**
   * Calls `recompute` whenever a host's runnable threads change through a CPU part (as it
   * starts and at its end) or the GIL's thread: the network scales the loops' byte capacity by
   * their share of the cores (`loopShare`), which would otherwise hold from one flow's start or
   * end to the next. Loop bookings do not call it (see docs/sim.md, "Tasks that build their output").
   */
  watch(clock: WorkerClock, recompute: () => void): void {
    this.watcher = (until?: number): void => {
      recompute();
      if (until !== undefined && until > clock.now()) clock.setTimer(until, recompute);
    };
  }

  summary(): HostSummary {
    let tasks = 0;
    for (const host of this.hosts.values()) tasks += host.taskWaitSeconds;
    const { cores, load, rule, slice, credit, schedulerHost } = this.parameters;
    return {
      cores,
      load,
      rule,
      slice,
      credit,
      schedulerHost,
      coreWaitSeconds: { scheduler: this.schedulerThread?.waitSeconds ?? 0, eventLoops: this.loopThreads.map((thread) => thread.waitSeconds), tasks },
    };
  }
}
