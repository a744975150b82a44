// The scheduler's event loop as a cost model: one thread, so each decision and each message
// batch it reads or writes waits for what was booked before it; what one stimulus sends leaves
// once all of it is decided, and a worker's batches leave in order. The overheads' schedulerDecision and schedulerMessage (docs/sim.md, "Overheads").
/** The thread a loop runs on, on a host with a CPU model (src/sim/host-cpu.ts's CpuThread): it books CPU seconds arriving at `start`, after its queue, and says when they are done. */
export interface LoopThread {
  run(start: number, cpu: number): number;
}

export class SchedulerLoop {
  /** When the loop is done with what was booked so far. */
  private busyUntil = 0;
  /** Per worker: when its latest batch left. */
  private readonly lastDeparture: Float64Array;
  /** Seconds booked on the loop: decisions, and message batches read and written. */
  bookedSeconds = 0;

  constructor(
    workers: number,
    /** Seconds per task sent (its decision and its part of the message). */
    readonly decisionCost: number,
    /** Seconds per message batch written to a worker. */
    readonly messageCost: number,
    /** The loop's thread on a host with a CPU model; null: booked seconds take as long as they are. */
    private readonly thread: LoopThread | null = null,
  ) {
    this.lastDeparture = new Float64Array(workers);
  }

  /** Whether the loop costs anything: without costs, and nothing booked (a garbage collection), batches leave at once. */
  get free(): boolean {
    return this.decisionCost === 0 && this.messageCost === 0 && this.bookedSeconds === 0;
  }

  /** Books `seconds` at time `now` (after what is booked already); returns how long from now until it is done. */
  book(seconds: number, now: number): number {
    if (seconds > 0) {
      this.busyUntil = this.thread === null ? Math.max(this.busyUntil, now) + seconds : this.thread.run(now, seconds);
      this.bookedSeconds += seconds;
    }
    return Math.max(0, this.busyUntil - now);
  }

  /**
   * Books one stimulus's output at `now` — `decisions` tasks sent and `batches` batches written —
   * and says when it is done: every batch it wrote leaves then (`leave`), as dask's `send_all`
   * only queues on the BatchedSends, which write once the handler has returned.
   */
  stimulus(decisions: number, batches: number, now: number): number {
    this.book(decisions * this.decisionCost + batches * this.messageCost, now);
    return Math.max(this.busyUntil, now);
  }

  /** When `worker`'s batch, done at `done`, leaves: not before its previous batch (a stream is in order). */
  leave(worker: number, done: number): number {
    const leaves = Math.max(done, this.lastDeparture[worker]!);
    this.lastDeparture[worker] = leaves;
    return leaves;
  }
}
