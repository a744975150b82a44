// `--scheduler NAME[:key=value,…]` and `spanwork list --schedulers`: a registered policy is
// checked, and a module path loaded (relative to the working directory), before the run
// starts, so a typo never costs a simulation.
import {
  DEFAULT_SCHEDULER_POLICY,
  PolicySelectionError,
  SCHEDULER_POLICY_NAMES,
  isPolicyPath,
  parsePolicySelection,
  resolvePolicy,
  SCHEDULER_POLICIES,
  type ResolvedPolicy,
} from "../sim/scheduler/registry.js";
import { loadPolicy } from "../sim/scheduler/user-policy.js";
import { CliUsageError } from "./errors.js";

/**
 * A registered policy and its options checked now; a module path is kept as typed, for
 * `loadSchedulerModule` (the value stays a string: `spanwork sweep` sends it to its threads).
 */
export function parseSchedulerOption(text: string): string {
  try {
    if (!isPolicyPath(parsePolicySelection(text).name)) resolvePolicy(text);
    return text;
  } catch (error) {
    if (error instanceof PolicySelectionError) throw new CliUsageError(`--scheduler: ${error.message}`);
    throw error;
  }
}

/** A module path's policy, loaded relative to `cwd` (its name stays the path as typed); null for a registered name. */
export async function loadSchedulerModule(text: string, cwd: string): Promise<ResolvedPolicy | null> {
  if (!isPolicyPath(parsePolicySelection(text).name)) return null;
  try {
    return await loadPolicy(text, cwd);
  } catch (error) {
    if (error instanceof PolicySelectionError) throw new CliUsageError(`--scheduler: ${error.message}`);
    throw error;
  }
}

export interface SchedulerListing {
  name: string;
  description: string;
  isDefault: boolean;
  options: Array<{ name: string; type: string; default?: string; description: string }>;
}

export function schedulerListings(): SchedulerListing[] {
  return SCHEDULER_POLICY_NAMES.map((name) => {
    const entry = SCHEDULER_POLICIES[name];
    return {
      name,
      description: entry.description,
      isDefault: name === DEFAULT_SCHEDULER_POLICY,
      options: Object.entries(entry.options).map(([option, spec]) => ({
        name: option,
        type: spec.type,
        ...(spec.default === undefined ? {} : { default: String(spec.default) }),
        description: spec.description,
      })),
    };
  });
}
