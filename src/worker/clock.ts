// Clocks for the worker shell. Every time read in spanwork goes through a clock object, so
// the same Worker runs against real monotonic time (embedding) or a deterministic virtual
// time (simulation, tests). Nothing in spanwork reads Date.now() directly.
import { RankedMinHeap } from "../util/min-heap.js";
//
// A `WorkerClock` is structurally a spans `Clock` ({ now(): number }, seconds) plus the two
// ways of waiting the shell needs: `sleep` (a promise) and `setTimer` (a callback).

/** Handle of a scheduled timer. `cancel()` is idempotent and a no-op once fired. */
export interface TimerHandle {
  cancel(): void;
}

export interface WorkerClock {
  /** Seconds (float) on this clock's monotonic timeline. */
  now(): number;
  /**
   * Resolves `seconds` from now (negative or NaN counts as 0). When `signal` aborts first,
   * rejects with `signal.reason` and the underlying timer is cancelled.
   */
  sleep(seconds: number, signal?: AbortSignal): Promise<void>;
  /** Calls `callback` once at clock time `atSeconds` (a time already past fires as soon as possible). */
  setTimer(atSeconds: number, callback: () => void): TimerHandle;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function sleepOn(clock: WorkerClock, seconds: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const delay = seconds > 0 ? seconds : 0;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal as AbortSignal));
    };
    const timer = clock.setTimer(clock.now() + delay, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

// ---- real time --------------------------------------------------------------------------

/**
 * Monotonic real time in seconds (`performance.now()`, unaffected by wall-clock changes),
 * with Node timers behind `sleep`/`setTimer`. For embedding a Worker in a live process.
 */
export class RealClock implements WorkerClock {
  now(): number {
    return performance.now() / 1000;
  }

  sleep(seconds: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, seconds, signal);
  }

  setTimer(atSeconds: number, callback: () => void): TimerHandle {
    const delayMs = Math.max(0, (atSeconds - this.now()) * 1000);
    const handle = setTimeout(callback, delayMs);
    return { cancel: () => clearTimeout(handle) };
  }
}

// ---- virtual time -----------------------------------------------------------------------

export interface VirtualClockOptions {
  /** Initial time in seconds (default 0). */
  start?: number;
  /**
   * How the driver settles before each timer. "macrotask" (default): one event-loop turn
   * (`setImmediate`), so already-queued immediates and `process.nextTick` callbacks run too.
   * "microtasks": wait only until the microtask queue is empty (a `process.nextTick`, which
   * Node runs once the queue has drained), with no event-loop turn: about 1 µs cheaper per
   * timer, for drivers whose timer callbacks only use promises (the simulator). Immediates
   * and I/O callbacks then wait until the run returns.
   */
  settle?: "macrotask" | "microtasks";
}

export interface VirtualRunOptions {
  /**
   * Stop before the first timer due after `until` and leave the clock at `until` (it never
   * goes back: `until` earlier than `now()` is a RangeError). Default: run until no timer
   * is left.
   */
  until?: number;
  /** Safety valve: stop after this many timers fired (default Infinity). */
  maxSteps?: number;
  /** Called after each fired timer's consequences settled; `false` stops the run. */
  onStep?: (now: number) => boolean | void;
  /**
   * Stops the run: checked before each timer, `run` then rejects with `signal.reason`. In the
   * "microtasks" settle mode the driver also takes an event-loop turn now and then (every
   * ~20 ms of wall time), so that an abort from a signal handler, an I/O callback or a real
   * timer can happen at all.
   */
  signal?: AbortSignal;
}

// How often the "microtasks" driver lets the event loop run: the wall clock is read every
// YIELD_CHECK_STEPS timers (performance.now() costs ~40 ns, a step ~1 µs), and a turn is taken
// once YIELD_INTERVAL_MS have passed since the last one. A turn costs a few µs: ~0.01 % of a run.
const YIELD_CHECK_STEPS = 256;
const YIELD_INTERVAL_MS = 20;

