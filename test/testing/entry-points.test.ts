// fast-check is a peer dependency of `spanwork/testing` only: the main entry must never
// load it, and the kit's fixtures must work without it. Checked twice: statically (every
// import reachable from src/index.ts) and at run time (a child process in which resolving
// fast-check fails).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Every module reachable from `entry` through relative imports, and the packages they import. */
function reachable(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    // static imports, re-exports and dynamic import() calls alike
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith(".")) {
        packages.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] as string));
        continue;
      }
      const target = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
      if (!existsSync(target)) throw new Error(`${file}: cannot resolve ${specifier}`);
      pending.push(target);
    }
  }
  return { files, packages };
}

// Resolving fast-check fails in the child, as in a project that did not install it.
const BLOCK_FAST_CHECK = `
import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (specifier === "fast-check" || specifier.startsWith("fast-check/")) {
    const error = new Error("Cannot find package 'fast-check' (blocked by the test)");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}\`));
`;

const CHILD = `
const out = {};
out.fastCheck = await import("fast-check").then(() => "loaded", (e) => e.code);
const main = await import("./src/index.ts");
out.main = typeof main.WorkerState;
const kit = await import("./src/testing/index.ts");
out.fixture = kit.freshWorkerState().nthreads;
try { kit.arbitraryStimuli(); out.arbitrary = "built"; } catch (e) { out.arbitrary = e.message; }
console.log(JSON.stringify(out));
`;

describe("entry points and the fast-check peer dependency", () => {
  it("nothing reachable from src/index.ts imports fast-check or the testing kit", () => {
    const { files, packages } = reachable(resolve(root, "src/index.ts"));
    expect(files.size).toBeGreaterThan(50);
    expect([...packages]).not.toContain("fast-check");
    expect([...files].filter((file) => file.includes("/src/testing/"))).toEqual([]);
    // the walk does see the kit's own import of it
    expect([...reachable(resolve(root, "src/testing/index.ts")).packages]).toContain("fast-check");
  });

  it("without fast-check, the main entry and the kit's fixtures load; the property tools name the missing package", () => {
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", "--import", `data:text/javascript,${encodeURIComponent(BLOCK_FAST_CHECK)}`, "--input-type=module", "-e", CHILD],
      { cwd: root, encoding: "utf8", timeout: 60_000 },
    );
    expect(child.stderr).toBe("");
    const out = JSON.parse(child.stdout) as Record<string, unknown>;
    expect(out.fastCheck).toBe("ERR_MODULE_NOT_FOUND");
    expect(out.main).toBe("function");
    expect(out.fixture).toBe(1);
    expect(out.arbitrary).toMatch(/^spanwork\/testing: arbitraryStimuli needs the optional peer dependency fast-check \(npm install --save-dev fast-check\)/);
  });

  it("package.json declares fast-check an optional peer dependency, and keeps it for development", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as Record<string, Record<string, unknown>>;
    expect(pkg.peerDependencies?.["fast-check"]).toBe(pkg.devDependencies?.["fast-check"]);
    expect(pkg.peerDependenciesMeta?.["fast-check"]).toEqual({ optional: true });
    expect(pkg.dependencies?.["fast-check"]).toBeUndefined();
  });
});
