// Every report the simulator writes validates against the published JSON Schema
// (docs/report-schema.json) with a real JSON-Schema validator: ajv, in the draft the schema names.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../src/cli/html/report-page.js";
import { reportToJson } from "../../src/cli/report-json.js";
import { builtInWorkloads, loadClusterProfile, loadWorkloadFile, simulate, type SimOptions } from "../../src/sim/index.js";

const schema = JSON.parse(readFileSync(new URL("../../docs/report-schema.json", import.meta.url), "utf8")) as Record<string, unknown>;
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
const workloadsDir = join(import.meta.dirname, "../../workloads");

async function reportErrors(input: Parameters<typeof simulate>[0], options: SimOptions): Promise<string[]> {
  const { report } = await simulate(input, options);
  const json: unknown = JSON.parse(reportToJson(report));
  if (validate(json)) return [];
  return (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath} ${error.message ?? ""}`);
}

describe("the --json report validates against docs/report-schema.json (ajv)", () => {
  it("names draft 2020-12", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  // Default sizes (what `spanwork run NAME` does), with few memory samples so that the
  // downsampling of the memory series runs many times.
  it.each(Object.keys(builtInWorkloads))("built-in workload %s", async (name) => {
    expect(await reportErrors(name, { memorySamplesPerWorker: 16 })).toEqual([]);
  });

  it("the default run (shuffle, default options)", async () => {
    expect(await reportErrors("shuffle", {})).toEqual([]);
  });

  it("a run with the fidelity profile (its workerHandling a distribution)", async () => {
    // the shipped profile keeps workerHandling a constant (5f4eeb9): the distribution is set here
    const profile = loadClusterProfile(join(import.meta.dirname, "../../profiles/dask-localcluster-2x2.yaml"));
    const cluster = { ...profile, overheads: { ...profile.overheads, workerHandling: { dist: "lognormal" as const, mean: 0.00117, sigma: 1.06 } } };
    expect(await reportErrors("map", { cluster, memorySamplesPerWorker: 16 })).toEqual([]);
  });

  it("a run with full garbage collections (overheads.workerGc and schedulerGc, perWorker[].gcSeconds, cluster.schedulerGcSeconds)", async () => {
    const cluster = { overheads: { workerGc: { first: 20, stop: 0.05, every: 40 }, schedulerGc: { first: 30, stop: 0.1 } } };
    const { report } = await simulate("map", { cluster, memorySamplesPerWorker: 16 });
    expect(report.perWorker.some((w) => (w.gcSeconds ?? 0) > 0)).toBe(true);
    expect(report.cluster.schedulerGcSeconds).toBeCloseTo(0.1, 12);
    expect(await reportErrors("map", { cluster, memorySamplesPerWorker: 16 })).toEqual([]);
  });

  it.each(readdirSync(workloadsDir).filter((file) => /\.(json|ya?ml)$/.test(file)))("workloads/%s", async (file) => {
    expect(await reportErrors(loadWorkloadFile(join(workloadsDir, file)), { memorySamplesPerWorker: 16 })).toEqual([]);
  });
});

describe("the HTML memory chart of a real run", () => {
  it("has every memory sample (none skipped as unusable)", async () => {
    const { report } = await simulate("map", { memorySamplesPerWorker: 16 });
    expect(renderHtmlReport(report)).not.toMatch(/samples? without a finite time or byte count skipped/);
  });
});
