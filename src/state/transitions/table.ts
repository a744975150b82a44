// The transition table as data: TRANSITIONS[start][finish] → handler (dask's
// `_TRANSITIONS_TABLE`, 50 entries). Pairs not listed go via released (core.ts).
import type { TransitionFn, TransitionTable } from "../core.js";
import {
  cancelledFetch,
  cancelledOrResumedLongRunning,
  cancelledReleased,
  cancelledWaiting,
  resumedError,
  resumedFetch,
  resumedMemory,
  resumedReleased,
  resumedRescheduled,
} from "./cancelled.js";
import {
  executingError,
  executingLongRunning,
  executingMemory,
  executingReleased,
  executingRescheduled,
  readyExecuting,
  waitingConstrained,
  waitingReady,
} from "./compute.js";
import {
  fetchFlight,
  fetchMissing,
  fetchReleased,
  flightFetch,
  flightMemory,
  flightMissing,
  flightReleased,
  missingFetch,
  missingReleased,
  missingWaiting,
} from "./fetch.js";
import { genericError } from "./generic.js";
import {
  memoryReleased,
  releasedFetch,
  releasedForgotten,
  releasedMemory,
  releasedMissing,
  releasedWaiting,
  toError,
  toReleased,
} from "./released.js";

/** dask leaves missing_dep_flight alone here (unreachable there); we keep it consistent. */
const missingError: TransitionFn<"missing", "error"> = (core, ts, rec, _recs, out, stimulusId) => {
  core.missingDepFlight.delete(ts);
  genericError(core, ts, rec, out, stimulusId);
};

export const TRANSITIONS: TransitionTable = Object.freeze({
  released: Object.freeze({
    fetch: releasedFetch,
    waiting: releasedWaiting,
    missing: releasedMissing,
    memory: releasedMemory,
    error: toError,
    forgotten: releasedForgotten,
  }),
  waiting: Object.freeze({
    ready: waitingReady,
    constrained: waitingConstrained,
    released: toReleased,
  }),
  ready: Object.freeze({ executing: readyExecuting, released: toReleased }),
  constrained: Object.freeze({ executing: readyExecuting, released: toReleased }),
  executing: Object.freeze({
    "long-running": executingLongRunning,
    memory: executingMemory,
    error: executingError,
    rescheduled: executingRescheduled,
    released: executingReleased,
  }),
  "long-running": Object.freeze({
    memory: executingMemory,
    error: executingError,
    rescheduled: executingRescheduled,
    released: executingReleased,
  }),
  fetch: Object.freeze({ flight: fetchFlight, missing: fetchMissing, released: fetchReleased }),
  flight: Object.freeze({
    fetch: flightFetch,
    missing: flightMissing,
    memory: flightMemory,
    error: toError,
    released: flightReleased,
  }),
  missing: Object.freeze({
    fetch: missingFetch,
    waiting: missingWaiting,
    released: missingReleased,
    error: missingError,
  }),
  memory: Object.freeze({ released: memoryReleased }),
  error: Object.freeze({ released: toReleased }),
  cancelled: Object.freeze({
    released: cancelledReleased,
    error: cancelledReleased,
    memory: cancelledReleased,
    missing: cancelledReleased,
    rescheduled: cancelledReleased,
    fetch: cancelledFetch,
    waiting: cancelledWaiting,
    "long-running": cancelledOrResumedLongRunning,
  }),
  resumed: Object.freeze({
    "long-running": cancelledOrResumedLongRunning,
    released: resumedReleased,
    fetch: resumedFetch,
    memory: resumedMemory,
    error: resumedError,
    rescheduled: resumedRescheduled,
  }),
});

/** Number of (start, finish) pairs in the table. */
export const TRANSITION_COUNT = Object.values(TRANSITIONS).reduce(
  (n, row) => n + (row === undefined ? 0 : Object.keys(row).length),
  0,
);
