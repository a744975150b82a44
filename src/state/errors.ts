// Errors raised by the worker state machine. Each names the key, the states and the
// stimulus involved, and carries the task's story for post-mortems.
import type { Key } from "./events.js";
import type { LogEntry } from "./log.js";

export class InvalidTransition extends Error {
  readonly key: Key;
  readonly start: string;
  readonly finish: string;
  readonly story: readonly LogEntry[];
  readonly stimulusId: string | null;

  constructor(
    key: Key,
    start: string,
    finish: string,
    story: readonly LogEntry[],
    options?: ErrorOptions & { stimulusId?: string },
  ) {
    const stimulus = options?.stimulusId === undefined ? "" : ` (stimulus ${options.stimulusId})`;
    super(`${JSON.stringify(key)} :: ${start}->${finish}${stimulus}`, options);
    this.name = new.target.name;
    this.key = key;
    this.start = start;
    this.finish = finish;
    this.story = story;
    this.stimulusId = options?.stimulusId ?? null;
  }
}

export class TransitionCounterMaxExceeded extends InvalidTransition {}

export class InvalidTaskState extends Error {
  readonly key: Key;
  readonly state: string;
  readonly story: readonly LogEntry[];

  constructor(key: Key, state: string, story: readonly LogEntry[], problem: string, options?: ErrorOptions) {
    super(`${JSON.stringify(key)} :: ${state}: ${problem}`, options);
    this.name = "InvalidTaskState";
    this.key = key;
    this.state = state;
    this.story = story;
  }
}

export class RecommendationsConflict extends Error {
  readonly key: Key;
  readonly first: string;
  readonly second: string;

  constructor(key: Key, first: string, second: string) {
    super(`${JSON.stringify(key)}: conflicting recommendations ${first} and ${second}`);
    this.name = "RecommendationsConflict";
    this.key = key;
    this.first = first;
    this.second = second;
  }
}

/** A broken internal invariant (dask's `assert`), naming the task, its state and the stimulus. */
export class StateInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateInvariantError";
  }
}
