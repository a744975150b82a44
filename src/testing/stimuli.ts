// `arbitraryStimuli`: a fast-check arbitrary of plausible stimulus sequences for a
// WorkerState. A sequence is plain data — what a scheduler, the peers and the worker shell
// do next, named by key and peer ("answer the execution of t2 with a failure", "peer
// 127.0.0.1:3 answers busy") — and `runStimuli` turns each step into a concrete event
// against a small scheduler/peer model that tracks the worker's outstanding instructions.
//
// Why plain data and `fc.array` rather than `fc.commands`: both shrink the same way (fast-
// check's array shrinker drops any subsequence and simplifies each step; a step that does
// not apply is a no-op, so dropping it changes nothing and the shrinker drops it), but a
// command list's shrink tree depends on which commands ran, so replaying one needs its
// `replayPath` on top of fast-check's `{ seed, path }`. A plain sequence replays from
// `{ seed, path }` alone, prints as JSON, and can be pasted into a regression test and fed
// to `runStimuli` without fast-check at all.
import type { Arbitrary } from "fast-check";
import type { Key } from "../state/index.js";
import { fastCheck } from "./fast-check.js";

/** A replica on peers: the key, who holds it, its size. */
export interface Replica {
  readonly key: Key;
  readonly holders: readonly string[];
  readonly nbytes: number;
}

/** The scheduler asks for `key`, whose inputs live on peers (fetched first). */
export interface ComputeStimulus {
  readonly kind: "compute";
  readonly key: Key;
  readonly inputs: readonly Replica[];
  readonly priority: number;
  /** Restricted to one unit of the worker's first resource (ignored when it has none). */
  readonly restricted: boolean;
}

export type ExecuteOutcome = "success" | "failure" | "reschedule" | "secede";

/** The shell reports on the execution of `key` (or of the oldest one when `key` has none). */
export interface ExecuteDoneStimulus {
  readonly kind: "execute-done";
  readonly key: Key;
  /** `secede` keeps it running as long-running (once per execution; then it counts as success). */
  readonly outcome: ExecuteOutcome;
  readonly nbytes: number;
}

export type GatherOutcome = "success" | "partial" | "busy" | "network-failure" | "failure";

/** `peer` answers the transfer outstanding from it (or the oldest transfer). */
export interface GatherDoneStimulus {
  readonly kind: "gather-done";
  readonly peer: string;
  /**
   * `partial`: only the keys selected by `keep` (bit i = i-th key); `failure` (an error
   * other than the network) only when no waiting task needs the keys, else it is a
   * network failure (otherwise the dependent would wait for ever, dask #6705).
   */
  readonly outcome: GatherOutcome;
  readonly keep: number;
}

/** The shell's RetryBusyWorkerLater timer for `peer` (or the oldest one) fires. */
export interface RetryBusyStimulus {
  readonly kind: "retry-busy";
  readonly peer: string;
}

/** The scheduler asks for replicas (active memory manager). */
export interface AcquireStimulus {
  readonly kind: "acquire";
  readonly replicas: readonly Replica[];
}

/** Who holds a data key according to the scheduler: peers, and maybe the worker under test. */
export interface Holders {
  readonly key: Key;
  /** Peers (possibly none). */
  readonly holders: readonly string[];
  /** The worker under test is listed too (it strips its own address). */
  readonly withSelf: boolean;
}

/** The scheduler corrects who holds data keys. */
export interface RefreshWhoHasStimulus {
  readonly kind: "refresh-who-has";
  readonly whoHas: readonly Holders[];
}

/** The scheduler releases task keys. */
export interface FreeStimulus {
  readonly kind: "free";
  readonly keys: readonly Key[];
}

/**
 * The scheduler drops replicas of data keys no task here still needs; when none of `keys`
 * qualifies, the first data key that does (a no-op when none does).
 */
export interface RemoveReplicasStimulus {
  readonly kind: "remove-replicas";
  readonly keys: readonly Key[];
}

export interface StealStimulus {
  readonly kind: "steal";
  readonly key: Key;
}

