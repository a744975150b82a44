// The scheduler's event loop as a cost model: one thread, so each decision and each message
// batch it reads or writes waits for what was booked before it, and a worker's batches leave
// in order. The overheads' schedulerDecision and schedulerMessage (docs/sim.md, "Overheads").
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

  /** Books a batch of `decisions` tasks to `worker` at `now` and says when it leaves. */
  departure(worker: number, decisions: number, now: number): number {
    this.book(decisions * this.decisionCost + this.messageCost, now);
    const leaves = Math.max(this.busyUntil, this.lastDeparture[worker]!);
    this.lastDeparture[worker] = leaves;
    return leaves;
  }
}
