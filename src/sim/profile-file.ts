// Reading a cluster profile file, and the profiles it builds on: `extends: PATH` (relative to
// the file's own directory) makes the file a layer above that base profile, so a machine
// calibrated once has its variants (other jobs' load, a bigger memory limit) as a few lines.
// The chain is folded into one profile (stackClusterLayer, cluster.ts, which resolves as the
// layers stacked would), so callers get one ClusterProfile as before. docs/sim.md, "Clusters
// and profiles".
import { realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { stackClusterLayer } from "./cluster.js";
import { validateClusterProfile, type ClusterProfile } from "./cluster-spec.js";
import { isPlainObject } from "./spec-fields.js";
import { SpecError } from "./spec-error.js";
import { loadDataFile } from "./spec-file.js";
import { TASK_TABLE_FIELD } from "./task-table.js";

/** A file of the chain: the path it is read at, the path its problems name, its identity for cycles. */
interface ChainFile {
  readonly path: string;
  readonly shown: string;
  readonly identity: string;
}

/**
 * Reads a cluster profile file, JSON (.json) or YAML (anything else), with the profiles it
 * extends; every problem is a SpecError line naming the file it is in, as `shown` (default:
 * `path`) and, for a base, the path `extends` gives joined to its child's. The result's
 * `name` and `description` are the file's own: a variant is another cluster, and its base's
 * name would mislabel it.
 */
export function loadClusterProfile(path: string, shown: string = path): ClusterProfile {
  return loadChain({ path, shown, identity: identity(path) }, []);
}

function loadChain(file: ChainFile, children: readonly ChainFile[]): ClusterProfile {
  const { profile, base } = readProfile(file);
  if (base === undefined) return profile;
  const absolute = isAbsolute(base);
  const basePath = absolute ? base : join(dirname(file.path), base);
  const baseFile: ChainFile = { path: basePath, shown: absolute ? base : join(dirname(file.shown), base), identity: identity(basePath) };
  const chain = [...children, file];
  if (chain.some((link) => link.identity === baseFile.identity)) {
    throw new SpecError([`${file.shown}: extends: a cycle: ${[...chain, baseFile].map((link) => link.shown).join(" → ")}`]);
  }
  const missing = notAFile(basePath);
  if (missing !== null) throw new SpecError([`${file.shown}: extends: ${baseFile.shown}: ${missing}`]);
  const stacked: ClusterProfile = stackClusterLayer(loadChain(baseFile, chain), profile);
  if (profile.name !== undefined) stacked.name = profile.name;
  if (profile.description !== undefined) stacked.description = profile.description;
  return stacked;
}

const EXTENDS_EXPECTED = "expected the path of the profile this one builds on (relative to this file's directory)";

/** One file of the chain: its own fields (validated) and the path its `extends` gives, if any. */
function readProfile(file: ChainFile): { profile: ClusterProfile; base: string | undefined } {
  try {
    return loadDataFile(file.path, (data) => {
      const raw = data ?? {};
      if (!isPlainObject(raw)) return { profile: validateClusterProfile(raw), base: undefined };
      if (Object.hasOwn(raw, "tasks") || Object.hasOwn(raw, TASK_TABLE_FIELD)) {
        throw new SpecError(["a workload spec, not a cluster profile (a profile has the fields of a spec's cluster section at its top level)"]);
      }
      if (!Object.hasOwn(raw, "extends")) return { profile: validateClusterProfile(raw), base: undefined };
      const { extends: base, ...own } = raw;
      const problems: string[] = [];
      if (typeof base !== "string" || base.trim() === "") problems.push(`extends: ${EXTENDS_EXPECTED}`);
      let profile: ClusterProfile | undefined;
      try {
        profile = validateClusterProfile(own);
      } catch (error) {
        if (!(error instanceof SpecError)) throw error;
        problems.push(...error.issues);
      }
      if (problems.length > 0) throw new SpecError(problems);
      return { profile: profile!, base: base as string };
    });
  } catch (error) {
    // loadDataFile names the file by the path it read; the caller's name for it is `shown`.
    if (error instanceof SpecError && file.shown !== file.path) {
      throw new SpecError(error.issues.map((issue) => (issue.startsWith(`${file.path}: `) ? `${file.shown}: ${issue.slice(file.path.length + 2)}` : issue)));
    }
    throw error;
  }
}

/** Why `path` cannot be a base profile before it is read (missing, a folder), or null. */
function notAFile(path: string): string | null {
  try {
    return statSync(path).isDirectory() ? "a directory, not a profile file" : null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : null;
  }
}

/** The file a path names, links followed, so that a cycle through another spelling of a path is still one. */
function identity(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
