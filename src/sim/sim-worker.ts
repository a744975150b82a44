// One worker of a simulated cluster: the real Worker with its virtual disk, and what the run
// keeps about it (dead, paused, the pending find-missing timer).
import type { TimerHandle } from "../worker/clock.js";
import type { Worker } from "../worker/worker.js";
import type { VirtualDisk } from "./disk.js";
import type { SimTransport } from "./transport.js";

export class SimWorker {
  died = false;
  paused = false;
  /** dask's find_missing, one second after dependencies went missing (null when none is due). */
  findMissing: TimerHandle | null = null;
  /** The memory monitor's next check (null when none is due). */
  monitor: TimerHandle | null = null;

  constructor(
    readonly index: number,
    readonly address: string,
    readonly worker: Worker,
    readonly disk: VirtualDisk,
    private readonly transport: SimTransport,
  ) {}

  /**
   * The worker dies: its pending find-missing is dropped, its connections drop first (so peers
   * see a network failure, not a shutdown), then it closes as killed (running tasks end as
   * `killed`, its thread slots are `idle/dead` for the rest of the run) and its disk is
   * wiped. The scheduler is told by the caller.
   */
  kill(): void {
    if (this.died) return;
    this.died = true;
    this.findMissing?.cancel();
    this.findMissing = null;
    this.monitor?.cancel();
    this.monitor = null;
    this.transport.disconnect(this.address);
    void this.worker.close({ timeout: 0, killed: true });
    this.disk.clear();
  }
}
