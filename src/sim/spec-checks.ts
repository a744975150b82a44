// The checks of a workload spec that look across task groups: references between groups
// (unknown prefixes, mismatched counts, cycles), explicit dependency keys, and the limits on
// the graph it would build (tasks and dependencies in all). They run on what is known of each
// group, so a spec with field errors still gets its reference errors in the same report:
// a check that needs a field which did not validate is skipped rather than guessed.
import { formatLimit, LIMITS } from "./limits.js";
import type { DependencyPattern } from "./spec.js";

/** What validated of one task group; null where its field did not. */
export interface GroupFacts {
  readonly prefix: string | null;
  readonly count: number | null;
  readonly patterns: readonly DependencyPattern[] | null;
  /** dependsOn was written as a list (paths then carry the pattern's index). */
  readonly listed: boolean;
}

export interface SpecFacts {
  readonly groups: readonly GroupFacts[];
  /** null when `outputs` did not validate or is absent. */
  readonly outputs: readonly string[] | null;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** "tasks[2].duration.mean" from ["tasks", 2, "duration", "mean"]; a key that is not a plain name is quoted: `deps["b.9"]`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else if (typeof part === "string" && IDENTIFIER.test(part)) text += text === "" ? part : `.${part}`;
    else text += `[${JSON.stringify(String(part))}]`;
  }
  return text === "" ? "(top level)" : text;
}

/** The path of pattern `j` of group `i`. */
export function patternPath(group: number, pattern: number, listed: boolean): Array<string | number> {
  return listed ? ["tasks", group, "dependsOn", pattern] : ["tasks", group, "dependsOn"];
}

/** The messages of the explicit-dependency checks, shared with compileSpec (which checks specs built in code). */
export const explicitProblem = {
  notInGroup: (path: ReadonlyArray<string | number>, key: string): string =>
    `${formatPath(path)}: ${JSON.stringify(key)} is not a task of this group (use its index or its key)`,
  unknownDependency: (path: ReadonlyArray<string | number>, key: string): string => `${formatPath(path)}: unknown dependency ${JSON.stringify(key)}`,
};

/** The index within its group of an explicit entry's name: an index ("3") or the group's own key ("load-3"); -1 if neither. */
export function explicitEntryIndex(name: string, prefix: string, count: number): number {
  if (/^\d+$/.test(name)) {
    const i = Number(name);
    return i < count ? i : -1;
  }
  const key = parseKey(name);
  return key !== null && key.prefix === prefix && key.index < count ? key.index : -1;
}

/** `<prefix>-<i>` with i written as the graph writes it (no leading zeros). */
function parseKey(key: string): { prefix: string; index: number } | null {
  const match = /^(.+)-(0|[1-9]\d*)$/.exec(key);
  return match === null ? null : { prefix: match[1]!, index: Number(match[2]) };
}

export function checkReferences(facts: SpecFacts): string[] {
  const problems: string[] = [];
  const groups = new Map<string, { index: number; count: number | null }>();
  facts.groups.forEach((group, i) => {
    if (group.prefix === null) return;
    if (groups.has(group.prefix)) problems.push(`tasks[${i}].prefix: duplicate prefix ${JSON.stringify(group.prefix)}`);
    else groups.set(group.prefix, { index: i, count: group.count });
  });
  // A reference to a group whose prefix did not validate would look unknown: only say "unknown" when every name is known.
  const namesKnown = facts.groups.every((group) => group.prefix !== null);
  const context: CheckContext = { groups, namesKnown, known: [...groups.keys()].join(", "), problems };
  let tasks = 0;
  for (const group of facts.groups) tasks += group.count ?? 0;
  if (tasks > LIMITS.tasks) problems.push(`tasks: ${formatLimit(tasks)} tasks in all, more than the limit of ${formatLimit(LIMITS.tasks)}`);

  const edges = new Map<string, Set<string>>();
  let dependencies = 0;
  let heaviest = { path: "", dependencies: 0 };
  facts.groups.forEach((group, i) => {
    if (group.prefix === null || group.patterns === null) return;
    const own = new Set<string>();
    if (!edges.has(group.prefix)) edges.set(group.prefix, own);
    group.patterns.forEach((pattern, j) => {
      const at = patternPath(i, j, group.listed);
      const added = pattern.pattern === "explicit" ? checkExplicit(pattern, at, group, context) : checkPattern(pattern, at, group, own, context);
      dependencies += added;
      if (added > heaviest.dependencies) heaviest = { path: formatPath(at), dependencies: added };
    });
  });
  if (dependencies > LIMITS.dependencies) {
    problems.push(
      `tasks: about ${formatLimit(Math.round(dependencies))} dependencies in all, more than the limit of ${formatLimit(LIMITS.dependencies)} (${formatLimit(Math.round(heaviest.dependencies))} from ${heaviest.path})`,
    );
  }
  if (namesKnown && facts.outputs !== null) {
    facts.outputs.forEach((prefix, j) => {
      if (!groups.has(prefix)) problems.push(`outputs[${j}]: unknown task prefix ${JSON.stringify(prefix)}`);
    });
  }
  const cycle = findGroupCycle(edges);
  if (cycle !== null) problems.push(`tasks: dependency cycle between task groups: ${cycle.join(" → ")}`);
  return problems;
}

