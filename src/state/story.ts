// dask's `_story`: the log entries that mention any of the given keys or stimulus ids,
// either as a field or inside a list/set field.
import type { LogEntry } from "./log.js";
import type { StateMachineEvent } from "./events.js";
import { TaskState } from "./task-state.js";

export function storyOf(wanted: readonly unknown[], log: Iterable<LogEntry>): LogEntry[] {
  const needles = new Set<unknown>(wanted.map((w) => (w instanceof TaskState ? w.key : w)));
  const result: LogEntry[] = [];
  for (const entry of log) {
    if (mentions(entry, needles)) result.push(entry);
  }
  return result;
}

function mentions(entry: LogEntry, needles: ReadonlySet<unknown>): boolean {
  for (const field of entry) {
    if (needles.has(field)) return true;
    if (Array.isArray(field)) {
      for (const item of field) if (needles.has(item)) return true;
    } else if (field instanceof Set) {
      for (const item of field) if (needles.has(item)) return true;
    }
  }
  return false;
}

/** dask's `stimulus_story`: logged events whose `key` is one of `keys`. */
export function stimulusStoryOf(wanted: readonly unknown[], stimulusLog: Iterable<StateMachineEvent>): StateMachineEvent[] {
  const keys = new Set<unknown>(wanted.map((w) => (w instanceof TaskState ? w.key : w)));
  const result: StateMachineEvent[] = [];
  for (const event of stimulusLog) {
    if ("key" in event && keys.has(event.key)) result.push(event);
  }
  return result;
}
