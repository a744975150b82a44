// Dispatch of each event kind to its handler (dask's `_handle_event` singledispatch).
// A handler queues recommendations and appends its own instructions; for done events
// carrying a span, the span's DigestMetrics follow the handler's own instructions and
// precede those of the transitions.
import type { EventHandler } from "../core.js";
import { toDigestMetrics } from "../../spans/index.js";
import { handleComputeTask } from "./compute-task.js";
import {
  handleCancelCompute,
  handleFindMissing,
  handlePause,
  handleRetryBusyWorker,
  handleSecede,
  handleStealRequest,
  handleUnpause,
} from "./control.js";
import { handleExecuteDone } from "./execute-done.js";
import { handleGatherDepDone } from "./gather-done.js";
import {
  handleAcquireReplicas,
  handleFreeKeys,
  handleRefreshWhoHas,
  handleRemoveReplicas,
  handleRemoveWorker,
  handleUpdateData,
} from "./replicas.js";
import { unknownEventKind } from "../events.js";

export const handleEvent: EventHandler = (core, ev, recs, out) => {
  switch (ev.kind) {
    case "ComputeTaskEvent":
      return handleComputeTask(core, ev, recs, out);
    case "ExecuteSuccessEvent":
    case "ExecuteFailureEvent":
    case "RescheduleEvent":
      handleExecuteDone(core, ev, recs, out);
      if (ev.span !== null) out.push(...toDigestMetrics(ev.span, { stimulusId: ev.stimulusId }));
      return;
    case "GatherDepSuccessEvent":
    case "GatherDepBusyEvent":
    case "GatherDepNetworkFailureEvent":
    case "GatherDepFailureEvent":
      handleGatherDepDone(core, ev, recs, out);
      if (ev.span !== null) out.push(...toDigestMetrics(ev.span, { stimulusId: ev.stimulusId }));
      return;
    case "FreeKeysEvent":
      return handleFreeKeys(core, ev, recs);
    case "RemoveReplicasEvent":
      return handleRemoveReplicas(core, ev, recs);
    case "AcquireReplicasEvent":
      return handleAcquireReplicas(core, ev, recs);
    case "RefreshWhoHasEvent":
      return handleRefreshWhoHas(core, ev, recs);
    case "RemoveWorkerEvent":
      return handleRemoveWorker(core, ev, recs);
    case "UpdateDataEvent":
      return handleUpdateData(core, ev, recs);
    case "CancelComputeEvent":
      return handleCancelCompute(core, ev, recs);
    case "StealRequestEvent":
      return handleStealRequest(core, ev, recs, out);
    case "SecedeEvent":
      return handleSecede(core, ev, recs);
    case "PauseEvent":
      return handlePause(core);
    case "UnpauseEvent":
      return handleUnpause(core, recs);
    case "RetryBusyWorkerEvent":
      return handleRetryBusyWorker(core, ev.worker);
    case "FindMissingEvent":
      return handleFindMissing(core, ev, out);
    default:
      return unknownEventKind(ev);
  }
};
