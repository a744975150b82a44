// One worker process's interpreter lock (CPython's GIL): the CPU parts of its running tasks
// that hold it (a task group's `gil: true`) share it. CPython hands the lock over every switch
// interval (5 ms) to a thread that asks for it, so over a task's ~0.1 s and longer the holders
// progress together: an exact fluid processor-sharing queue, n holders each at s / n, where s
// is the share of a core the one thread running Python gets (1 without a host model). Unlike
// the host model (host-cpu.ts), the ends are recomputed whenever a holder arrives or leaves,
// so the lock never runs more than one CPU second per second. docs/sim.md, "Tasks that hold the GIL".
import type { TimerHandle, WorkerClock } from "../worker/clock.js";
import type { HostCpu } from "./host-cpu.js";

/** CPU seconds below which a holder counts as done: float rounding of its progress, not work. */
const DONE = 1e-12;

interface Holder {
  /** CPU seconds still to run. */
  left: number;
  readonly cpu: number;
  readonly start: number;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
  readonly onEnd: ((cpuDone: number) => void) | undefined;
}

export class Gil {
  private holders: Holder[] = [];
  /** When `rate` was last applied to the holders' `left`. */
  private last = 0;
  /** CPU seconds per second each holder progresses at, since `last`. */
  private rate = 1;
  private timer: TimerHandle | null = null;
  /** Wall seconds less CPU seconds of the parts that held it (their `thread-noncpu` holds it). */
  waitSeconds = 0;

  /**
   * `share(now)`: the share of a core the thread running Python gets at `now` (the host model's; 1 without it).
   * `onBusy`: hears that the lock's thread wakes (a first holder) or sleeps (the last one left).
   */
  constructor(
    private readonly clock: WorkerClock,
    private readonly share: (now: number) => number = () => 1,
    private readonly onBusy?: () => void,
  ) {}

  /** Running parts that hold or wait for the lock. */
  get holding(): number {
    return this.holders.length;
  }

  /**
   * Runs `cpu` CPU seconds under the lock; resolves when they are done, rejects when `signal`
   * aborts first. `onEnd` hears, just before either, how many CPU seconds the part ran: all of
   * them, or on an abort what it got of the lock until then.
   */
  run(cpu: number, signal: AbortSignal, onEnd?: (cpuDone: number) => void): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const now = this.clock.now();
      this.advance(now);
      const holder: Holder = { left: cpu, cpu, start: now, resolve, reject, signal, onAbort: () => this.abort(holder), onEnd };
      signal.addEventListener("abort", holder.onAbort, { once: true });
      this.holders.push(holder);
      this.rearm(now);
      if (this.holders.length === 1) this.onBusy?.();
    });
  }

  /** Applies the progress since `last` at the rate that held since. */
  private advance(now: number): void {
    const done = (now - this.last) * this.rate;
    this.last = now;
    if (done <= 0) return;
    for (const holder of this.holders) holder.left -= done;
  }

  /** The rate from `now` on and the timer of the next holder to finish. */
  private rearm(now: number): void {
    this.timer?.cancel();
    this.timer = null;
    const n = this.holders.length;
    if (n === 0) return;
    this.rate = this.share(now) / n;
    let least = Infinity;
    for (const holder of this.holders) least = Math.min(least, holder.left);
    this.timer = this.clock.setTimer(now + Math.max(0, least) / this.rate, () => this.finish());
  }

  private finish(): void {
    this.timer = null;
    const now = this.clock.now();
    const rate = this.rate;
    this.advance(now);
    const done: Holder[] = [];
    const left: Holder[] = [];
    // Done too: a rest too small to move the clock (late in a long run, a float's step is coarse), which would re-arm at `now` for ever.
    for (const holder of this.holders) (holder.left <= DONE * Math.max(1, holder.cpu) || now + holder.left / rate <= now ? done : left).push(holder);
    this.holders = left;
    this.rearm(now);
    if (left.length === 0 && done.length > 0) this.onBusy?.();
    for (const holder of done) {
      holder.signal.removeEventListener("abort", holder.onAbort);
      this.waitSeconds += Math.max(0, now - holder.start - holder.cpu);
      holder.onEnd?.(holder.cpu);
      holder.resolve();
    }
  }

  private abort(holder: Holder): void {
    const i = this.holders.indexOf(holder);
    if (i < 0) return;
    const now = this.clock.now();
    this.advance(now);
    this.holders.splice(i, 1);
    const cpuDone = Math.min(holder.cpu, holder.cpu - holder.left);
    this.waitSeconds += Math.max(0, now - holder.start - cpuDone);
    this.rearm(now);
    if (this.holders.length === 0) this.onBusy?.();
    holder.onEnd?.(cpuDone);
    holder.reject(holder.signal.reason);
  }
}

/**
 * A worker's GIL. With a host model, the one thread running Python at a time is a thread of the
 * host, runnable while any part holds the lock: the lock runs at its share of a core, and the
 * host counts it beside the loops and the other CPU parts.
 */
export function workerGil(clock: WorkerClock, hostCpu: HostCpu | undefined): Gil {
  if (hostCpu === undefined) return new Gil(clock);
  const gil: Gil = new Gil(
    clock,
    (now: number): number => hostCpu.share(hostCpu.others(thread, now)),
    () => hostCpu.changed(),
  );
  const thread = hostCpu.thread((): boolean => gil.holding > 0);
  return gil;
}