export interface CancelStimulus {
  readonly kind: "cancel";
  readonly key: Key;
}

/** The worker pauses (memory pressure) or unpauses. */
export interface PauseStimulus {
  readonly kind: "pause";
  readonly paused: boolean;
}

/**
 * A client scatters a value: to a data key that is released, fetch, missing or in memory
 * (scatter onto flight or executing is a race dask does not handle, reference §18.5/§18.6;
 * a no-op then), or, with `key: null`, to a fresh key.
 */
export interface ScatterStimulus {
  readonly kind: "scatter";
  readonly key: Key | null;
}

/** The scheduler reports that `peer` left the cluster. */
export interface RemoveWorkerStimulus {
  readonly kind: "remove-worker";
  readonly peer: string;
}

/** The shell's periodic find-missing tick. */
export interface FindMissingStimulus {
  readonly kind: "find-missing";
}

/** One step of a generated sequence. Plain, JSON-friendly data. */
export type Stimulus =
  | ComputeStimulus
  | ExecuteDoneStimulus
  | GatherDoneStimulus
  | RetryBusyStimulus
  | AcquireStimulus
  | RefreshWhoHasStimulus
  | FreeStimulus
  | RemoveReplicasStimulus
  | StealStimulus
  | CancelStimulus
  | PauseStimulus
  | ScatterStimulus
  | RemoveWorkerStimulus
  | FindMissingStimulus;

export type StimulusKind = Stimulus["kind"];

/** Relative weights of the kinds in a generated sequence (they sum to 100). */
export const DEFAULT_STIMULUS_WEIGHTS: Readonly<Record<StimulusKind, number>> = Object.freeze({
  compute: 16,
  "execute-done": 18,
  "gather-done": 18,
  "retry-busy": 5,
  acquire: 7,
  "refresh-who-has": 5,
  free: 7,
  "remove-replicas": 3,
  steal: 3,
  cancel: 3,
  pause: 4,
  scatter: 4,
  "remove-worker": 3,
  "find-missing": 4,
});

export const STIMULUS_KINDS: readonly StimulusKind[] = Object.freeze(Object.keys(DEFAULT_STIMULUS_WEIGHTS) as StimulusKind[]);

export interface StimuliOptions {
  /** Relative weight per kind (default `DEFAULT_STIMULUS_WEIGHTS`); 0 never generates it. */
  weights?: Partial<Record<StimulusKind, number>>;
  /** Kinds never generated (the same as weight 0). */
  exclude?: readonly StimulusKind[];
  /** Keys computed here, never inputs: a count (`t0`, `t1`, …; default 8) or the names. */
  taskKeys?: number | readonly Key[];
  /** Keys only fetched from peers or scattered: a count (`d0`, …; default 6) or the names. */
  dataKeys?: number | readonly Key[];
  /** Peer addresses: a count (default 3: two on the host of 127.0.0.1:1, one elsewhere) or the addresses. */
  peers?: number | readonly string[];
  /** Sizes of inputs, replicas and results in bytes (default 1, 100, 4 MB, 12 MB, 30 MB). */
  sizes?: readonly number[];
  /** Length of a sequence (default 1 to 60 steps; shrinking never goes below `minLength`). */
  minLength?: number;
  maxLength?: number;
}

/** The options with every default filled in (what `runStimuli` and the docs refer to). */
export interface StimuliUniverse {
  readonly taskKeys: readonly Key[];
  readonly dataKeys: readonly Key[];
  readonly peers: readonly string[];
  readonly sizes: readonly number[];
  readonly weights: Readonly<Record<StimulusKind, number>>;
  readonly minLength: number;
  readonly maxLength: number;
}

const DEFAULT_SIZES: readonly number[] = Object.freeze([1, 100, 4e6, 12e6, 30e6]);

/** The n-th default peer: two on 127.0.0.1 (the host of `LOCAL_ADDRESS`), then one elsewhere. */
export function defaultPeer(index: number): string {
  const group = Math.floor(index / 3);
  return index % 3 === 2 ? `10.0.0.${9 + group}:1` : `127.0.0.1:${2 + index - group}`;
}

