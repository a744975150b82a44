// A placement policy that throws or answers nonsense stops the run with one line naming the
// policy, the call and the task, rather than letting the simulation go on corrupted.
import type { WorkerView } from "./policy.js";

export class PolicyError extends Error {
  override readonly name = "PolicyError";

  constructor(
    readonly policy: string,
    readonly call: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? `threw ${cause.name === "Error" ? "" : `${cause.name}: `}${cause.message}` : String(cause);
    super(`scheduler policy "${policy}": ${call}: ${reason}`, cause instanceof Error ? { cause } : undefined);
  }
}

/** Why an answer of decideWorker is not a running worker. */
export function describeAnswer(answer: unknown, workers: readonly WorkerView[]): string {
  if (typeof answer !== "number" || !Number.isInteger(answer) || answer < 0 || answer >= workers.length) {
    const shown = typeof answer === "number" ? String(answer) : answer === undefined ? "undefined" : JSON.stringify(answer) ?? String(answer);
    return `returned ${shown}, which is not a worker id (0–${workers.length - 1}), QUEUE (-2) or NO_WORKER (-1)`;
  }
  const ws = workers[answer]!;
  return `returned worker ${answer} (${ws.address}), which is ${ws.status}`;
}
