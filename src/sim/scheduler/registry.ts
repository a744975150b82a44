// The built-in placement policies, by name, in `spanwork list schedulers` order: a new policy
// is one new file under policies/ exporting its entry plus one line here; the CLI's choices,
// the spec's check and the list derive from this object. Also how a run picks one: a name
// with options (`dask:stealing=false`, `{ name: "dask", options: { stealing: false } }`), or a
// loaded user module's factory (user-policy.ts).
import { isRegistryName, registryEntry, registryNames, type Registry } from "../../util/registry.js";
import { blevelPolicy } from "./policies/blevel.js";
import { daskPolicy } from "./policies/dask.js";
import { localityPolicy } from "./policies/locality.js";
import { randomPolicy } from "./policies/random.js";
import { roundRobinPolicy } from "./policies/round-robin.js";
import type { PolicyEntry, PolicyFactory, PolicyOptionValue } from "./policy.js";

export const SCHEDULER_POLICIES = {
  dask: daskPolicy,
  locality: localityPolicy,
  random: randomPolicy,
  "round-robin": roundRobinPolicy,
  blevel: blevelPolicy,
} as const satisfies Registry<PolicyEntry>;

export type SchedulerPolicyName = keyof typeof SCHEDULER_POLICIES;
export const SCHEDULER_POLICY_NAMES = registryNames(SCHEDULER_POLICIES);
export const DEFAULT_SCHEDULER_POLICY: SchedulerPolicyName = "dask";

/** A bad policy name or option: one line naming it. */
export class PolicySelectionError extends Error {
  override readonly name = "PolicySelectionError";
}

/** How a run names its policy. */
export type PolicySelection =
  /** `NAME[:key=value,…]`, NAME a registered policy or a module path. */
  | string
  | { readonly name: string; readonly options?: Readonly<Record<string, PolicyOptionValue>> }
  /** A factory already in hand (a loaded module, or a test's). */
  | { readonly name: string; readonly create: PolicyFactory; readonly options?: Readonly<Record<string, PolicyOptionValue>> };

export interface ResolvedPolicy {
  readonly name: string;
  readonly options: Readonly<Record<string, PolicyOptionValue>>;
  readonly create: PolicyFactory;
}

/** A module path rather than a registered name: `./x.ts`, `../x.js`, `/abs/x.mjs`, `x.ts`. */
export function isPolicyPath(name: string): boolean {
  return /^\.{0,2}\//.test(name) || /\.(ts|mts|js|mjs)$/.test(name);
}

/** Splits `NAME:key=value,key=value` (values untyped; checked by `resolvePolicy`). */
export function parsePolicySelection(text: string): { name: string; options: Record<string, string> } {
  const colon = text.indexOf(":");
  const name = (colon < 0 ? text : text.slice(0, colon)).trim();
  if (name === "") throw new PolicySelectionError(`scheduler: expected NAME[:key=value,…], got "${text}"`);
  const options = Object.create(null) as Record<string, string>;
  if (colon >= 0) {
    for (const pair of text.slice(colon + 1).split(",")) {
      if (pair.trim() === "") continue;
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new PolicySelectionError(`scheduler ${name}: expected key=value, got "${pair}"`);
      options[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
    }
  }
  return { name, options };
}

/** A registered policy with its options checked and defaults filled, or a given factory. */
export function resolvePolicy(selection: PolicySelection = DEFAULT_SCHEDULER_POLICY): ResolvedPolicy {
  const { name, options } = typeof selection === "string" ? parsePolicySelection(selection) : { name: selection.name, options: selection.options ?? {} };
  if (typeof selection === "object" && "create" in selection) {
    if (typeof selection.create !== "function") throw new PolicySelectionError(`scheduler ${name}: create must be a policy factory function`);
    return { name, options: untypedOptions(options), create: selection.create };
  }
  const entry = registryEntry(SCHEDULER_POLICIES, name);
  if (entry === undefined) {
    const hint = isPolicyPath(name) ? " (a module path: load it with loadPolicy first)" : "";
    throw new PolicySelectionError(`unknown scheduler policy "${name}"${hint} (known: ${SCHEDULER_POLICY_NAMES.join(", ")}, or a path to a .ts/.js/.mjs module)`);
  }
  return { name, options: typedOptions(name, entry, options), create: entry.create };
}

export function isSchedulerPolicyName(name: string): name is SchedulerPolicyName {
  return isRegistryName(SCHEDULER_POLICIES, name);
}

function typedOptions(policy: string, entry: PolicyEntry, given: Readonly<Record<string, PolicyOptionValue>>): Record<string, PolicyOptionValue> {
  const out = Object.create(null) as Record<string, PolicyOptionValue>;
  for (const key of Object.keys(given)) {
    const spec = Object.hasOwn(entry.options, key) ? entry.options[key] : undefined;
    if (spec === undefined) {
      const known = Object.keys(entry.options);
      throw new PolicySelectionError(`scheduler policy "${policy}" has no option "${key}" (${known.length === 0 ? "it takes none" : `options: ${known.join(", ")}`})`);
    }
    out[key] = coerce(policy, key, spec.type, given[key]!);
  }
  for (const [key, spec] of Object.entries(entry.options)) if (!(key in out) && spec.default !== undefined) out[key] = spec.default;
  return out;
}

function coerce(policy: string, key: string, type: "boolean" | "number" | "string", value: PolicyOptionValue): PolicyOptionValue {
  const problem = (expected: string): never => {
    throw new PolicySelectionError(`scheduler policy "${policy}" option ${key}: expected ${expected}, got ${JSON.stringify(value)}`);
  };
  if (type === "boolean") {
    if (typeof value === "boolean") return value;
    if (value === "true") return true;
    if (value === "false") return false;
    return problem("true or false");
  }
  if (type === "number") {
    const number = typeof value === "number" ? value : /^[+]?inf(inity)?$/i.test(String(value)) ? Infinity : String(value).trim() === "" ? NaN : Number(value);
    if (typeof number !== "number" || Number.isNaN(number) || !(number > 0)) return problem("a positive number (or inf)");
    return number;
  }
  return typeof value === "string" ? value : String(value);
}

/** Options of a user policy: "true"/"false" → booleans, numerals → numbers, the rest strings. */
function untypedOptions(given: Readonly<Record<string, PolicyOptionValue>>): Record<string, PolicyOptionValue> {
  const out = Object.create(null) as Record<string, PolicyOptionValue>;
  for (const [key, value] of Object.entries(given)) {
    if (typeof value !== "string") out[key] = value;
    else if (value === "true" || value === "false") out[key] = value === "true";
    else if (value.trim() !== "" && Number.isFinite(Number(value))) out[key] = Number(value);
    else out[key] = value;
  }
  return out;
}