export interface VirtualRunResult {
  /** Timers fired by this call. */
  steps: number;
  /** Clock time at return. */
  now: number;
  /** True when no timer is pending at return. */
  idle: boolean;
}

/**
 * Discrete-event time. `now()` only moves when the driver (`run`/`runUntilIdle`) fires the
 * next timer. Deterministic: timers fire in (time, insertion order); before each timer the
 * driver lets every pending microtask settle (`await new Promise(setImmediate)`), so the
 * consequences of one timer (promise continuations, new timers) are all in place before
 * time advances.
 *
 * Cost per step: one binary-heap pop, O(log n) in the number of pending timers, plus one
 * macrotask turn (setImmediate) for settling — about 1 µs on Node 20 (see docs/worker.md).
 * Cancelled timers are deleted lazily and the heap is compacted when more than half of it
 * is dead, so cancel is O(1) amortised.
 */
export class VirtualClock implements WorkerClock {
  #now: number;
  // Timers by (due time, insertion order): no object per timer besides the timer itself.
  readonly #heap = new RankedMinHeap<VirtualTimer>();
  #live = 0;
  #running = false;

  constructor(options: VirtualClockOptions = {}) {
    const start = options.start ?? 0;
    if (!Number.isFinite(start)) throw new RangeError(`VirtualClock start must be a finite number, got ${start}`);
    this.#now = start;
    const settle = options.settle ?? "macrotask";
    if (settle !== "macrotask" && settle !== "microtasks") {
      throw new RangeError(`VirtualClock settle must be "macrotask" or "microtasks", got ${JSON.stringify(settle)}`);
    }
    this.#settleOnTick = settle === "microtasks";
  }

  readonly #settleOnTick: boolean;

  now(): number {
    return this.#now;
  }

  /** Number of timers waiting to fire (cancelled ones excluded). */
  get pending(): number {
    return this.#live;
  }

  /** Time of the next live timer, or undefined when none is pending. */
  get nextTimerAt(): number | undefined {
    this.#dropCancelledTop();
    return this.#heap.peekRank();
  }

