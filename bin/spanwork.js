#!/usr/bin/env node
// Entry point of the `spanwork` command. A checkout has src/ and runs the TypeScript sources
// through tsx (a dev dependency), so it needs no build step; an installed package has no src/
// (the `files` list of package.json leaves it out) and runs the compiled JavaScript in dist/
// on plain node.
import { existsSync } from "node:fs";

const sources = new URL("../src/cli/main.ts", import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import("../dist/cli/main.js"));
}
process.exitCode = await main(process.argv.slice(2));
