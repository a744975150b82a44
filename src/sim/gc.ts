// CPython's full (generation-2) garbage collections of a dask process. A collection runs on
// whichever thread allocated past the threshold and holds the GIL to its end, so the whole
// process stands still: its event loop handles nothing and sends nothing, and a task thread that
// must take the lock back (a sleep or a releasing CPU part ending) waits for it. In dask's runs
// of many small tasks a fresh worker's first one comes after a steady count of its tasks (~230
// of the fidelity tasks on three machines: fidelity/tools/gc_gaps.py, gc_probe.py); docs/sim.md,
// "Overheads" and *wide-map*. A counter per process: O(1) per task, nothing allocated.
import type { GcTerm } from "./overheads.js";

/** The collections a term asks for, counted in finished tasks. */
export class GcCounter {
  private done = 0;
  private next: number;
  /** Collections so far. */
  stops = 0;

  /** `onStop` books one collection (the process's loop busy, its lock held) at the task that reaches the count. */
  constructor(
    private readonly term: GcTerm,
    private readonly onStop: (seconds: number) => void,
  ) {
    this.next = term.first;
  }

  /** One more task finished. */
  taskDone(): void {
    if (++this.done !== this.next) return;
    this.next = this.term.every === undefined ? Number.POSITIVE_INFINITY : this.next + this.term.every;
    this.stops++;
    this.onStop(this.term.stop);
  }
}

/** The term, or undefined when it is off (unset, false, or a stop of 0 s). */
export function gcTerm(term: GcTerm | false | undefined): GcTerm | undefined {
  return term === undefined || term === false || term.stop <= 0 ? undefined : term;
}
