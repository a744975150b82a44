// Serving a peer's request for keys (dask's get_data), metered under a ["get-data"] root
// split over the keys' prefixes: read the values (memory-read / disk-read / deserialize),
// then let the transport send them (serialize / network). Busy past a limit of concurrent
// requests, like dask's transfer_outgoing_count_limit.
import { SpanRegistry } from "../spans/index.js";
import { keySplit, type Key } from "../state/index.js";
import type { WorkerCore } from "./async-work.js";
import { NetworkError } from "./errors.js";
import { exceptionAttributes } from "./failure.js";
import { prefixWeights, type PrefixWeights } from "./prefix-split.js";
import { GET_DATA_ROOT, latestChildEnd, newRoot } from "./span-roots.js";
import type { GetDataResponse, GetDataServeOptions, Outcome } from "./types.js";
import type { TransferWork } from "./work-tracker.js";

/**
 * A signal aborted by either input, with listeners removed by `dispose()` — unlike
 * `AbortSignal.any`, nothing stays attached to the worker's long-lived signal per request.
 */
function linkSignals(own: AbortSignal, other: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  if (other === undefined || other === own) return { signal: own, dispose: () => undefined };
  const controller = new AbortController();
  if (own.aborted || other.aborted) {
    controller.abort(own.aborted ? own.reason : other.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const onOwn = (): void => controller.abort(own.reason);
  const onOther = (): void => controller.abort(other.reason);
  own.addEventListener("abort", onOwn, { once: true });
  other.addEventListener("abort", onOther, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      own.removeEventListener("abort", onOwn);
      other.removeEventListener("abort", onOther);
    },
  };
}

export class GetDataServer {
  readonly #core: WorkerCore;
  readonly #busyLimit: number;
  /** Requests being served (dask's transfer_outgoing_count). */
  #serving = 0;

  constructor(core: WorkerCore, busyLimit: number) {
    this.#core = core;
    this.#busyLimit = busyLimit;
  }

  #prefixOf(key: Key): string {
    return this.#core.state.tasks.get(key)?.prefix ?? keySplit(key);
  }

  /** One per key: the split of a request before its values are read (or when it is refused). */
  #perKey(keys: readonly Key[]): PrefixWeights {
    return prefixWeights("get-data", keys.map((key) => [this.#prefixOf(key), 0] as const));
  }

  /** Serves `keys` (those not in memory are left out of the reply). The worker checked it is running. */
  async serve(keys: readonly Key[], options: GetDataServeOptions): Promise<GetDataResponse> {
    const core = this.#core;
    const registry = new SpanRegistry();
    const root = newRoot(core.clock, GET_DATA_ROOT, { registry, attributes: { who: options.who, keys: keys.length } }).start();
    if (this.#serving >= this.#busyLimit) {
      root.setAttribute("outcome", "busy");
      core.roots.finishSideRoot(root, "get-data-busy", this.#perKey(keys));
      return { status: "busy" };
    }
    const items: Array<readonly [string, number]> = [];
    // keys are data: a plain {} would turn `data["__proto__"] = value` into a prototype change
    const data = Object.create(null) as Record<Key, unknown>;
    const nbytes = Object.create(null) as Record<Key, number>;
    let totalBytes = 0;
    // One per key until the values are read (synchronously, before anything can scrape), then their stored sizes.
    const work: TransferWork = { kind: "get-data", root, split: this.#perKey(keys), registry, settled: false };
    core.work.track(work);
    this.#serving++;
    const link = linkSignals(core.signal, options.signal);
    const signal = link.signal;
    let outcome: Outcome = "failed";
    let failure: unknown;
    const serve = async (): Promise<void> => {
      // dask's get_data handler runs on the sender's event loop, after the callbacks queued
      // before the request (a modelled loop only)
      const queued = core.loopIdleIn();
      if (queued > 0) await core.clock.sleep(queued, signal);
      root.runSync(() => {
        for (const key of keys) {
          if (!core.data.has(key)) continue;
          const value = core.data.get(key);
          const size = core.state.tasks.get(key)?.nbytes ?? core.sizeof(value);
          data[key] = value;
          nbytes[key] = size;
          totalBytes += size;
          items.push([this.#prefixOf(key), size]);
        }
      });
      // from here on (in-progress scrapes included) the split follows the stored sizes
      if (items.length > 0) work.split = prefixWeights("get-data", items);
      const behind = latestChildEnd(root, 0) - core.clock.now();
      if (behind > 0) await core.clock.sleep(behind, signal);
      if (options.send !== undefined) await options.send({ data, nbytes, totalBytes, span: root, signal });
    };
    try {
      // A sender that records under `reply.span` needs no context binding.
      await (options.explicitSpans === true || options.send === undefined ? serve() : root.asCurrent(serve));
      outcome = items.length === 0 && keys.length > 0 ? "missing" : "ok";
    } catch (error) {
      outcome = signal.aborted ? (core.signal.aborted ? core.work.abortOutcome : "cancelled") : "failed";
      failure = error;
      // to the requesting peer, a server that closes mid-reply is a dropped connection
      if (core.signal.aborted) throw new NetworkError(`worker ${core.address} closed while serving`, { peer: core.address, cause: error });
      throw error;
    } finally {
      link.dispose();
      this.#serving--;
      if (core.work.settle(work) && root.isRecording()) {
        root.setAttribute("outcome", outcome);
        if (outcome === "failed") root.setAttributes(exceptionAttributes(failure));
        core.roots.finishSideRoot(root, "get-data", work.split);
      }
    }
    return { status: "OK", data, nbytes };
  }
}
