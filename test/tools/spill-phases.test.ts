// fidelity/tools/spill_phases.py sets dask's raw spill runs beside spanwork's reports, phase by
// phase. Its spill rates must compare like with like: dask's SpillBuffer metrics time each value
// on its own, so spanwork's side is the disks' service (`spill.writeSeconds`), not the spans'
// seconds, which hold the queue of a burst of evictions issued at once; and the produce phase's
// stalls (a worker running no task) are counted the same way on both sides.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTool } from "./python-tool.js";

const dir = mkdtempSync(join(tmpdir(), "spanwork-spill-phases-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Task {
  key: string;
  worker: number | string;
  start: number;
  end: number;
}

// One worker: two produce tasks, a 0.1 s stall between them (its loop spilling), then the rest.
function tasks(worker: number | string): Task[] {
  return [
    { key: "produce-0", worker, start: 0, end: 0.2 },
    { key: "produce-1", worker, start: 0.3, end: 0.5 },
    { key: "summary-0", worker, start: 0.5, end: 0.52 },
    { key: "barrier-0", worker, start: 0.52, end: 0.57 },
    { key: "consume-0", worker, start: 0.6, end: 0.7 },
  ];
}

describe("fidelity/tools/spill_phases.py", () => {
  it("takes spanwork's disk service, not the spans' queue, and counts the produce phase's stalls", () => {
    const raw = join(dir, "raw.json");
    const report = join(dir, "report.json");
    const out = join(dir, "out.json");
    writeFileSync(
      raw,
      JSON.stringify({
        runs: [
          {
            task_records: tasks(0),
            spill: { bytes_written: 50e6, write_seconds: 0.1, bytes_read: 50e6, read_seconds: 0.1 },
            pauses: 0,
            makespan: 0.7,
            transfers: [],
          },
        ],
      }),
    );
    writeFileSync(
      report,
      JSON.stringify({
        makespan: 0.7,
        // A burst of two 25 MB writes at 500 MB/s issued at once: spans 0.05 + 0.1 s, service 0.1 s.
        metrics: [
          { name: ["disk-write", "seconds"], value: 0.15 },
          { name: ["disk-read", "seconds"], value: 0.1 },
        ],
        spill: { bytesWritten: 50e6, bytesRead: 50e6, countWritten: 2, countRead: 2, writeSeconds: 0.1, readSeconds: 0.1 },
        faultCounts: [],
        taskRecords: tasks("tcp://w0"),
        transfers: [],
        cluster: {},
        perWorker: [{ eventLoopSeconds: 0.3 }],
      }),
    );
    const run = runTool("spill_phases.py", [raw, report, "--json", out]);
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(readFileSync(out, "utf8")) as { dask: { runs: Record<string, number>[] }; spanwork: { runs: Record<string, number>[] } };
    const dask = result.dask.runs[0]!;
    const sim = result.spanwork.runs[0]!;
    expect(dask.write_MBps).toBeCloseTo(500, 9);
    expect(sim.write_MBps).toBeCloseTo(500, 9);
    expect(sim.write_span_s).toBeCloseTo(0.15, 9);
    for (const row of [dask, sim]) {
      expect(row.idle_s).toBeCloseTo(0.1, 9);
      expect(row.stalls).toBe(1);
    }
  });
});
