// What the async-Worker harness plays: the scheduler's messages to one worker (in their
// order: a scheduler's comm is ordered), how each task ends, and how each peer answers
// transfers. When things happen relative to each other is not part of the scenario: that
// is fast-check's scheduler's choice (see worker-harness.ts).
import type { Arbitrary } from "fast-check";
import type { Key } from "../state/index.js";
import { fastCheck } from "./fast-check.js";
import { defaultPeer, nameList, type Replica } from "./stimuli.js";

export type TaskEnd = "success" | "failure" | "reschedule";

/** How a peer answers one transfer request: every key, all but the first, busy, unreachable, or an error. */
export type PeerAnswer = "ok" | "missing" | "busy" | "network-failure" | "failure";

/** The scheduler asks the worker for `key`, whose inputs live on peers; the task then ends as `end`. */
export interface ComputeMessage {
  readonly kind: "compute";
  readonly key: Key;
  readonly inputs: readonly Replica[];
  readonly end: TaskEnd;
  /** The task secedes (calls dask's `secede()`) as soon as it starts, and ends long-running. */
  readonly secede: boolean;
  readonly nbytes: number;
}

export type WorkerMessage =
  | ComputeMessage
  | { readonly kind: "free"; readonly keys: readonly Key[] }
  | { readonly kind: "cancel"; readonly key: Key }
  | { readonly kind: "steal"; readonly key: Key }
  | { readonly kind: "acquire"; readonly replicas: readonly Replica[] }
  | { readonly kind: "pause"; readonly paused: boolean };

export type WorkerMessageKind = WorkerMessage["kind"];

/** A peer's answers to its successive transfer requests; once they run out it answers "ok". */
export interface PeerScript {
  readonly peer: string;
  readonly answers: readonly PeerAnswer[];
}

/** Plain, JSON-friendly data. */
export interface WorkerScenario {
  readonly messages: readonly WorkerMessage[];
  readonly peers: readonly PeerScript[];
}

export interface WorkerScenarioOptions {
  /** Keys the scheduler computes here: a count (`t0`, …; default 4) or the names. */
  taskKeys?: number | readonly Key[];
  /** Keys held by peers: a count (`d0`, …; default 4) or the names. */
  dataKeys?: number | readonly Key[];
  /** Peer addresses: a count (default 2) or the addresses. */
  peers?: number | readonly string[];
  /** At most this many scheduler messages (default 12). */
  maxMessages?: number;
  /** At most this many scripted answers per peer (default 3; then "ok"). */
  maxAnswers?: number;
  /** Message kinds never generated. */
  exclude?: readonly WorkerMessageKind[];
}

const MESSAGE_KINDS: readonly WorkerMessageKind[] = ["compute", "free", "cancel", "steal", "acquire", "pause"];

/**
 * Scenarios for `runWorkerScenario`: compute messages with inputs on peers (tasks that
 * succeed, fail, reschedule, secede), frees, cancels, steals, replica requests (of data and
 * of task keys) and pauses, plus each peer's answers. Shrinks towards fewer messages, fewer
 * inputs, successful tasks and peers that answer "ok".
 */
export function arbitraryWorkerScenario(options: WorkerScenarioOptions = {}): Arbitrary<WorkerScenario> {
  const fc = fastCheck("arbitraryWorkerScenario");
  const taskKeys = nameList(options.taskKeys, 4, (i) => `t${i}`, "arbitraryWorkerScenario", "taskKeys");
  const dataKeys = nameList(options.dataKeys, 4, (i) => `d${i}`, "arbitraryWorkerScenario", "dataKeys");
  const overlap = taskKeys.filter((key) => dataKeys.includes(key));
  if (overlap.length > 0) throw new RangeError(`arbitraryWorkerScenario: taskKeys and dataKeys overlap: ${JSON.stringify(overlap)}`);
  const peers = nameList(options.peers, 2, defaultPeer, "arbitraryWorkerScenario", "peers");
  const excluded = new Set(options.exclude ?? []);
  for (const kind of excluded) {
    if (!MESSAGE_KINDS.includes(kind)) throw new RangeError(`arbitraryWorkerScenario: unknown message kind ${JSON.stringify(kind)}`);
  }
  if (!MESSAGE_KINDS.some((kind) => kind !== "pause" && !excluded.has(kind))) {
    throw new RangeError("arbitraryWorkerScenario: every message kind but pause is excluded");
  }

  const taskKey = fc.constantFrom(...taskKeys);
  const peer = fc.constantFrom(...peers);
  const replicaOf = (key: Arbitrary<Key>): Arbitrary<Replica> =>
    fc.record({ key, holders: fc.uniqueArray(peer, { minLength: 1, maxLength: 2 }), nbytes: fc.constantFrom(1, 1000, 1e6) });
  const replicas = (minLength: number) => fc.uniqueArray(replicaOf(fc.constantFrom(...dataKeys)), { minLength, maxLength: 2, selector: (r) => r.key });
  const byKind: { readonly [K in WorkerMessageKind]: { arbitrary: Arbitrary<Extract<WorkerMessage, { kind: K }>>; weight: number } } = {
    compute: {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("compute"),
        key: taskKey,
        inputs: replicas(0),
        end: fc.oneof({ withCrossShrink: true }, fc.constant("success" as const), fc.constant("failure" as const), fc.constant("reschedule" as const)),
        secede: fc.oneof({ withCrossShrink: true }, { arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
        nbytes: fc.constantFrom(1, 1000, 1e6),
      }),
    },
    free: { weight: 2, arbitrary: fc.record({ kind: fc.constant("free"), keys: fc.uniqueArray(taskKey, { minLength: 1, maxLength: 2 }) }) },
    cancel: { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel"), key: taskKey }) },
    steal: { weight: 1, arbitrary: fc.record({ kind: fc.constant("steal"), key: taskKey }) },
    // replicas of data keys, or of a task key (the scheduler may later ask to compute it here)
    acquire: { weight: 2, arbitrary: fc.record({ kind: fc.constant("acquire"), replicas: fc.oneof(replicas(1), fc.tuple(replicaOf(taskKey))) }) },
    pause: { weight: 1, arbitrary: fc.record({ kind: fc.constant("pause"), paused: fc.boolean() }) },
  };
  const message = fc.oneof(
    ...MESSAGE_KINDS.filter((kind) => !excluded.has(kind)).map((kind) => byKind[kind] as { arbitrary: Arbitrary<WorkerMessage>; weight: number }),
  );
  const answer = fc.oneof(
    { withCrossShrink: true },
    { arbitrary: fc.constant<PeerAnswer>("ok"), weight: 4 },
    { arbitrary: fc.constant<PeerAnswer>("missing"), weight: 1 },
    { arbitrary: fc.constant<PeerAnswer>("busy"), weight: 2 },
    { arbitrary: fc.constant<PeerAnswer>("network-failure"), weight: 1 },
    { arbitrary: fc.constant<PeerAnswer>("failure"), weight: 1 },
  );
  return fc.record({
    messages: fc.array(message, { minLength: 1, maxLength: options.maxMessages ?? 12, size: "max" }),
    peers: fc.tuple(...peers.map((address) => fc.record({ peer: fc.constant(address), answers: fc.array(answer, { maxLength: options.maxAnswers ?? 3 }) }))),
  });
}
