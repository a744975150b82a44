// What the stimulus log keeps of an event: dask's `to_loggable`, so that a 1000-entry log does
// not pin task values and span trees for its lifetime.
import { unknownEventKind, type Key, type StateMachineEvent } from "./events.js";
import { newRecord } from "./records.js";

/** dask's `to_loggable`: drop bulky payloads so the stimulus log does not keep values alive. */
export function toLoggable(event: StateMachineEvent): StateMachineEvent {
  switch (event.kind) {
    case "ComputeTaskEvent":
      return event.runSpec === null ? event : Object.freeze({ ...event, runSpec: null });
    case "ExecuteSuccessEvent":
      return event.value === null && event.span === null ? event : Object.freeze({ ...event, value: null, span: null });
    case "GatherDepSuccessEvent": {
      const data = nulledData(event.data);
      return data === null && event.span === null ? event : Object.freeze({ ...event, data: data ?? event.data, span: null });
    }
    case "UpdateDataEvent": {
      const data = nulledData(event.data);
      return data === null ? event : Object.freeze({ ...event, data });
    }
    case "ExecuteFailureEvent":
    case "RescheduleEvent":
    case "GatherDepBusyEvent":
    case "GatherDepNetworkFailureEvent":
    case "GatherDepFailureEvent":
      // A span record is a whole timing tree: its metrics were digested when the event was
      // handled, and keeping it in a 1000-entry log would pin it for the log's lifetime.
      return event.span === null ? event : Object.freeze({ ...event, span: null });
    case "FreeKeysEvent":
    case "RemoveReplicasEvent":
    case "AcquireReplicasEvent":
    case "RefreshWhoHasEvent":
    case "CancelComputeEvent":
    case "StealRequestEvent":
    case "SecedeEvent":
    case "RemoveWorkerEvent":
    case "RetryBusyWorkerEvent":
    case "PauseEvent":
    case "UnpauseEvent":
    case "FindMissingEvent":
      return event; // nothing bulky
    default:
      return unknownEventKind(event);
  }
}

/** The same keys with every value null, or null when the values are null already. */
function nulledData(data: Readonly<Record<Key, unknown>>): Readonly<Record<Key, null>> | null {
  let bulky = false;
  for (const key in data) {
    if (data[key] !== null) {
      bulky = true;
      break;
    }
  }
  if (!bulky) return null;
  const nulled = newRecord<null>();
  for (const key in data) nulled[key] = null;
  return Object.freeze(nulled);
}
