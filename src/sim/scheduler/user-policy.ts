// User policies: `--scheduler ./my-policy.ts[:key=value,…]` (or .js/.mjs) loads a module whose
// default export is a policy factory, `(context) => policy` (see examples/ and docs/sim.md).
// TypeScript modules load where a TypeScript loader is active (the spanwork command, tsx,
// vitest).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { PolicyFactory } from "./policy.js";
import { PolicySelectionError, isPolicyPath, parsePolicySelection, resolvePolicy, type PolicySelection, type ResolvedPolicy } from "./registry.js";

/** Resolves a selection, importing the module when it names a path (relative to `cwd`). */
export async function loadPolicy(selection: PolicySelection | undefined, cwd: string = process.cwd()): Promise<ResolvedPolicy> {
  if (selection === undefined) return resolvePolicy();
  if (typeof selection === "object" && "create" in selection) return resolvePolicy(selection);
  const { name, options } = typeof selection === "string" ? parsePolicySelection(selection) : { name: selection.name, options: selection.options ?? {} };
  if (!isPolicyPath(name)) return resolvePolicy({ name, options });
  const create = await importFactory(name, cwd);
  return resolvePolicy({ name, options, create });
}

async function importFactory(path: string, cwd: string): Promise<PolicyFactory> {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new PolicySelectionError(`scheduler policy module ${path}: no such file (${file})`);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new PolicySelectionError(`scheduler policy module ${path}: cannot load it: ${error instanceof Error ? error.message : String(error)}`);
  }
  const factory = module.default;
  if (typeof factory !== "function") {
    throw new PolicySelectionError(`scheduler policy module ${path}: its default export must be a policy factory, (context) => policy; got ${factory === undefined ? "no default export" : typeof factory}`);
  }
  return factory as PolicyFactory;
}
