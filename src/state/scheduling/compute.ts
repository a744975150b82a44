// Which ready tasks start executing (dask's `_ensure_computing`, `_next_ready_task`).
import type { StateCore } from "../core.js";
import { comparePriority } from "../priority-entries.js";
import { Rec, type RecommendationStack } from "../recommendations.js";
import { acquireResources, resourcesSatisfied } from "../resources.js";
import type { TaskState } from "../task-state.js";

/**
 * Fill free threads: take the next ready task, reserve its thread (`executing`) and its
 * resources now, and recommend `executing` (the transition emits the Execute).
 */
export function ensureComputing(core: StateCore, recs: RecommendationStack): void {
  if (!core.running) return;
  while (core.executing.size < core.nthreads) {
    const ts = nextReadyTask(core);
    if (ts === undefined) return;
    recs.add(ts, Rec.executing);
    acquireResources(core.availableResources, ts);
    core.executing.add(ts);
  }
}

/**
 * The ready top, unless the constrained top is strictly more urgent and its resources
 * are available. Only the constrained top is ever considered (head-of-line blocking, as
 * in dask).
 */
function nextReadyTask(core: StateCore): TaskState | undefined {
  const { ready, constrained } = core;
  if (ready.size > 0 && constrained.size > 0) {
    const readyTop = ready.peek() as TaskState;
    const constrainedTop = constrained.peek() as TaskState;
    if (
      comparePriority(constrainedTop.priority ?? [], readyTop.priority ?? []) < 0 &&
      resourcesSatisfied(core.availableResources, constrainedTop)
    ) {
      return constrained.pop();
    }
    return ready.pop();
  }
  if (ready.size > 0) return ready.pop();
  if (constrained.size > 0 && resourcesSatisfied(core.availableResources, constrained.peek() as TaskState)) return constrained.pop();
  return undefined;
}
