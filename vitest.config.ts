import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A private temporary directory per run and per test file; a file whose tests leave
    // anything in it fails.
    globalSetup: ["test/util/temp-dir-check.ts"],
    setupFiles: ["test/util/temp-dir-per-file.ts"],
  },
});
