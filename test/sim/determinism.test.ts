import { describe, expect, it } from "vitest";
import { Rng, simulate, type SimOptions } from "../../src/sim/index.js";

describe("determinism", () => {
  it("the same workload, options and seed give the same report, byte for byte", async () => {
    const options: SimOptions = {
      size: 120,
      seed: 1234,
      workers: 3,
      memoryLimit: 40e6,
      network: "max-min",
      faults: [
        { kind: "worker-death", worker: 1, at: 1.5 },
        { kind: "transfer-failure", probability: 0.05 },
        { kind: "busy", probability: 0.05 },
        { kind: "task-failure", probability: 0.02 },
      ],
    };
    const one = await simulate("random-dag", options);
    const two = await simulate("random-dag", options);
    expect(JSON.stringify(two.report)).toBe(JSON.stringify(one.report));
    const other = await simulate("random-dag", { ...options, seed: 1235 });
    expect(JSON.stringify(other.report)).not.toBe(JSON.stringify(one.report));
  });

  it("is deterministic for a spill- and transfer-heavy shuffle too", async () => {
    const one = await simulate("shuffle", { size: 400, seed: 3 });
    const two = await simulate("shuffle", { size: 400, seed: 3 });
    expect(one.report.spill.countWritten).toBeGreaterThan(0);
    expect(JSON.stringify(two.report)).toBe(JSON.stringify(one.report));
  });
});

describe("Rng", () => {
  it("replays its sequence from a seed and derives independent streams", () => {
    const a = new Rng(7);
    const b = new Rng(7);
    const draws = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(draws);
    expect(new Rng(8).nextUint32()).not.toBe(draws[0]);
    expect(Rng.derive(7, "graph").nextUint32()).not.toBe(Rng.derive(7, "faults").nextUint32());
  });

  it("draws with the right means", () => {
    const rng = new Rng(99);
    const n = 20_000;
    let uniform = 0;
    let normal = 0;
    let exponential = 0;
    for (let i = 0; i < n; i++) {
      uniform += rng.random();
      normal += rng.standardNormal();
      exponential += rng.exponential(2);
    }
    expect(uniform / n).toBeCloseTo(0.5, 1);
    expect(normal / n).toBeCloseTo(0, 1);
    expect(exponential / n).toBeCloseTo(2, 1);
    expect(rng.chance(0)).toBe(false);
    expect(rng.chance(1)).toBe(true);
  });
});
