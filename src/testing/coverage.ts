// Which (start → finish) transitions a set of runs reached, read from the WorkerState's
// own log (every transition writes one entry `(key, start, finish, final, recs, sid, seq)`),
// so that a property whose generator never reaches the interesting corners shows up as
// vacuous instead of passing quietly.
import { TRANSITIONS, type WorkerState } from "../state/index.js";

/** What `transitionCoverage` reads from a run: "start->finish" → how often it ran. */
export interface TransitionRecord {
  readonly transitions: ReadonlyMap<string, number>;
  /** Transitions that ran but were not recorded (the log wrapped before it was read). */
  readonly unrecordedTransitions?: number;
}

/** Reads a WorkerState's new transition entries now and then, without a per-stimulus log scan. */
export class TransitionRecorder implements TransitionRecord {
  readonly transitions = new Map<string, number>();
  unrecordedTransitions = 0;
  readonly #ws: WorkerState;
  #seq: number;
  #counter: number;
  // Read once this many transitions ran since the last read: a default log of 1000 entries
  // holds a few stimuli's worth many times over; halved whenever entries were lost.
  #every = 64;

  constructor(ws: WorkerState) {
    this.#ws = ws;
    this.#seq = ws.stimulusSeq;
    this.#counter = ws.transitionCounter;
  }

  /** Cheap: reads the log only when enough transitions ran since the last read. */
  maybeCollect(): void {
    if (this.#ws.transitionCounter - this.#counter >= this.#every) this.collect();
  }

  /** Reads every transition entry written since the last read. */
  collect(): void {
    const ws = this.#ws;
    const ran = ws.transitionCounter - this.#counter;
    if (ran > 0) {
      let found = 0;
      for (const entry of ws.log) {
        const seq = entry[entry.length - 1];
        if (entry.length !== 7 || typeof seq !== "number" || seq <= this.#seq) continue;
        const start = entry[1];
        const finish = entry[2];
        if (typeof start !== "string" || typeof finish !== "string" || typeof entry[3] !== "string") continue;
        const pair = `${start}->${finish}`;
        this.transitions.set(pair, (this.transitions.get(pair) ?? 0) + 1);
        found++;
      }
      if (found < ran) {
        this.unrecordedTransitions += ran - found;
        this.#every = Math.max(1, this.#every >> 1);
      }
    }
    this.#seq = ws.stimulusSeq;
    this.#counter = ws.transitionCounter;
  }
}

/** The (start → finish) pairs of the transition table (`TRANSITIONS`), as "start->finish", in table order. */
export const TABLE_TRANSITIONS: readonly string[] = Object.freeze(
  Object.entries(TRANSITIONS).flatMap(([start, finishes]) => Object.keys(finishes ?? {}).map((finish) => `${start}->${finish}`)),
);

export interface TransitionCoverage {
  /** Every pair of the table, in table order. */
  readonly table: readonly string[];
  /** Pairs of the table that ran at least once. */
  readonly reached: readonly string[];
  /** Pairs of the table that never ran. */
  readonly never: readonly string[];
  /** Pairs outside the table that ran: transitions made via released (e.g. "executing->fetch"). */
  readonly viaReleased: readonly string[];
  /** How often each pair that ran did, table or not. */
  readonly counts: ReadonlyMap<string, number>;
  /** Transitions that ran but were not recorded; when > 0 the lists above are incomplete. */
  readonly unrecorded: number;
  /** Number of runs read. */
  readonly runs: number;
  /** True when the pair ("start->finish") ran. */
  has(pair: string): boolean;
  /** A few lines: reached/total, the pairs never reached, the pairs reached via released. */
  toString(): string;
}

/**
 * Which transitions of the table a set of runs (`runStimuli` / worker-harness results, or
 * anything with a `transitions` map) reached and which they never did.
 */
export function transitionCoverage(runs: Iterable<TransitionRecord>): TransitionCoverage {
  const counts = new Map<string, number>();
  let unrecorded = 0;
  let runCount = 0;
  for (const run of runs) {
    runCount++;
    unrecorded += run.unrecordedTransitions ?? 0;
    for (const [pair, n] of run.transitions) counts.set(pair, (counts.get(pair) ?? 0) + n);
  }
  const inTable = new Set(TABLE_TRANSITIONS);
  const reached = TABLE_TRANSITIONS.filter((pair) => counts.has(pair));
  const never = TABLE_TRANSITIONS.filter((pair) => !counts.has(pair));
  const viaReleased = [...counts.keys()].filter((pair) => !inTable.has(pair)).sort();
  return Object.freeze({
    table: TABLE_TRANSITIONS,
    reached: Object.freeze(reached),
    never: Object.freeze(never),
    viaReleased: Object.freeze(viaReleased),
    counts,
    unrecorded,
    runs: runCount,
    has: (pair: string) => counts.has(pair),
    toString: () =>
      [
        `${reached.length}/${TABLE_TRANSITIONS.length} transitions of the table reached in ${runCount} runs`,
        `never reached: ${never.length === 0 ? "(none)" : never.join(", ")}`,
        `via released: ${viaReleased.length === 0 ? "(none)" : viaReleased.join(", ")}`,
        ...(unrecorded > 0 ? [`${unrecorded} transitions were not recorded (the log wrapped before it was read)`] : []),
      ].join("\n"),
  });
}
