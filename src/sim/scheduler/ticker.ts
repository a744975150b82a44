// Periodic scheduler jobs on the simulated clock (heartbeats, the stealing balance). A job runs
// at whole multiples of its interval while it says there is a reason to (some task is
// processing) and sleeps otherwise, so an idle or finished cluster has no timer left and the
// run can end; `wake` restarts the sleeping jobs when work is assigned again.

export interface PeriodicJob {
  readonly interval: number;
  /** Returns whether to keep running. */
  readonly run: () => boolean;
}

interface JobState {
  readonly job: PeriodicJob;
  scheduled: boolean;
  tick: number;
}

export class Ticker {
  private readonly jobs: JobState[];
  private stopped = false;

  constructor(
    private readonly now: () => number,
    private readonly setTimer: (at: number, callback: () => void) => void,
    jobs: readonly PeriodicJob[],
  ) {
    this.jobs = jobs.map((job) => ({ job, scheduled: false, tick: 0 }));
  }

  wake(): void {
    if (this.stopped) return;
    for (const state of this.jobs) {
      if (state.scheduled) continue;
      const interval = state.job.interval;
      const now = this.now();
      state.tick = Math.floor(now / interval) + 1;
      if (state.tick * interval <= now) state.tick++;
      this.schedule(state);
    }
  }

  stop(): void {
    this.stopped = true;
  }

  private schedule(state: JobState): void {
    state.scheduled = true;
    this.setTimer(state.tick * state.job.interval, () => {
      state.scheduled = false;
      if (this.stopped || !state.job.run()) return;
      state.tick++;
      this.schedule(state);
    });
  }
}

/** dask's heartbeat_interval(n): how often each of n workers reports to the scheduler. */
export function heartbeatInterval(workers: number): number {
  if (workers <= 10) return 0.5;
  if (workers < 50) return 1;
  if (workers < 200) return 2;
  return workers / 200 + 1;
}
