import { describe, expect, it } from "vitest";
import { runEnd, timelineMarkers } from "../../src/cli/html/markers.js";
import type { SimReport } from "../../src/sim/report.js";
import { sampleReport } from "./fixtures.js";

const pause = (time: number, worker: string) => ({ time, kind: "pause", detail: `${worker} managed memory above the pause fraction` });
const unpause = (time: number, worker: string) => ({ time, kind: "unpause", detail: `${worker} managed memory back below the pause fraction` });
const death = (time: number, worker: string) => ({ time, kind: "worker-death", detail: `${worker} died` });

function withSteals(report: SimReport, steals: unknown): SimReport {
  return { ...report, steals } as SimReport;
}

describe("timelineMarkers", () => {
  it("pairs pauses with the next unpause of the same worker, and closes open ones at the end or at a death", () => {
    const report = sampleReport({
      faults: [unpause(2, "sim://w0"), pause(1, "sim://w0"), pause(1.5, "sim://w1"), pause(1.2, "sim://w0"), death(3, "sim://w1"), pause(3.5, "sim://w0"), { time: 0.5, kind: "transfer-failure", detail: "sim://w0 → sim://w1" }],
    });
    const markers = timelineMarkers(report);
    expect(markers.pauses).toEqual([
      { worker: "sim://w0", start: 1, end: 2, open: false, detail: "sim://w0 managed memory above the pause fraction" },
      { worker: "sim://w1", start: 1.5, end: 3, open: false, detail: "sim://w1 managed memory above the pause fraction" },
      { worker: "sim://w0", start: 3.5, end: 4, open: true, detail: "sim://w0 managed memory above the pause fraction" },
    ]);
    expect(markers.deaths).toEqual([{ worker: "sim://w1", time: 3, detail: "sim://w1 died" }]);
    expect(markers.unplaced).toBe(0);
  });

  it("tells workers apart by the longest address their detail starts with, and counts the rest", () => {
    const workers = ["sim://w1", "sim://w10"].map((address) => ({ ...sampleReport().perWorker[0]!, address }));
    const report = sampleReport({ perWorker: workers, taskRecords: [], faults: [death(1, "sim://w10"), death(2, "sim://w1"), death(2.5, "sim://w100"), { time: 3, kind: "pause", detail: "somebody paused" }] });
    const markers = timelineMarkers(report);
    expect(markers.deaths.map((d) => d.worker)).toEqual(["sim://w10", "sim://w1"]);
    expect(markers.unplaced).toBe(2);
  });

  it("reads steals when the report has them, counting malformed ones and those whose thief is unknown", () => {
    const report = withSteals(sampleReport(), [
      { time: 2, key: "inc-3", victim: "sim://w0", thief: "sim://w1", outcome: "ok" },
      { time: 1, key: "inc-2", victim: "sim://w1", thief: "sim://w0" },
      { time: "soon", key: "x", victim: "a", thief: "b" },
      null,
      { time: 3, key: "inc-4", victim: "sim://w0", thief: "sim://elsewhere", outcome: "ok" },
    ]);
    const markers = timelineMarkers(report);
    expect(markers.steals).toEqual([
      { time: 1, key: "inc-2", victim: "sim://w1", thief: "sim://w0", outcome: "unknown" },
      { time: 2, key: "inc-3", victim: "sim://w0", thief: "sim://w1", outcome: "ok" },
    ]);
    expect(markers.unplaced).toBe(3);
    expect(timelineMarkers(withSteals(sampleReport(), "not a list")).steals).toEqual([]);
    expect(timelineMarkers(sampleReport()).steals).toEqual([]);
  });

  it("ends the time charts at the makespan or the latest record", () => {
    expect(runEnd(sampleReport())).toBe(4);
    expect(runEnd(sampleReport({ transfers: [{ from: "a", to: "b", keys: 1, bytes: 1, start: 4, end: 4.5, outcome: "ok" }] }))).toBe(4.5);
  });
});