  // Same semantics as `sleepOn`, without a closure per sleep: the timer itself resolves the
  // promise and is the abort listener (`handleEvent`).
  sleep(seconds: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const at = this.#now + (seconds > 0 ? seconds : 0);
    return new Promise<void>((resolve, reject) => {
      const timer = new VirtualTimer(this.#owner, null);
      timer.resolve = resolve;
      timer.reject = reject;
      this.#schedule(at, timer);
      if (signal !== undefined) {
        timer.signal = signal;
        signal.addEventListener("abort", timer, { once: true });
      }
    });
  }

  setTimer(atSeconds: number, callback: () => void): TimerHandle {
    if (Number.isNaN(atSeconds)) throw new RangeError("VirtualClock.setTimer: time is NaN");
    const timer = new VirtualTimer(this.#owner, callback);
    this.#schedule(atSeconds, timer);
    return timer;
  }

  #schedule(atSeconds: number, timer: VirtualTimer): void {
    this.#heap.push(atSeconds < this.#now ? this.#now : atSeconds, timer);
    this.#live++;
  }

  // One object per clock through which its timers report a cancel (they cannot see private fields).
  readonly #owner: TimerOwner = {
    cancelled: () => {
      this.#live--;
      const heap = this.#heap;
      if (heap.size > 64 && this.#live * 2 < heap.size) heap.retain(isLive);
    },
  };

  /**
   * Lets every pending microtask settle without moving time (with the "macrotask" mode,
   * already-queued immediates and ticks too).
   */
  settle(): Promise<void> {
    // process.nextTick callbacks run only after V8 has drained the whole microtask queue,
    // including microtasks queued while draining.
    return new Promise<void>((resolve) => (this.#settleOnTick ? process.nextTick(resolve) : setImmediate(resolve)));
  }

  /**
   * Fires timers in order, settling microtasks before each one, until none is left, the
   * next one is due after `until`, `maxSteps` is reached or `onStep` returns false.
   * A timer callback that throws stops the run and rejects with that error.
   */
  async run(options: VirtualRunOptions = {}): Promise<VirtualRunResult> {
    const until = options.until ?? Infinity;
    if (Number.isNaN(until)) throw new RangeError("VirtualClock.run: until is NaN");
    if (until < this.#now) {
      throw new RangeError(`VirtualClock refuses to go back in time: until ${until} < now ${this.#now}`);
    }
    const maxSteps = options.maxSteps ?? Infinity;
    const signal = options.signal;
    if (this.#running) throw new Error("VirtualClock.run is already running; await the first run");
    this.#running = true;
    let steps = 0;
    let stoppedEarly = false;
    let sinceCheck = 0;
    let lastTurn = performance.now();
    try {
      for (;;) {
        await this.settle();
        if (this.#settleOnTick && ++sinceCheck === YIELD_CHECK_STEPS) {
          sinceCheck = 0;
          if (performance.now() - lastTurn >= YIELD_INTERVAL_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            lastTurn = performance.now();
          }
        }
        if (signal?.aborted) throw abortReason(signal);
        if (steps >= maxSteps) {
          stoppedEarly = true;
          break;
        }
        this.#dropCancelledTop();
        const at = this.#heap.peekRank();
        if (at === undefined || at > until) break;
        const timer = this.#heap.pop()!;
        this.#live--;
        this.#now = at;
        steps++;
        timer.fire();
        if (options.onStep !== undefined) {
          await this.settle();
          if (options.onStep(this.#now) === false) {
            stoppedEarly = true;
            break;
          }
        }
      }
      // Nothing is left before `until`: time passes to it.
      if (!stoppedEarly && until !== Infinity && until > this.#now) this.#now = until;
    } finally {
      this.#running = false;
    }
    return { steps, now: this.#now, idle: this.#live === 0 };
  }

  /** `run()` until no timer is left. */
  runUntilIdle(options: Omit<VirtualRunOptions, "until"> = {}): Promise<VirtualRunResult> {
    return this.run(options);
  }

  #dropCancelledTop(): void {
    const heap = this.#heap;
    while (heap.size > 0 && heap.peek()!.cancelled) heap.pop();
  }
}

const isLive = (timer: VirtualTimer): boolean => !timer.cancelled;

interface TimerOwner {
  cancelled(): void;
}

/**
 * A pending timer of a VirtualClock: its heap slot, its handle, and — for a sleep — the
 * promise's settle functions and its abort listener.
 */
class VirtualTimer implements TimerHandle {
  cancelled = false;
  done = false;
  resolve: (() => void) | null = null;
  reject: ((reason: unknown) => void) | null = null;
  signal: AbortSignal | null = null;
  readonly #owner: TimerOwner;
  #callback: (() => void) | null;

  constructor(owner: TimerOwner, callback: (() => void) | null) {
    this.#owner = owner;
    this.#callback = callback;
  }

  /** Called by the clock when the timer is due (never after cancel). */
  fire(): void {
    this.done = true;
    const callback = this.#callback;
    if (callback !== null) {
      this.#callback = null;
      callback();
      return;
    }
    this.signal?.removeEventListener("abort", this);
    const resolve = this.resolve as () => void;
    this.resolve = this.reject = null;
    resolve();
  }

  cancel(): void {
    if (this.done || this.cancelled) return;
    this.cancelled = true;
    this.#callback = null;
    this.#owner.cancelled();
  }

  /** The abort listener of a sleep: cancel the timer, reject with the signal's reason. */
  handleEvent(): void {
    if (this.done || this.cancelled) return;
    this.cancel();
    const reject = this.reject as (reason: unknown) => void;
    this.resolve = this.reject = null;
    reject(abortReason(this.signal as AbortSignal));
  }
}
