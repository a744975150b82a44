// Small helpers shared by the benchmark suites.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Median of a non-empty list (the upper middle for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of an empty list");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A writer of one JSON line per measurement on stdout, tagged with the suite's name. */
export function jsonLines(suite: string): (record: Record<string, unknown>) => void {
  return (record) => {
    process.stdout.write(`${JSON.stringify({ suite, ...record })}\n`);
  };
}

/**
 * Between timed runs, when node runs with --expose-gc (npm run bench does): a collection of
 * the young generation, which frees the previous run's short-lived garbage.
 *
 * Not a full collection: on Node 20 a full one (`gc()`, `gc(false)`) deoptimizes the code
 * that referenced the previous run's dead objects (V8's "weak objects" deopt reason: 198
 * deopts over 4 W1 runs, measured with --trace-deopt), so every timed run after it started
 * from a cold JIT and ran 1.7-2x slower. A long-running worker never pays that; what is
 * left of the previous run in the old generation is collected during the next run and
 * charged to it, which errs against us.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: (options: { type: "minor" }) => void }).gc?.({ type: "minor" });
}

/** A benchmark file bundled for a child process, and how to remove it. */
export interface ChildBundle {
  readonly file: string;
  cleanup(): void;
}

/**
 * Bundles `entry` with esbuild so that children run it on plain `node`: no tsx loader
 * thread, no transform cost, no source-mapped stack traces in the timed region. The
 * dependencies are bundled too (the bundle lives in a temp directory, where node_modules
 * cannot be resolved); a `require` shim lets CommonJS ones (yaml) load node builtins.
 * Null when esbuild is missing.
 */
export async function bundleForChild(entry: string, name: string): Promise<ChildBundle | null> {
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch {
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), `spanwork-bench-${name}-`));
  const file = join(dir, `${name}-bench.mjs`);
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: file,
      logLevel: "silent",
      external: ["@opentelemetry/*", "playwright-core", "esbuild"],
      banner: { js: 'import { createRequire as __spanworkRequire } from "node:module"; const require = __spanworkRequire(import.meta.url);' },
    });
  } catch (error) {
    cleanup();
    throw error;
  }
  return { file, cleanup };
}

/**
 * Runs `entry` (or its bundle) in a fresh `node --expose-gc [nodeFlags]` with `args`, and
 * prints each JSON line the child wrote, tagged with how it ran (`process`).
 */
export function runChildJsonLines(
  suite: string,
  entry: string,
  bundle: ChildBundle | null,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): void {
  const command = bundle === null ? ["--import", "tsx", entry] : [bundle.file];
  const child = spawnSync(process.execPath, ["--expose-gc", ...nodeFlags, ...command, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`bench ${suite}: child ${args.join(" ")} failed (status ${child.status})`);
  const runner = bundle === null ? "node --import tsx" : "node, esbuild bundle";
  const flags = nodeFlags.length > 0 ? ` ${nodeFlags.join(" ")}` : "";
  for (const line of child.stdout.trim().split("\n")) {
    console.log(JSON.stringify({ ...(JSON.parse(line) as Record<string, unknown>), process: `child (${runner}${flags})` }));
  }
}
