// dask's resource restrictions on a worker: a task with restrictions runs only while every
// resource it names has enough left (`available`), holds them while it executes and gives
// them back when it is done. Most tasks have none: their restrictions are the one shared
// EMPTY_RECORD (see TaskState's storedRestrictions), checked by identity before any loop.
import { EMPTY_RECORD } from "./records.js";
import type { TaskState } from "./task-state.js";

export function resourcesSatisfied(available: Readonly<Record<string, number>>, ts: TaskState): boolean {
  const restrictions = ts.resourceRestrictions;
  if (restrictions === EMPTY_RECORD) return true;
  for (const name in restrictions) {
    if ((available[name] ?? 0) < (restrictions[name] as number)) return false;
  }
  return true;
}

export function acquireResources(available: Record<string, number>, ts: TaskState): void {
  const restrictions = ts.resourceRestrictions;
  if (restrictions === EMPTY_RECORD) return;
  for (const name in restrictions) available[name] = (available[name] ?? 0) - (restrictions[name] as number);
}

export function releaseResources(available: Record<string, number>, ts: TaskState): void {
  const restrictions = ts.resourceRestrictions;
  if (restrictions === EMPTY_RECORD) return;
  for (const name in restrictions) available[name] = (available[name] ?? 0) + (restrictions[name] as number);
}
