import { describe, expect, it } from "vitest";
import { simulate } from "../../src/sim/index.js";
import { existingStorage } from "../../src/spans/storage.js";

// Once any AsyncLocalStorage binding exists, Node 20 charges every promise for its hooks.
// The simulated workers pass spans explicitly, so a whole simulation never creates one.
describe("simulation hot path", () => {
  it("runs a shuffle with spill and transfers without creating AsyncLocalStorage", async () => {
    const { report } = await simulate("shuffle", { size: 200, workers: 3, memoryLimit: 200e6, seed: 3 });
    expect(report.complete).toBe(true);
    expect(existingStorage()).toBeUndefined();
  });
});
