// Reading a spec-like file (a workload, a cluster profile): one place for the file's own
// problems, so every loader reports them alike and prefixes its validator's with the path.
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { SpecError } from "./spec-error.js";

/** Reads JSON (.json) or YAML (anything else) and hands the data to `validate`; every problem is a SpecError naming the path. */
export function loadDataFile<T>(path: string, validate: (data: unknown) => T): T {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
    // Editors on Windows save UTF-8 with a byte-order mark; JSON.parse would reject it.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  } catch (error) {
    throw new SpecError([`${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`]);
  }
  const json = extname(path).toLowerCase() === ".json";
  let data: unknown;
  try {
    data = json ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SpecError([`${path}: not valid ${json ? "JSON" : "YAML"}: ${syntaxProblem(error)}`]);
  }
  try {
    return validate(data);
  } catch (error) {
    if (error instanceof SpecError) throw new SpecError(error.issues.map((issue) => `${path}: ${issue}`));
    throw error;
  }
}

/** A JSON or YAML parser's message in one line: the YAML parser's code frame, and the colon
 * that introduces it ("… at line 9, column 1:"), left out. */
export function syntaxProblem(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.replace(/:\s*$/, "");
}
