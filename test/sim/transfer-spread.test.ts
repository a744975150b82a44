// Transfers vary (docs/sim.md, "Transfers vary"; network/spread.ts): each transfer's wire moves
// bytes × a lognormal factor (median 1) drawn from a stream of its own per receiver, derived
// from the run's seed. The draw's distribution, its determinism, how a run's transfer takes it,
// the off switch (absent, false or 0: the model itself, exact) and the field's validation.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GraphBuilder, NO_OVERHEADS, resolveCluster, Rng, simulate, SpecError, validateSpec, type SimReport, type Workload } from "../../src/sim/index.js";
import { DEFAULT_TRANSFER_SPREAD, withTransferSpread, type SimNetwork } from "../../src/sim/network/index.js";
import type { TransferRequest } from "../../src/worker/types.js";

/** A network that records the bytes each transfer asks it to move and moves them at once. */
function recorder(kind: SimNetwork["kind"] = "max-min"): SimNetwork & { readonly moved: number[]; readonly to: string[] } {
  const moved: number[] = [];
  const to: string[] = [];
  return {
    kind,
    moved,
    to,
    transfer(request: TransferRequest) {
      moved.push(request.bytes);
      to.push(request.to);
      return Promise.resolve();
    },
    failWorker() {},
    deserializeSeconds: () => 0,
  };
}

const request = (bytes: number, to = "b"): TransferRequest => ({ from: "a", to, bytes, keys: 1, signal: new AbortController().signal });

async function factors(sigma: number, seed: number, n: number, to = "b"): Promise<number[]> {
  const inner = recorder();
  const network = withTransferSpread(inner, sigma, seed);
  for (let i = 0; i < n; i++) await network.transfer(request(1e6, to));
  return inner.moved.map((bytes) => bytes / 1e6);
}

describe("the wire factor's draw", () => {
  it("is lognormal with median 1 and the given sigma (4000 draws, fixed seed)", async () => {
    const draws = await factors(0.6, 7, 4000);
    const logs = draws.map(Math.log);
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / logs.length);
    // standard errors at n = 4000: mean 0.0095, sd 0.0067
    expect(Math.abs(mean)).toBeLessThan(0.04);
    expect(Math.abs(sd - 0.6)).toBeLessThan(0.03);
    const sorted = [...draws].sort((a, b) => a - b);
    expect(sorted[2000]!).toBeGreaterThan(0.95);
    expect(sorted[2000]!).toBeLessThan(1.05);
    // a right skew: the mean transfer is slower than the median one, e^(σ²/2) = 1.197
    expect(draws.reduce((a, b) => a + b, 0) / draws.length).toBeGreaterThan(1.12);
  });

  it("is positive, finite and the same for the same seed; a receiver's draws do not depend on another's (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0.01, max: 3, noNaN: true }), fc.integer({ min: 0, max: 2 ** 31 }), async (sigma, seed) => {
        const a = await factors(sigma, seed, 20);
        expect(a.every((f) => f > 0 && Number.isFinite(f))).toBe(true);
        expect(await factors(sigma, seed, 20)).toEqual(a);
        // the same receiver's 20 draws with another receiver's transfers in between
        const inner = recorder();
        const network = withTransferSpread(inner, sigma, seed);
        for (let i = 0; i < 20; i++) {
          await network.transfer(request(1e6, "b"));
          await network.transfer(request(1e6, "c"));
        }
        expect(inner.moved.filter((_, i) => inner.to[i] === "b").map((bytes) => bytes / 1e6)).toEqual(a);
      }),
      { numRuns: 40 },
    );
  });

  it("is exactly exp(σ · N(0, 1)) of the receiver's own stream", async () => {
    const rng = Rng.derive(3, "transferSpread:b");
    const expected = [0, 1, 2].map(() => Math.exp(0.5 * rng.standardNormal()));
    expect(await factors(0.5, 3, 3)).toEqual(expected);
  });

  it("is not drawn at all without a spread, on the instant network, or for an empty transfer", async () => {
    const inner = recorder();
    expect(withTransferSpread(inner, 0, 1)).toBe(inner);
    const instant = recorder("instant");
    expect(withTransferSpread(instant, 0.8, 1)).toBe(instant);
    const network = withTransferSpread(inner, 0.8, 1);
    await network.transfer(request(0));
    await network.transfer(request(1e6));
    expect(inner.moved[0]).toBe(0);
    // the empty transfer took no draw: the first real one has the stream's first factor
    expect(inner.moved[1]! / 1e6).toBe(Math.exp(0.8 * Rng.derive(1, "transferSpread:b").standardNormal()));
  });
});

