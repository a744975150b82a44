// The folders of src/ are layers (BRIEF: util → spans → state → spill → worker → sim → cli):
// a file may import from its own folder or from a folder below it, never above. src/testing
// (the kit for state-machine tests) and src/lab (sweeps and comparisons of simulator runs)
// may import anything below cli; src/index.ts, the package entry, anything. The import graph is read from every src/**/*.ts with the TypeScript
// compiler's own import scanner (static and dynamic imports, `export … from`, type-only
// imports too: a type import is a dependency of the design even when erased at run time).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");
/** Lowest first: each folder may import only from itself and the folders before it. */
const LAYERS = ["util", "spans", "state", "spill", "worker", "sim", "testing", "lab", "cli"] as const;
const ENTRY = "(entry)";

/** Edges allowed although they break the layering, each with the reason it still exists. */
const KNOWN_EXCEPTIONS: readonly { from: string; to: string; why: string }[] = [];

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts")) files.push(path);
  }
  return files;
}

function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? ENTRY : (parts[0] as string);
}

interface Edge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

/** Every import of a file inside src/ by a file in another folder of src/. */
function folderEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(SRC + sep)) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) edges.push({ from, to, file: relative(SRC, file), specifier });
    }
  }
  return edges;
}

function rank(folder: string): number {
  return folder === ENTRY ? LAYERS.length : LAYERS.indexOf(folder as (typeof LAYERS)[number]);
}

/** A cycle of the folder graph, as folder names (the first repeated at the end), or null. */
function findCycle(edges: readonly Edge[]): string[] | null {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    let targets = next.get(from);
    if (targets === undefined) next.set(from, (targets = new Set()));
    targets.add(to);
  }
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (folder: string): string[] | null => {
    if (state.get(folder) === "done") return null;
    if (state.get(folder) === "open") return [...path.slice(path.indexOf(folder)), folder];
    state.set(folder, "open");
    path.push(folder);
    for (const to of [...(next.get(folder) ?? [])].sort()) {
      const cycle = visit(to);
      if (cycle !== null) return cycle;
    }
    path.pop();
    state.set(folder, "done");
    return null;
  };
  for (const folder of [...next.keys()].sort()) {
    const cycle = visit(folder);
    if (cycle !== null) return cycle;
  }
  return null;
}

const isException = (edge: Edge): boolean => KNOWN_EXCEPTIONS.some((e) => e.from === edge.from && e.to === edge.to);

describe("import layers of src/", () => {
  const edges = folderEdges();

  it("reads the real import graph", () => {
    // The scanner sees what the layering is about: state uses spans, cli uses sim.
    expect(edges.some((e) => e.from === "state" && e.to === "spans")).toBe(true);
    expect(edges.some((e) => e.from === "cli" && e.to === "sim")).toBe(true);
    const folders = new Set(readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name));
    expect([...folders].filter((f) => rank(f) < 0)).toEqual([]);
  });

  it("every import goes down the layers (util → spans → state → spill → worker → sim → testing → lab → cli)", () => {
    const upward = edges
      .filter((e) => rank(e.to) > rank(e.from) && !isException(e))
      .map((e) => `${e.from} → ${e.to}: ${e.file} imports ${e.specifier}`);
    expect(upward).toEqual([]);
  });

  it("the folder graph has no cycle", () => {
    expect(findCycle(edges.filter((e) => !isException(e)))).toBeNull();
  });

  it("would catch a cycle", () => {
    const edge = (from: string, to: string): Edge => ({ from, to, file: "x.ts", specifier: "./y.js" });
    expect(findCycle([edge("spans", "state"), edge("state", "spans")])).toEqual(["spans", "state", "spans"]);
    expect(findCycle([edge("a", "b"), edge("b", "c"), edge("c", "a")])).toEqual(["a", "b", "c", "a"]);
    expect(findCycle([edge("cli", "sim"), edge("sim", "state")])).toBeNull();
  });

  it("lists only exceptions that still exist", () => {
    for (const exception of KNOWN_EXCEPTIONS) {
      expect(edges.some((e) => e.from === exception.from && e.to === exception.to)).toBe(true);
    }
  });
});
