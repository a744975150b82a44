// Comparing the holders a who_has message lists with the ones a task already has, without a
// Set per comparison for the usual one or two holders.
import { everyLink, linkCount, linkHas, type Links } from "./links.js";

/** Whether `listed` minus `self` is exactly `current`. */
export function sameHolders(current: Links<string>, listed: readonly string[], self: string | null): boolean {
  for (let i = 0; i < listed.length; i++) {
    const worker = listed[i] as string;
    if (worker !== self && !linkHas(current, worker)) return false;
  }
  const n = linkCount(current);
  if (n === 0) return true;
  return everyLink(current, isListed, n > 16 ? new Set(listed) : listed);
}

function isListed(worker: string, listed: readonly string[] | ReadonlySet<string>): boolean {
  return Array.isArray(listed) ? listed.includes(worker) : (listed as ReadonlySet<string>).has(worker);
}
