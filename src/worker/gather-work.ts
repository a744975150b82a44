// GatherDep: fetch keys from a peer through the transport, under a ["gather-dep"] root
// whose metrics are split over the keys' prefixes, and hand the outcome to the state machine
// (GatherDepSuccess / Busy / NetworkFailure / Failure). RetryBusyWorkerLater: the wait
// before asking a busy peer again.
import {
  GatherDepBusyEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
  RetryBusyWorkerEvent,
  keySplit,
  type GatherDep,
  type Key,
  type RetryBusyWorkerLater,
  type StateMachineEvent,
} from "../state/index.js";
import { SpanRegistry, type SpanRecord } from "../spans/index.js";
import { completeWork, launch, settleOutcome, waitUnlessAborted, type WorkerCore } from "./async-work.js";
import { NetworkError } from "./errors.js";
import { failureFields } from "./failure.js";
import { prefixWeights } from "./prefix-split.js";
import { GATHER_DEP_ROOT, newRoot } from "./span-roots.js";
import type { GetDataResponse, Outcome, Transport } from "./types.js";
import type { RetryWork, TransferWork } from "./work-tracker.js";

type GatherOutcome =
  | { readonly kind: "success"; readonly data: Readonly<Record<Key, unknown>> }
  | { readonly kind: "busy" }
  | { readonly kind: "network-failure"; readonly error: unknown }
  | { readonly kind: "failure"; readonly error: unknown }
  | { readonly kind: "aborted" };

export class Transfers {
  readonly #core: WorkerCore;
  readonly #transport: Transport | undefined;
  readonly #retryBusyDelay: number;

  constructor(core: WorkerCore, transport: Transport | undefined, retryBusyDelay: number) {
    this.#core = core;
    this.#transport = transport;
    this.#retryBusyDelay = retryBusyDelay;
  }

  gather(instruction: GatherDep): void {
    const core = this.#core;
    const split = prefixWeights(
      "gather-dep",
      instruction.toGather.map((key) => {
        const ts = core.state.tasks.get(key);
        return [ts?.prefix ?? keySplit(key), ts?.getNbytes() ?? 0] as const;
      }),
    );
    const registry = new SpanRegistry();
    const root = newRoot(core.clock, GATHER_DEP_ROOT, {
      registry,
      // toGather is the instruction's own frozen array: shared, not copied (the trace's flows need the keys)
      attributes: { worker: instruction.worker, keys: instruction.toGather.length, toGather: instruction.toGather, totalNbytes: instruction.totalNbytes },
    }).start();
    const work: TransferWork = { kind: "gather-dep", root, split, registry, settled: false };
    core.work.track(work);
    launch(
      core,
      work,
      this.#transport?.explicitSpans === true,
      () => this.#fetch(instruction, work),
      (outcome) => this.#finish(work, instruction, outcome),
    );
  }

  async #fetch(instruction: GatherDep, work: TransferWork): Promise<GatherOutcome> {
    const core = this.#core;
    const signal = core.signal;
    await undefined;
    if (signal.aborted) return { kind: "aborted" };
    // dask's gather_dep is an asyncio task: its request goes out once the event loop is
    // through the callbacks queued before it (a modelled loop only; the wait is the root's `other`)
    const behind = core.loopIdleIn();
    if (behind > 0 && !(await waitUnlessAborted(core, behind, signal))) return { kind: "aborted" };
    const transport = this.#transport;
    try {
      if (transport === undefined) {
        throw new NetworkError(`worker ${core.address} has no transport to reach ${instruction.worker}`, { peer: instruction.worker });
      }
      const response: GetDataResponse = await transport.getData(instruction.worker, instruction.toGather, {
        who: core.address,
        signal,
        span: work.root,
      });
      if (response.status === "busy") return { kind: "busy" };
      if (response.status !== "OK") throw new Error(`peer ${instruction.worker} answered with status ${JSON.stringify((response as { status?: unknown }).status)}`);
      return { kind: "success", data: response.data };
    } catch (error) {
      if (signal.aborted) return { kind: "aborted" };
      if (error instanceof NetworkError) return { kind: "network-failure", error };
      return { kind: "failure", error };
    }
  }

  #coarse(outcome: Exclude<GatherOutcome, { kind: "aborted" }>): Outcome {
    switch (outcome.kind) {
      case "busy":
        return "busy";
      case "network-failure":
      case "failure":
        return "failed";
      case "success": {
        let received = false;
        for (const key in outcome.data) {
          received = true;
          const state = this.#core.state.tasks.get(key)?.state;
          // flight and resumed(flight→waiting) store the value; cancelled discards it
          if (state === "flight" || state === "resumed") return "ok";
        }
        return received ? "cancelled" : "missing";
      }
    }
  }

  #finish(work: TransferWork, instruction: GatherDep, outcome: GatherOutcome): void {
    if (!settleOutcome(this.#core, work, outcome.kind === "aborted") || outcome.kind === "aborted") return;
    const failure = outcome.kind === "failure" || outcome.kind === "network-failure" ? outcome : undefined;
    completeWork(this.#core, work, this.#coarse(outcome), failure, (span) => this.#doneEvent(instruction, outcome, span));
  }

  #doneEvent(instruction: GatherDep, outcome: Exclude<GatherOutcome, { kind: "aborted" }>, span: SpanRecord): StateMachineEvent {
    const core = this.#core;
    const worker = instruction.worker;
    const totalNbytes = instruction.totalNbytes;
    switch (outcome.kind) {
      case "success":
        return GatherDepSuccessEvent({ worker, totalNbytes, data: outcome.data, span, stimulusId: core.stimulusId("gather-dep-success") });
      case "busy":
        return GatherDepBusyEvent({ worker, totalNbytes, span, stimulusId: core.stimulusId("gather-dep-busy") });
      case "network-failure":
        return GatherDepNetworkFailureEvent({ worker, totalNbytes, span, stimulusId: core.stimulusId("gather-dep-network-failure") });
      case "failure":
        return GatherDepFailureEvent({ worker, totalNbytes, ...failureFields(outcome.error), span, stimulusId: core.stimulusId("gather-dep-failure") });
    }
  }

  /** RetryBusyWorkerLater: RetryBusyWorkerEvent after `retryBusyDelay` seconds (no root of its own). */
  retryLater(instruction: RetryBusyWorkerLater): void {
    const core = this.#core;
    const work: RetryWork = { kind: "retry-busy-worker", settled: false };
    core.work.track(work);
    core.clock.sleep(this.#retryBusyDelay, core.signal).then(
      () => {
        if (!settleOutcome(core, work, false)) return;
        try {
          core.handleStimulus(RetryBusyWorkerEvent({ worker: instruction.worker, stimulusId: core.stimulusId("retry-busy-worker") }));
        } catch (error) {
          core.internalError(error, work.kind);
        }
      },
      () => {
        core.work.settle(work);
      },
    );
  }
}
