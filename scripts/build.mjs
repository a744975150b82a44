#!/usr/bin/env node
// `npm run build` (and `npm pack`, through prepack): the compiled JavaScript and declarations of
// src/ in dist/, from a clean dist/ so that a module deleted from src/ never ships.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
const build = spawnSync("npx", ["--no-install", "tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
process.exit(build.status ?? 1);