/**
 * A universe option (a count or the names themselves) as a frozen list of distinct names;
 * a RangeError naming `caller` and `what` otherwise.
 */
export function nameList(
  option: number | readonly string[] | undefined,
  fallback: number,
  make: (index: number) => string,
  caller: string,
  what: string,
): readonly string[] {
  if (typeof option === "number" && !(Number.isInteger(option) && option > 0)) {
    throw new RangeError(`${caller}: ${what} must be a positive integer or a list of names, got ${option}`);
  }
  const list = typeof option === "object" ? [...option] : Array.from({ length: option ?? fallback }, (_, i) => make(i));
  if (list.length === 0 || new Set(list).size !== list.length) {
    throw new RangeError(`${caller}: ${what} must be a non-empty list of distinct names, got ${JSON.stringify(list)}`);
  }
  return Object.freeze(list);
}

/** Fills in the defaults of `options` and checks them (RangeError naming the option). */
export function stimuliUniverse(options: StimuliOptions = {}): StimuliUniverse {
  const taskKeys = nameList(options.taskKeys, 8, (i) => `t${i}`, "arbitraryStimuli", "taskKeys");
  const dataKeys = nameList(options.dataKeys, 6, (i) => `d${i}`, "arbitraryStimuli", "dataKeys");
  const overlap = taskKeys.filter((key) => dataKeys.includes(key));
  if (overlap.length > 0) throw new RangeError(`arbitraryStimuli: taskKeys and dataKeys overlap: ${JSON.stringify(overlap)}`);
  const peers = nameList(options.peers, 3, defaultPeer, "arbitraryStimuli", "peers");
  const sizes = Object.freeze([...(options.sizes ?? DEFAULT_SIZES)]);
  if (sizes.length === 0 || sizes.some((size) => !(size >= 0) || !Number.isFinite(size))) {
    throw new RangeError(`arbitraryStimuli: sizes must be finite numbers ≥ 0, got ${JSON.stringify(sizes)}`);
  }
  const weights: Record<StimulusKind, number> = { ...DEFAULT_STIMULUS_WEIGHTS };
  for (const kind of Object.keys(options.weights ?? {}) as StimulusKind[]) {
    if (!(kind in DEFAULT_STIMULUS_WEIGHTS)) throw new RangeError(`arbitraryStimuli: unknown stimulus kind ${JSON.stringify(kind)} in weights`);
    const weight = options.weights?.[kind] ?? 0;
    if (!(weight >= 0) || !Number.isFinite(weight)) throw new RangeError(`arbitraryStimuli: weights.${kind} must be a finite number ≥ 0, got ${weight}`);
    weights[kind] = weight;
  }
  for (const kind of options.exclude ?? []) {
    if (!(kind in DEFAULT_STIMULUS_WEIGHTS)) throw new RangeError(`arbitraryStimuli: unknown stimulus kind ${JSON.stringify(kind)} in exclude`);
    weights[kind] = 0;
  }
  if (STIMULUS_KINDS.every((kind) => weights[kind] === 0)) throw new RangeError("arbitraryStimuli: every stimulus kind is excluded");
  const minLength = options.minLength ?? 1;
  const maxLength = options.maxLength ?? 60;
  if (!Number.isInteger(minLength) || minLength < 0 || !Number.isInteger(maxLength) || maxLength < minLength) {
    throw new RangeError(`arbitraryStimuli: need integers 0 ≤ minLength ≤ maxLength, got ${minLength} and ${maxLength}`);
  }
  return Object.freeze({ taskKeys, dataKeys, peers, sizes, weights: Object.freeze(weights), minLength, maxLength });
}

/**
 * Sequences of plausible stimuli for a WorkerState (feed them with `runStimuli`). Each step
 * names its keys and peers from a small universe (see `StimuliOptions`), so sequences
 * collide on keys and peers often; they shrink to the shortest sequence that still fails,
 * with every step simplified (first key, first peer, success, no inputs).
 */
