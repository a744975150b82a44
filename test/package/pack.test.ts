// The package as a user gets it: `npm pack` (which builds dist/ through prepack), the tarball
// installed into an empty directory from the npm cache alone, both entry points imported and
// the `spanwork` bin run with plain node — no tsx, no sources, no dev dependencies.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appInstallFiles, type Manifest } from "./install-lock.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MANIFEST = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
const PACK_TIMEOUT = 240_000;

/** The child's environment: no loader or option inherited from the test runner. */
function plainEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` };
  delete env.NODE_OPTIONS;
  delete env.NODE_PATH;
  return env;
}

interface PackedFile {
  path: string;
}

let dir: string;
let app: string;
let packedFiles: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spanwork-pack-"));
  app = join(dir, "app");
  mkdirSync(app);
  const packed = await run("npm", ["pack", "--json", "--pack-destination", app], { cwd: ROOT, env: plainEnv(), maxBuffer: 64 * 2 ** 20 });
  const [result] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string; files: PackedFile[] }>;
  packedFiles = result!.files.map((file) => file.path);
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as Parameters<typeof appInstallFiles>[1];
  const registry = (await run("npm", ["config", "get", "registry"], { cwd: app, env: plainEnv() })).stdout.trim();
  const { packageJson, packageLock } = appInstallFiles(MANIFEST, lock, result!.filename, registry);
  writeFileSync(join(app, "package.json"), JSON.stringify(packageJson, null, 2));
  writeFileSync(join(app, "package-lock.json"), JSON.stringify(packageLock, null, 2));
  try {
    await run("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: app, env: plainEnv() });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`npm ci --offline of the tarball failed (is the npm cache filled? run npm ci first):\n${stderr}`);
  }
}, PACK_TIMEOUT);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Runs an ES module snippet with plain node inside the app directory. */
async function nodeModule(source: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", source], { cwd: app, env: plainEnv() });
  return stdout;
}

/** The relative imports of every module reachable from `entry` in the installed dist/. */
function reachableModules(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const found of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      pending.push(join(dirname(file), found[1]!));
    }
  }
  return seen;
}

describe("the packed package", () => {
  it("holds the compiled entry points and declarations, and no sources, tests or benchmarks", () => {
    for (const file of ["bin/spanwork.js", "dist/index.js", "dist/index.d.ts", "dist/testing/index.js", "dist/testing/index.d.ts", "dist/cli/main.js", "dist/lab/sweep-worker.js", "tools/dask_to_spanwork.py", "package.json", "README.md"]) {
      expect(packedFiles).toContain(file);
    }
    const unwanted = packedFiles.filter((file) => /^(src|test|bench|scripts|examples|node_modules)\//.test(file) || /\.test\.|(^|\/)tsconfig|vitest|__pycache__|\.pyc$/.test(file));
    expect(unwanted).toEqual([]);
    expect(packedFiles.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
  });

  it("installs without tsx or any dev dependency", () => {
    const installed = new Set(Object.keys((JSON.parse(readFileSync(join(app, "package-lock.json"), "utf8")) as { packages: object }).packages));
    expect(installed.has("node_modules/tsx")).toBe(false);
    expect(installed.has("node_modules/typescript")).toBe(false);
    expect(installed.has("node_modules/spanwork")).toBe(true);
  });

  it("imports both entry points with plain node, and runs a simulation through the library", async () => {
    const out = await nodeModule(`
      import { WorkerState, ComputeTaskEvent, simulate } from "spanwork";
      import { freshWorkerState, taskInState } from "spanwork/testing";
      const ws = freshWorkerState();
      ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s" }));
      const { report } = await simulate("map", { size: 20, workers: 2 });
      console.log(JSON.stringify({
        isWorkerState: ws instanceof WorkerState,
        executing: ws.executingCount,
        state: taskInState(freshWorkerState(), "y", "memory").ts.state,
        tasks: report.tasks.total,
        complete: report.complete,
      }));
    `);
    expect(JSON.parse(out)).toEqual({ isWorkerState: true, executing: 1, state: "memory", tasks: 20, complete: true });
  });

  it("keeps the testing entry out of the main entry's module graph", () => {
    const main = reachableModules(join(app, "node_modules/spanwork/dist/index.js"));
    expect(main.size).toBeGreaterThan(50);
    expect([...main].filter((file) => file.includes("/dist/testing/"))).toEqual([]);
  });

  it("runs the spanwork bin with plain node", async () => {
    const env = plainEnv();
    const version = await run(join(app, "node_modules/.bin/spanwork"), ["--version"], { cwd: app, env });
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    const bin = join(app, "node_modules/spanwork/bin/spanwork.js");
    const listed = await run(process.execPath, [bin, "list"], { cwd: app, env });
    expect(listed.stdout).toMatch(/^map\s/m);
    const report = await run(process.execPath, [bin, "run", "map", "--size", "30", "--json", "-"], { cwd: app, env });
    expect(JSON.parse(report.stdout)).toMatchObject({ workload: "map", tasks: { total: 30, completed: 30, lost: 0 } });
    const bad = await run(process.execPath, [bin, "run", "--workers", "zero"], { cwd: app, env }).catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 2, stderr: 'error: --workers: expected a whole number, got "zero"\n' });
  });

  it("runs a sweep on its thread pool and compares the results, with plain node", async () => {
    const env = plainEnv();
    const bin = join(app, "node_modules/spanwork/bin/spanwork.js");
    writeFileSync(join(app, "plan.yaml"), "workloads: [map]\nsize: 20\naxes:\n  workers: [1, 2]\nseeds: 2\n");
    const swept = await run(process.execPath, [bin, "sweep", "plan.yaml", "--out", "results.jsonl", "--jobs", "2"], { cwd: app, env });
    expect(swept.stdout).toMatch(/^sweep plan\.yaml: 4 runs done in /);
    const results = readFileSync(join(app, "results.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { error?: string; makespan: number });
    expect(results).toHaveLength(4);
    expect(results.filter((result) => result.error !== undefined)).toEqual([]);
    const compared = await run(process.execPath, [bin, "compare", "results.jsonl", "--baseline", "workers=1"], { cwd: app, env });
    expect(compared.stdout).toMatch(/^map · 2 configurations · seeds 1–2 · baseline: each against workers=1$/m);
  });

  it("gives a TypeScript consumer the declarations of both entry points", async () => {
    writeFileSync(
      join(app, "consumer.ts"),
      `import { WorkerState, simulate, type SimReport } from "spanwork";
import { freshWorkerState } from "spanwork/testing";
const ws: WorkerState = freshWorkerState();
const threads: number = ws.nthreads;
// @ts-expect-error: the declarations are real types, not any
const wrong: string = ws.nthreads;
export async function makespan(): Promise<number> {
  const report: SimReport = (await simulate("map", { size: 10 })).report;
  return report.makespan + threads + wrong.length;
}
`,
    );
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules/@types")],
        },
        files: ["consumer.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const checked = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app, env: plainEnv() }).catch((error: { stdout: string }) => error);
    expect("stdout" in checked ? checked.stdout : "").toBe("");
  }, 60_000);
});
