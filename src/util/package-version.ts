import { readFileSync } from "node:fs";

let cached: string | undefined;

/**
 * The version in spanwork's package.json, read once. The file is two folders up from this
 * module both in the sources (src/util) and in the build (dist/util).
 */
export function packageVersion(): string {
  if (cached === undefined) {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    cached = typeof manifest.version === "string" ? manifest.version : "0.0.0";
  }
  return cached;
}
