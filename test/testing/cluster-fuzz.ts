// The whole-cluster fuzz generator, shared by test/sim/fuzz.test.ts and the soak
// (test/testing/soak.ts): built-in workloads at fuzz sizes, random faults, every network model.
import fc from "fast-check";
import type { FaultSpec, NetworkKind } from "../../src/sim/index.js";

/** Built-in workloads and the size each is fuzzed at (small: a run takes ≈ 0.1 s). */
export const workloads = { "random-dag": 60, "tree-reduce": 24, shuffle: 150, "spill-pressure": 12, chain: 12, map: 30 } as const;

export type FuzzWorkload = keyof typeof workloads;

export const fault: fc.Arbitrary<FaultSpec> = fc.oneof(
  fc.record({ kind: fc.constant("worker-death" as const), worker: fc.integer({ min: 0, max: 3 }), at: fc.double({ min: 0, max: 4, noNaN: true }) }),
  fc.record({ kind: fc.constant("transfer-failure" as const), probability: fc.double({ min: 0, max: 0.3, noNaN: true }) }),
  fc.record({ kind: fc.constant("busy" as const), probability: fc.double({ min: 0, max: 0.5, noNaN: true }) }),
  fc.record({ kind: fc.constant("task-failure" as const), probability: fc.double({ min: 0, max: 0.05, noNaN: true }) }),
);

// A record over NetworkKind, so that a new network model is a compile error here until it is fuzzed.
const networkKinds: Record<NetworkKind, true> = { instant: true, "latency-bandwidth": true, "max-min": true, "shared-host": true };

/** Every network model of the simulator. */
export const networks = Object.keys(networkKinds) as NetworkKind[];

/**
 * The options of a run on tight memory: 40 MB per worker, so that spilling and pausing get
 * exercised. The nanny's terminate is off: the simulator does not restart a terminated
 * worker (docs/sim.md, "Memory"), and killing every worker whose data outgrows 40 MB would
 * make most of these runs end stuck instead of testing the faults they were drawn with.
 */
export const TIGHT_MEMORY = { memoryLimit: 40e6, cluster: { memory: { terminate: false as const } } };
