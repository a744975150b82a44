import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { reportToJson } from "../../src/cli/report-json.js";
import { reportJsonSchema, reportSchema, type ReportJson } from "../../src/cli/report-schema.js";
import type { SimReport } from "../../src/sim/report.js";
import { sampleReport } from "./fixtures.js";

describe("reportToJson", () => {
  it("round-trips the report with metrics sorted by name", () => {
    const report = sampleReport();
    const parsed = JSON.parse(reportToJson(report)) as SimReport;
    const sortedNames = report.metrics.map((metric) => metric.name.join("/")).sort();
    expect(parsed.metrics.map((metric) => metric.name.join("/"))).toEqual(sortedNames);
    expect({ ...parsed, metrics: [] }).toEqual({ ...report, metrics: [] });
  });

  it("puts the headline fields first and one array element per line", () => {
    const text = reportToJson(sampleReport());
    const lines = text.split("\n");
    expect(lines.slice(0, 4)).toEqual(["{", '  "schemaVersion": 2,', '  "workload": "fixture",', '  "seed": 1,']);
    expect(lines).toContain('    {"key":"inc-0","prefix":"inc","worker":"sim://w0","thread":0,"start":0,"end":1.4,"outcome":"ok"},');
    expect(text.endsWith("}\n")).toBe(true);
  });

  it("gives the same bytes whatever order the fields and metrics arrive in", () => {
    const report = sampleReport();
    const shuffled = Object.fromEntries(Object.entries({ ...report, metrics: [...report.metrics].reverse() }).reverse()) as unknown as SimReport;
    expect(reportToJson(shuffled)).toBe(reportToJson(report));
  });

  it("keeps fields a newer simulator adds, after the known ones, alphabetically", () => {
    const report = { ...sampleReport(), zeta: 1, alpha: [1, 2] } as SimReport;
    const keys = Object.keys(JSON.parse(reportToJson(report)) as object);
    expect(keys.slice(-2)).toEqual(["alpha", "zeta"]);
  });
});

describe("report schema", () => {
  it("matches the SimReport type", () => {
    // Every valid file is a SimReport, and the schema covers every field of the type.
    expectTypeOf<ReportJson>().toExtend<SimReport>();
    expectTypeOf<keyof ReportJson>().toEqualTypeOf<keyof SimReport>();
    expectTypeOf<keyof ReportJson["perWorker"][number]>().toEqualTypeOf<keyof SimReport["perWorker"][number]>();
    expectTypeOf<keyof ReportJson["taskRecords"][number]>().toEqualTypeOf<keyof SimReport["taskRecords"][number]>();
    expectTypeOf<keyof ReportJson["transfers"][number]>().toEqualTypeOf<keyof SimReport["transfers"][number]>();
    expectTypeOf<keyof ReportJson["memory"][number]>().toEqualTypeOf<keyof SimReport["memory"][number]>();
    expectTypeOf<keyof ReportJson["metrics"][number]>().toEqualTypeOf<keyof SimReport["metrics"][number]>();
  });

  it("accepts a report and names what is wrong with a broken one", () => {
    expect(reportSchema.safeParse(JSON.parse(reportToJson(sampleReport()))).success).toBe(true);
    const broken = { ...sampleReport(), tasks: { total: 1, completed: "1", erred: 0, lost: 0 } };
    const result = reportSchema.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["tasks", "completed"]);
  });

  it("is published as docs/report-schema.json, generated from the same definition", () => {
    const published = JSON.parse(readFileSync(new URL("../../docs/report-schema.json", import.meta.url), "utf8")) as unknown;
    expect(published, "regenerate it: npx tsx src/cli/write-report-schema.ts").toEqual(reportJsonSchema());
  });
});