export function arbitraryStimuli(options: StimuliOptions = {}): Arbitrary<Stimulus[]> {
  const fc = fastCheck("arbitraryStimuli");
  const universe = stimuliUniverse(options);
  const taskKey = fc.constantFrom(...universe.taskKeys);
  const dataKey = fc.constantFrom(...universe.dataKeys);
  const peer = fc.constantFrom(...universe.peers);
  const size = fc.constantFrom(...universe.sizes);
  const holders = fc.uniqueArray(peer, { minLength: 1, maxLength: 2 });
  const replica = (key: Arbitrary<Key>): Arbitrary<Replica> => fc.record({ key, holders, nbytes: size });
  // Cross-shrink: a failure found with a rarer choice is retried with the first (simplest) one.
  const weighted = <T>(choices: readonly (readonly [T, number])[]): Arbitrary<T> =>
    fc.oneof({ withCrossShrink: true }, ...choices.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));

  const byKind: { readonly [K in StimulusKind]: Arbitrary<Extract<Stimulus, { kind: K }>> } = {
    compute: fc.record({
      kind: fc.constant("compute"),
      key: taskKey,
      inputs: fc.uniqueArray(replica(dataKey), { maxLength: 3, selector: (r) => r.key }),
      priority: fc.nat({ max: 2 }),
      restricted: weighted([[false, 4], [true, 1]]),
    }),
    "execute-done": fc.record({
      kind: fc.constant("execute-done"),
      key: taskKey,
      outcome: weighted<ExecuteOutcome>([["success", 5], ["failure", 2], ["reschedule", 1], ["secede", 2]]),
      nbytes: size,
    }),
    "gather-done": fc.record({
      kind: fc.constant("gather-done"),
      peer,
      outcome: weighted<GatherOutcome>([["success", 5], ["partial", 1], ["busy", 2], ["network-failure", 1], ["failure", 1]]),
      keep: fc.nat({ max: 7 }),
    }),
    "retry-busy": fc.record({ kind: fc.constant("retry-busy"), peer }),
    acquire: fc.record({
      kind: fc.constant("acquire"),
      replicas: fc.oneof(
        fc.tuple(replica(taskKey)),
        fc.uniqueArray(replica(dataKey), { minLength: 1, maxLength: 2, selector: (r) => r.key }),
      ),
    }),
    "refresh-who-has": fc.record({
      kind: fc.constant("refresh-who-has"),
      whoHas: fc.uniqueArray(
        fc.oneof(
          { withCrossShrink: true },
          fc.record({ key: dataKey, holders, withSelf: fc.constant(false) }),
          fc.record({ key: dataKey, holders: fc.constant([]), withSelf: fc.constant(false) }),
          fc.record({ key: dataKey, holders: fc.tuple(peer), withSelf: fc.constant(true) }),
        ),
        { minLength: 1, maxLength: 3, selector: (entry) => entry.key },
      ),
    }),
    free: fc.record({ kind: fc.constant("free"), keys: fc.uniqueArray(taskKey, { minLength: 1, maxLength: 2 }) }),
    "remove-replicas": fc.record({ kind: fc.constant("remove-replicas"), keys: fc.uniqueArray(dataKey, { minLength: 1, maxLength: 2 }) }),
    steal: fc.record({ kind: fc.constant("steal"), key: taskKey }),
    cancel: fc.record({ kind: fc.constant("cancel"), key: taskKey }),
    pause: fc.record({ kind: fc.constant("pause"), paused: fc.boolean() }),
    scatter: fc.record({ kind: fc.constant("scatter"), key: fc.option(dataKey, { nil: null }) }),
    "remove-worker": fc.record({ kind: fc.constant("remove-worker"), peer }),
    "find-missing": fc.record({ kind: fc.constant("find-missing") }),
  };
  const step = fc.oneof(
    ...STIMULUS_KINDS.filter((kind) => universe.weights[kind] > 0).map((kind) => ({
      arbitrary: byKind[kind] as Arbitrary<Stimulus>,
      weight: universe.weights[kind],
    })),
  );
  return fc.array(step, { minLength: universe.minLength, maxLength: universe.maxLength, size: "max" });
}