/** x (40 MB) and y (80 MB), one on each worker, and j needing both: j runs where y is and fetches x, one lone 40 MB transfer. */
function pair(): Workload {
  const builder = new GraphBuilder();
  const x = builder.addTask({ key: "x", prefix: "x", duration: 1, nbytes: 40e6 });
  const y = builder.addTask({ key: "y", prefix: "y", duration: 1, nbytes: 80e6 });
  const j = builder.addTask({ key: "j", prefix: "j", duration: 1, nbytes: 1 });
  builder.addDependency(j, x);
  builder.addDependency(j, y);
  return { name: "pair", description: "", graph: builder.build("pair"), faults: [], cluster: {} };
}

async function run(spread: number | false | undefined, seed = 1, network: "latency-bandwidth" | "max-min" = "latency-bandwidth"): Promise<SimReport> {
  const cluster = { overheads: { ...NO_OVERHEADS }, deserializeBandwidth: false as const, loopBandwidth: false as const, ...(spread === undefined ? {} : { transferSpread: spread }) };
  const options = { workers: 2, threads: 1, network, latency: 0.001, bandwidth: 1e8, cluster, collectSpans: false, seed };
  return (await simulate(pair(), options)).report;
}

const durations = (report: SimReport) => report.transfers.filter((t) => t.bytes > 0).map((t) => t.end - t.start);

describe("a run's transfers with a spread", () => {
  it("off (absent, false or 0): every transfer takes latency + bytes / bandwidth, and the reports are the same", async () => {
    const absent = await run(undefined);
    expect(durations(absent)).toHaveLength(1);
    expect(durations(absent)[0]).toBeCloseTo(0.001 + 40e6 / 1e8, 12);
    expect(DEFAULT_TRANSFER_SPREAD).toBeNull();
    for (const off of [false, 0] as const) expect(JSON.stringify(await run(off))).toBe(JSON.stringify(absent));
    expect(absent.cluster.network).not.toHaveProperty("transferSpread");
  });

  it.each(["latency-bandwidth", "max-min"] as const)("on (%s): the wire moves bytes × the receiver's first factor; the report states the sigma", async (network) => {
    const report = await run(0.7, 5, network);
    const fetch = report.transfers.find((t) => t.bytes > 0)!;
    const factor = Math.exp(0.7 * Rng.derive(5, `transferSpread:${fetch.to}`).standardNormal());
    expect(fetch.bytes).toBe(40e6);
    expect(fetch.end - fetch.start).toBeCloseTo(0.001 + (40e6 * factor) / 1e8, 9);
    expect(report.cluster.network.transferSpread).toBe(0.7);
  });

  it("is deterministic per seed and differs between seeds", async () => {
    expect(JSON.stringify(await run(0.7, 9))).toBe(JSON.stringify(await run(0.7, 9)));
    const bySeed = await Promise.all([1, 2, 3, 4].map(async (seed) => durations(await run(0.7, seed))[0]));
    expect(new Set(bySeed).size).toBe(4);
  });
});

describe("transferSpread in the spec", () => {
  const address = (w: number) => `tcp://10.0.0.${w + 1}:8786`;

  it("is off unless a layer says; a higher layer wins, false or 0 turns it off", () => {
    expect(resolveCluster({}, undefined, {}, address).transferSpread).toBeNull();
    expect(resolveCluster({ transferSpread: 0.84 }, undefined, {}, address).transferSpread).toBe(0.84);
    expect(resolveCluster({ transferSpread: 0.84 }, { transferSpread: 0.62 }, {}, address).transferSpread).toBe(0.62);
    expect(resolveCluster({ transferSpread: 0.84 }, { transferSpread: false }, {}, address).transferSpread).toBeNull();
    expect(resolveCluster({ transferSpread: 0 }, undefined, {}, address).transferSpread).toBeNull();
    expect(validateSpec({ tasks: [{ prefix: "a" }], cluster: { transferSpread: 0.62 } }).cluster?.transferSpread).toBe(0.62);
  });

  it.each([-1, true, "wide", 4, Number.NaN])("a bad value (%j) is one issue naming its path", (value) => {
    let issues: readonly string[] = [];
    try {
      validateSpec({ tasks: [{ prefix: "a" }], cluster: { transferSpread: value } });
    } catch (error) {
      issues = (error as SpecError).issues;
    }
    expect(issues).toEqual(["cluster.transferSpread: expected a sigma (a number from 0 to 3) or false"]);
  });
});
