// The simulator's control plane: what scheduler ↔ worker messages cost on the way. A
// `BatchedLink` is one direction of one stream — dask's `BatchedSend` (at most one write
// per interval; a message sent after a quiet interval goes at once) followed by a one-way
// wire latency. A `SerialLoop` is a single-threaded event loop (a worker's, the scheduler's):
// every stimulus it handles costs it time, one after the other. docs/sim.md, "Overheads".
import type { WorkerClock } from "../worker/clock.js";
import type { CpuThread } from "./host-cpu.js";
import type { EventLoopModel } from "../worker/types.js";

/**
 * One direction of a batched stream. `send(thunk)` queues a delivery; the buffer is
 * written when the stream's interval since its previous write has passed (at once when it
 * has), and every write arrives `latency` seconds later, its thunks run in order. With
 * interval and latency 0, `send` runs the thunk at once.
 */
export class BatchedLink {
  private buffer: Array<() => void> = [];
  /** Earliest time of the next write: the previous write + interval (−∞ before the first). */
  private nextWrite = Number.NEGATIVE_INFINITY;
  private timerSet = false;
  private closed = false;

  /**
   * `arrival`: how an arrived batch is run (default: at once); the receiver's loop may charge for reading it.
   * `heldUntil(now)`: until when the sender's loop cannot write (a garbage collection stops it,
   * gc.ts); a write due before then goes out at that time, with everything sent meanwhile.
   */
  constructor(
    private readonly clock: WorkerClock,
    private readonly interval: number,
    private readonly latency: number,
    private readonly arrival: (run: () => void) => void = (run) => run(),
    private readonly heldUntil?: (now: number) => number,
  ) {}

  send(thunk: () => void): void {
    if (this.closed) return;
    if (this.interval === 0 && this.latency === 0 && this.heldUntil === undefined) {
      this.arrival(thunk);
      return;
    }
    this.buffer.push(thunk);
    const now = this.clock.now();
    if (now >= this.nextWrite) this.writeOrWait(now);
    // Within the interval: the buffer goes out when it ends, with everything sent meanwhile.
    else this.waitUntil(this.nextWrite);
  }

  private writeOrWait(now: number): void {
    const held = this.heldUntil === undefined ? 0 : this.heldUntil(now);
    if (held > now) this.waitUntil(held);
    else this.write(now);
  }

  private waitUntil(at: number): void {
    if (this.timerSet) return;
    this.timerSet = true;
    this.clock.setTimer(at, () => {
      this.timerSet = false;
      if (!this.closed && this.buffer.length > 0) this.writeOrWait(this.clock.now());
    });
  }

  /** The stream is gone (its worker died): nothing queued or in flight arrives. */
  close(): void {
    this.closed = true;
    this.buffer = [];
  }

  private write(now: number): void {
    const batch = this.buffer;
    this.buffer = [];
    this.nextWrite = now + this.interval;
    const run = (): void => {
      if (this.closed) return;
      for (const thunk of batch) thunk();
    };
    const arrive = (): void => this.arrival(run);
    if (this.latency === 0) arrive();
    else this.clock.setTimer(now + this.latency, arrive);
  }
}

/**
 * A single-threaded event loop: work booked on it is served in arrival order, one piece at a
 * time. `reserve(seconds)` books work arriving now and says how long until it is done;
 * `handlingDelay()` books one done event (`doneCost`), as a Worker's EventLoopModel, and
 * `messagesDelay(n)` n message ops (`messageCost`). A cost is seconds, or a function giving
 * each event's seconds (drawn from a distribution; for message ops, the n ops' together). On
 * a host with a CPU model (`cpu`), booked seconds are CPU seconds and the thread's share of the
 * cores decides how long they take (host-cpu.ts).
 */
export class SerialLoop implements EventLoopModel {
  private freeAt = 0;
  /** Seconds this loop spent on booked work (for the report). */
  busySeconds = 0;
  private readonly doneSeconds: () => number;
  private readonly messageSeconds: (ops: number) => number;

  constructor(
    private readonly clock: WorkerClock,
    doneCost: number | (() => number) = 0,
    messageCost: number | ((ops: number) => number) = 0,
    private readonly cpu: CpuThread | null = null,
  ) {
    this.doneSeconds = typeof doneCost === "number" ? () => doneCost : doneCost;
    this.messageSeconds = typeof messageCost === "number" ? (ops) => ops * messageCost : messageCost;
  }

  reserve(seconds: number): number {
    const now = this.clock.now();
    // Work that costs nothing still waits its turn behind what is booked.
    if (seconds <= 0) return this.freeAt > now ? this.freeAt - now : 0;
    this.freeAt = this.cpu === null ? Math.max(this.freeAt, now) + seconds : this.cpu.run(now, seconds);
    this.busySeconds += seconds;
    return this.freeAt - now;
  }

  handlingDelay(): number {
    return this.reserve(this.doneSeconds());
  }

  messagesDelay(ops: number): number {
    return this.reserve(this.messageSeconds(ops));
  }

  idleIn(): number {
    return this.reserve(0);
  }
}
