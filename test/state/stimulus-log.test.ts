import { describe, expect, it } from "vitest";
import {
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  GatherDepSuccessEvent,
  Span,
  WorkerState,
  type SpanRecord,
} from "../../src/index.js";

function finishedRecord(name: string[]): SpanRecord {
  let now = 0;
  const root = new Span(name, { clock: { now: () => now } }).start();
  const child = root.child("thread-cpu");
  now = 0.5;
  child.end();
  now = 1;
  root.end();
  return root.toRecord();
}

describe("stimulusLog keeps no bulky payloads", () => {
  it("drops the value and the span record of a done event, after its metrics were digested", () => {
    const ws = new WorkerState({ address: "127.0.0.1:1", validate: true });
    ws.handleStimulus(ComputeTaskEvent({ key: "x-1", stimulusId: "compute" }));
    const instructions = ws.handleStimulus(
      ExecuteSuccessEvent({ key: "x-1", value: { big: "payload" }, span: finishedRecord(["execute", "x"]), stimulusId: "done" }),
    );
    expect(instructions.filter((i) => i.kind === "DigestMetric").length).toBeGreaterThan(0);
    const logged = ws.stimulusLog.at(-1);
    expect(logged).toMatchObject({ kind: "ExecuteSuccessEvent", key: "x-1", value: null, span: null, stimulusId: "done" });
    expect(Object.isFrozen(logged)).toBe(true);
    ws.validateState();
  });

  it("drops gathered data and the gather's span record", () => {
    const ws = new WorkerState({ address: "127.0.0.1:1", validate: true });
    ws.handleStimulus(ComputeTaskEvent({ key: "y-1", whoHas: { "x-1": ["127.0.0.1:2"] }, stimulusId: "compute" }));
    ws.handleStimulus(
      GatherDepSuccessEvent({
        worker: "127.0.0.1:2",
        totalNbytes: 1,
        data: { "x-1": [1, 2, 3] },
        span: finishedRecord(["gather-dep"]),
        stimulusId: "gathered",
      }),
    );
    const logged = ws.stimulusLog.find((event) => event.stimulusId === "gathered");
    expect(logged).toMatchObject({ kind: "GatherDepSuccessEvent", data: { "x-1": null }, span: null });
    ws.validateState();
  });
});
