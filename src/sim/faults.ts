// Faults of a run, resolved against the cluster: which worker dies when, and the
// probabilities with which transfers fail, peers answer busy and tasks raise.
import { Rng } from "./rng.js";
import { SpecError, type FaultSpec } from "./spec.js";

interface Window {
  readonly after: number;
  readonly before: number;
}

export interface FaultPlan {
  readonly deaths: ReadonlyArray<{ readonly worker: number; readonly at: number }>;
  readonly busy: ReadonlyArray<Window & { readonly probability: number; readonly worker: number | null }>;
  readonly transferFailures: ReadonlyArray<Window & { readonly probability: number; readonly from: number | null; readonly to: number | null }>;
  readonly taskFailures: ReadonlyArray<Window & { readonly probability: number; readonly prefix: string | null }>;
}

/** Lists of faults and where each comes from, named in errors ("faults" of the spec, "options.faults"). */
export type FaultSources = ReadonlyArray<{ readonly faults: readonly FaultSpec[]; readonly where: string }>;

/** Checks worker references and sorts the faults by kind. */
export function resolveFaults(sources: FaultSources, addresses: readonly string[]): FaultPlan {
  const problems: string[] = [];
  const worker = (ref: number | string | undefined, path: string): number | null => {
    if (ref === undefined) return null;
    const index = typeof ref === "number" ? ref : addresses.indexOf(ref);
    if (index < 0 || index >= addresses.length) {
      problems.push(`${path}: no worker ${JSON.stringify(ref)} in this cluster (workers 0…${addresses.length - 1}: ${addresses[0]} …)`);
      return null;
    }
    return index;
  };
  const window = (fault: { after?: number | undefined; before?: number | undefined }): Window => ({
    after: fault.after ?? 0,
    before: fault.before ?? Number.POSITIVE_INFINITY,
  });
  const plan = {
    deaths: [] as Array<{ worker: number; at: number }>,
    busy: [] as Array<Window & { probability: number; worker: number | null }>,
    transferFailures: [] as Array<Window & { probability: number; from: number | null; to: number | null }>,
    taskFailures: [] as Array<Window & { probability: number; prefix: string | null }>,
  };
  for (const { faults, where } of sources) faults.forEach((fault, i) => {
    const at = `${where}[${i}]`;
    switch (fault.kind) {
      case "worker-death": {
        const w = worker(fault.worker, `${at}.worker`);
        if (w !== null) plan.deaths.push({ worker: w, at: fault.at });
        break;
      }
      case "busy":
        plan.busy.push({ ...window(fault), probability: fault.probability, worker: worker(fault.worker, `${at}.worker`) });
        break;
      case "transfer-failure":
        plan.transferFailures.push({
          ...window(fault),
          probability: fault.probability,
          from: worker(fault.from, `${at}.from`),
          to: worker(fault.to, `${at}.to`),
        });
        break;
      case "task-failure":
        plan.taskFailures.push({ ...window(fault), probability: fault.probability, prefix: fault.prefix ?? null });
        break;
    }
  });
  if (problems.length > 0) throw new SpecError(problems);
  plan.deaths.sort((a, b) => a.at - b.at || a.worker - b.worker);
  return plan;
}

const inWindow = (window: Window, now: number): boolean => now >= window.after && now < window.before;

/** Draws the probabilistic faults, all from one generator derived from the run's seed. */
export class FaultDice {
  private readonly rng: Rng;

  constructor(
    private readonly plan: FaultPlan,
    seed: number,
  ) {
    this.rng = Rng.derive(seed, "faults");
  }

  /** Does the peer `from` answer busy to this request? */
  busy(from: number, now: number): boolean {
    for (const fault of this.plan.busy) {
      if ((fault.worker === null || fault.worker === from) && inWindow(fault, now) && this.rng.chance(fault.probability)) return true;
    }
    return false;
  }

  /** Does this transfer from `from` to `to` drop its connection? */
  transferFails(from: number, to: number, now: number): boolean {
    for (const fault of this.plan.transferFailures) {
      if ((fault.from === null || fault.from === from) && (fault.to === null || fault.to === to) && inWindow(fault, now) && this.rng.chance(fault.probability)) {
        return true;
      }
    }
    return false;
  }

  /** Does this execution of a task of `prefix` raise (its own probability, then the faults)? */
  taskFails(prefix: string, ownProbability: number, now: number): boolean {
    if (this.rng.chance(ownProbability)) return true;
    for (const fault of this.plan.taskFailures) {
      if ((fault.prefix === null || fault.prefix === prefix) && inWindow(fault, now) && this.rng.chance(fault.probability)) return true;
    }
    return false;
  }
}
