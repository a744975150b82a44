// The gauges of a worker: task counts by state (memory split into memory and disk when a
// SpillBuffer is used), the data store's bytes and keys per tier, work in progress by kind.
import type { SpillBuffer } from "../spill/index.js";
import type { WorkerState } from "../state/index.js";
import type { WorkerGauges } from "./prometheus.js";

export function workerGauges(state: WorkerState, spill: SpillBuffer | null, inProgress: Readonly<Record<string, number>>): WorkerGauges {
  // keyed records are null-prototype: no name reads as an inherited Object.prototype member
  const tasks = Object.create(null) as Record<string, number>;
  for (const ts of state.tasks.values()) {
    const name = ts.state === "memory" && spill !== null && spill.slow.has(ts.key) ? "disk" : ts.state;
    tasks[name] = (tasks[name] ?? 0) + 1;
  }
  if (spill === null) return { tasks, inProgress };
  return {
    tasks,
    inProgress,
    memory: { managed: spill.fast.totalWeight, spilled: spill.slow.totalWeight.disk },
    keys: { memory: spill.fast.size, disk: spill.slow.size },
  };
}
