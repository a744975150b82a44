// The per-message and per-stimulus costs of a dask cluster that are not the tasks' own work,
// as model parameters (cluster.overheads in a spec or profile). The defaults were measured on
// a real dask 2022.12.1 LocalCluster (docs/sim.md, "Overheads", says which runs, which
// quantity and which figure each comes from); `NO_OVERHEADS` turns them all off, for runs
// whose times must be computed by hand. The worker loop's costs may be distributions, drawn
// per event (`costDraw`).
import { meanOf, sample } from "./distributions.js";
import { Rng } from "./rng.js";
import type { Distribution } from "./spec.js";

/** Seconds per event: a constant, or a distribution drawn once per event. */
export type Cost = number | Distribution;

/**
 * CPython's full (generation-2) collections of one process (gc.ts): after `first` tasks (a
 * worker's own, or all the scheduler has heard finish) the process stops for `stop` seconds, and
 * again after every `every` further tasks (unset: only the first).
 */
export interface GcTerm {
  readonly first: number;
  readonly stop: number;
  readonly every?: number;
}

export interface Overheads {
  /** One-way latency of a scheduler ↔ worker message on an open stream, seconds. */
  messageLatency: number;
  /** dask's BatchedSend interval of the scheduler → worker streams (5 ms): at most one write per interval. */
  schedulerBatch: number;
  /** BatchedSend interval of the worker → scheduler stream (2 ms). */
  workerBatch: number;
  /** Seconds of a worker's event loop per done event (an execute or gather-dep ended: its result handled, what comes next started); a distribution is drawn per event. */
  workerHandling: Cost;
  /** Seconds of a worker's event loop per message op from the scheduler (compute-task, free-keys, …); a distribution is drawn per op. */
  workerMessage: Cost;
  /** Seconds of the scheduler's event loop per task it sends to a worker (handling what made it ready, deciding, the compute-task), one at a time. */
  schedulerDecision: number;
  /** Seconds of the scheduler's event loop per message batch it reads from or writes to a worker's stream. */
  schedulerMessage: number;
  /**
   * Mean seconds by which a task's non-CPU part (a sleep, a wait on I/O) ends late, drawn per
   * task from an exponential: the kernel wakes the thread after its timer, once a core is free.
   * 0 by default (a task's duration is then exactly its own); the profile of the fidelity
   * machine sets what dask's own tasks overran there (docs/sim.md, "Overheads").
   */
  taskOverrun: number;
  /**
   * Seconds a fetch spends opening a connection when its worker has no idle one to the peer
   * (dask's ConnectionPool.connect: TCP connect, then the comm handshake — the listener writes
   * its info, the connector reads it and writes its own); the connection is pooled afterwards.
   */
  connectLatency: number;
  /**
   * CPython's switch interval (`sys.getswitchinterval()`, 5 ms), seconds: a task thread that must
   * take its process's GIL back while a copy that does not let go holds it (the receiver's
   * deserialisation, a spilled value's read) gets it once it has waited this long and the value
   * being copied is done, or when the copy ends (copy-holds.ts); 0: it never waits.
   */
  switchInterval: number;
  /**
   * A worker process's full garbage collections: its event loop is busy (nothing handled,
   * nothing sent) and its GIL held (a task thread that must take it back waits) for `stop`
   * seconds after it has finished `first` tasks (gc.ts). Unset or false: none (the default).
   */
  workerGc?: GcTerm | false;
  /**
   * The scheduler process's full collections, counted in the tasks it has heard finish: its
   * loop stops (no message read, no task sent), so the workers drain their queues. Unset or false: none.
   */
  schedulerGc?: GcTerm | false;
}

/**
 * Measured on the fidelity set's machine (a 2-core VM, 1-minute load 3.7-4.7), from the raw
 * dask runs of ../shared/fidelity (fidelity/tools/derive.py) and fidelity/tools/overheads.py;
 * docs/sim.md, "Overheads", has the figures and how each was split.
 */
export const DEFAULT_OVERHEADS: Readonly<Overheads> = Object.freeze({
  messageLatency: 0.00054,
  schedulerBatch: 0.005,
  workerBatch: 0.002,
  workerHandling: 0.00117,
  workerMessage: 0.0001,
  schedulerDecision: 0.00062,
  schedulerMessage: 0,
  taskOverrun: 0,
  connectLatency: 0.0023,
  switchInterval: 0.005,
});

export const NO_OVERHEADS: Readonly<Overheads> = Object.freeze({
  messageLatency: 0,
  schedulerBatch: 0,
  workerBatch: 0,
  workerHandling: 0,
  workerMessage: 0,
  schedulerDecision: 0,
  schedulerMessage: 0,
  taskOverrun: 0,
  connectLatency: 0,
  switchInterval: 0,
});

/** The mean of a cost, seconds. */
export function meanCost(cost: Cost): number {
  return typeof cost === "number" ? cost : meanOf(cost);
}

/**
 * What `count` events of `cost` take (one by default): a constant's `count` times, or one
 * draw per event from a random stream of its own (`stream`, derived from the run's seed: one
 * per parameter and worker), so drawing them moves no other random choice of the run.
 */
export function costDraw(cost: Cost, seed: number, stream: string): (count?: number) => number {
  const constant = typeof cost === "number" ? cost : cost.dist === "constant" ? cost.value : null;
  if (constant !== null) return (count = 1) => count * constant;
  const distribution = cost as Distribution;
  const rng = Rng.derive(seed, stream);
  return (count = 1) => {
    let total = 0;
    for (let i = 0; i < count; i++) total += sample(distribution, rng);
    return total;
  };
}