/** What every pattern check reads: the groups by prefix, whether every prefix validated, and where problems go. */
interface CheckContext {
  readonly groups: ReadonlyMap<string, { index: number; count: number | null }>;
  readonly namesKnown: boolean;
  /** The known prefixes, for "unknown task prefix" messages. */
  readonly known: string;
  readonly problems: string[];
}

/** Checks one pattern other than explicit; returns the number of dependencies it makes (expected, for random). */
function checkPattern(
  pattern: Exclude<DependencyPattern, { pattern: "explicit" }>,
  at: ReadonlyArray<string | number>,
  group: GroupFacts,
  own: Set<string>,
  { groups, namesKnown, known, problems }: CheckContext,
): number {
  if (pattern.pattern === "none") return 0;
  const prefix = group.prefix!;
  const target = groups.get(pattern.on);
  if (target === undefined) {
    if (namesKnown) problems.push(`${formatPath([...at, "on"])}: unknown task prefix ${JSON.stringify(pattern.on)} (known: ${known})`);
    return 0;
  }
  const count = group.count;
  const targetCount = target.count;
  if (pattern.on === prefix) {
    if (pattern.pattern !== "random") {
      problems.push(`${formatPath([...at, "on"])}: "${prefix}" cannot depend on itself with pattern ${pattern.pattern} (only random, which links each task to earlier ones)`);
      return 0;
    }
    return count === null ? 0 : (pattern.p * count * (count - 1)) / 2;
  }
  own.add(pattern.on);
  if (count === null || targetCount === null) return 0;
  switch (pattern.pattern) {
    case "one-to-one":
      if (targetCount !== count) {
        problems.push(`${formatPath(at)}: one-to-one needs equal counts, but "${prefix}" has ${count} and "${pattern.on}" has ${targetCount}`);
      }
      return count;
    case "reduce": {
      const expected = Math.ceil(targetCount / pattern.fanIn);
      if (expected !== count) {
        problems.push(`${formatPath(at)}: reduce of ${targetCount} "${pattern.on}" tasks with fanIn ${pattern.fanIn} needs count ${expected}, not ${count}`);
      }
      return targetCount;
    }
    case "fan-out": {
      // Each task of the target is cut into `pieces`: task i needs target task ⌊i / pieces⌋.
      const pieces = pattern.pieces ?? (count % targetCount === 0 ? count / targetCount : null);
      if (pieces === null || pieces * targetCount !== count) {
        const want = pattern.pieces === undefined ? "a multiple of" : `${pattern.pieces} ×`;
        problems.push(`${formatPath(at)}: fan-out of ${targetCount} "${pattern.on}" tasks needs a count of ${want} ${targetCount}, not ${count}`);
      }
      return count;
    }
    case "strided":
      // Task j needs every target task whose index is j modulo this group's count (piece j of each).
      if (targetCount % count !== 0) {
        problems.push(`${formatPath(at)}: strided needs "${pattern.on}" (${targetCount} tasks) to have a multiple of the ${count} tasks of "${prefix}"`);
      }
      return targetCount;
    case "all-to-all":
      return count * targetCount;
    case "random":
      return pattern.p * count * targetCount;
  }
}

/** Checks the names of an explicit pattern: entries name tasks of the group, dependencies name tasks of the spec. */
function checkExplicit(
  pattern: Extract<DependencyPattern, { pattern: "explicit" }>,
  at: ReadonlyArray<string | number>,
  group: GroupFacts,
  { groups, namesKnown, problems }: CheckContext,
): number {
  const count = group.count;
  const entries: Array<[Array<string | number>, readonly string[]]> = [];
  if (Array.isArray(pattern.deps)) {
    if (count !== null && pattern.deps.length > count) {
      problems.push(`${formatPath(at)}: explicit deps list has ${pattern.deps.length} entries but the group has ${count} tasks`);
    }
    pattern.deps.forEach((keys, i) => entries.push([[...at, "deps", i], keys]));
  } else {
    for (const [name, keys] of pattern.deps) {
      const path = [...at, "deps", name];
      if (count !== null && explicitEntryIndex(name, group.prefix!, count) < 0) problems.push(explicitProblem.notInGroup(path, name));
      entries.push([path, keys]);
    }
  }
  let dependencies = 0;
  for (const [path, keys] of entries) {
    dependencies += keys.length;
    if (!namesKnown) continue;
    keys.forEach((key, k) => {
      const parsed = parseKey(key);
      const target = parsed === null ? undefined : groups.get(parsed.prefix);
      if (target !== undefined && target.count === null) return;
      if (target === undefined || parsed!.index >= target.count!) problems.push(explicitProblem.unknownDependency([...path, k], key));
    });
  }
  return dependencies;
}

function findGroupCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, 1 | 2>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 1);
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const s = state.get(next);
      if (s === 1) return [...path.slice(path.indexOf(next)), next];
      if (s === undefined) {
        const found = visit(next);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(node, 2);
    return null;
  };
  for (const node of edges.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found !== null) return found;
  }
  return null;
}
