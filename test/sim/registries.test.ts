// The network models and the built-in workloads are registries (issue 13 item 3): the spec's
// enum, the CLI's choices, simulate()'s options and `spanwork list` all come from them.
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { parseNetworkModel } from "../../src/cli/parse-options.js";
import { BUILT_IN_WORKLOAD_NAMES, BUILT_IN_WORKLOADS, NETWORK_KINDS, NETWORK_MODELS, SpecError, builtInWorkloads, createNetwork, validateSpec } from "../../src/sim/index.js";
import { isSizedStandIn, sizeof } from "../../src/util/sizeof.js";
import { MEMORY_FRACTIONS } from "../../src/worker/memory-fractions.js";
import { VirtualClock } from "../../src/worker/clock.js";
import { SimulatedData, workerSizeof } from "../../src/sim/simulated-data.js";
import { captureIo } from "../cli/fixtures.js";

describe("the network registry", () => {
  it("names the models in order, each building a network of its kind", () => {
    expect(NETWORK_KINDS).toEqual(["instant", "latency-bandwidth", "max-min", "shared-host"]);
    for (const kind of NETWORK_KINDS) {
      expect(NETWORK_MODELS[kind].description).not.toMatch(/\n/);
      expect(createNetwork(kind, new VirtualClock(), { latency: 0.001, bandwidth: 1e6 }).kind).toBe(kind);
    }
  });

  it("is what the spec accepts and the CLI offers", () => {
    for (const kind of NETWORK_KINDS) {
      expect(validateSpec({ tasks: [{ prefix: "a" }], cluster: { network: kind } }).cluster?.network).toBe(kind);
      expect(parseNetworkModel(kind)).toBe(kind);
    }
    expect(() => validateSpec({ tasks: [{ prefix: "a" }], cluster: { network: "carrier-pigeon" } })).toThrow(SpecError);
    expect(() => parseNetworkModel("constructor")).toThrow('unknown network model "constructor" (choose one of: instant, latency-bandwidth, max-min, shared-host)');
  });

  it("is what `spanwork list networks` prints", async () => {
    const captured = captureIo();
    expect(await main(["list", "networks"], { io: captured.io })).toBe(0);
    expect(captured.stdout().trimEnd().split("\n").map((line) => line.split(/\s+/)[0])).toEqual([...NETWORK_KINDS]);
  });
});

describe("the workload registry", () => {
  it("is builtInWorkloads, in list order, and what `spanwork list` prints", async () => {
    expect(Object.keys(builtInWorkloads)).toEqual([...BUILT_IN_WORKLOAD_NAMES]);
    expect(builtInWorkloads).toBe(BUILT_IN_WORKLOADS);
    const captured = captureIo();
    expect(await main(["list"], { io: captured.io })).toBe(0);
    expect(captured.stdout().trimEnd().split("\n").map((line) => line.split(/\s+/)[0])).toEqual([...BUILT_IN_WORKLOAD_NAMES]);
  });
});

describe("one sizeof, one set of memory fractions", () => {
  it("weighs a simulated value at its modelled size everywhere", () => {
    const value = SimulatedData("x", 123_456_789);
    expect(isSizedStandIn(value)).toBe(true);
    expect(sizeof(value)).toBe(123_456_789);
    expect(workerSizeof(value)).toBe(123_456_789);
    expect(sizeof({ simulated: true, nbytes: "many" })).not.toBe("many");
  });

  it("are dask's four fractions", () => {
    expect(MEMORY_FRACTIONS).toEqual({ target: 0.6, spill: 0.7, pause: 0.8, terminate: 0.95 });
  });
});
