// Cross-module agreement: done events carrying a finished span record produce DigestMetric
// instructions built by `toDigestMetrics(event.span, { stimulusId })`, with the root's
// `outcome` attribute copied; data-store failures while storing a result (reference §7
// to_memory) turn into errors.
import { describe, expect, it } from "vitest";
import {
  AddKeysMsg,
  ExecuteSuccessEvent,
  GatherDepBusyEvent,
  GatherDepSuccessEvent,
  RetryBusyWorkerLater,
  RequestRefreshWhoHasMsg,
  TaskErredMsg,
  TaskFinishedMsg,
  type Instruction,
} from "../../src/state/index.js";
import { Span, toDigestMetrics } from "../../src/spans/index.js";
import { match, taskInState } from "../../src/testing/index.js";
import { W2, worker } from "./helpers.js";

function finishedSpan(name: string[], outcome?: string) {
  let now = 0;
  const clock = { now: () => now };
  const root = new Span(name, { clock });
  root.start(0);
  if (outcome !== undefined) root.setAttribute("outcome", outcome);
  const cpu = root.child("thread-cpu");
  now = 2;
  cpu.end(2);
  now = 3;
  root.end(3);
  return root.toRecord();
}

const digests = (instructions: Instruction[]) => instructions.filter((i) => i.kind === "DigestMetric");
const others = (instructions: Instruction[]) => instructions.filter((i) => i.kind !== "DigestMetric");

describe("span records on done events", () => {
  it("an execute result with a span yields its digest metrics", () => {
    const ws = worker();
    taskInState(ws, "inc-1", "executing");
    const span = finishedSpan(["execute", "inc"]);
    const instructions = ws.handleStimulus(ExecuteSuccessEvent({ key: "inc-1", span, stimulusId: "done" }));
    expect(others(instructions)).toEqual([match(TaskFinishedMsg, { key: "inc-1", stimulusId: "done" })]);
    expect(digests(instructions)).toEqual(toDigestMetrics(span, { stimulusId: "done" }));
    const byName = new Map(digests(instructions).map((d) => [d.name.join("/"), d]));
    expect(byName.get("execute/inc/thread-cpu/seconds")?.value).toBeCloseTo(2);
    expect(byName.get("execute/inc/other/seconds")?.value).toBeCloseTo(1);
    expect(digests(instructions).every((d) => !("outcome" in d))).toBe(true);
  });

  it("the root's outcome attribute is copied into every metric", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    const span = finishedSpan(["gather-dep"], "busy");
    const instructions = ws.handleStimulus(GatherDepBusyEvent({ worker: W2, totalNbytes: 1, span, stimulusId: "busy" }));
    expect(others(instructions)).toEqual([
      RetryBusyWorkerLater({ worker: W2, stimulusId: "busy" }),
      RequestRefreshWhoHasMsg({ keys: ["x"], stimulusId: "busy" }),
    ]);
    const metrics = digests(instructions);
    expect(metrics.length).toBeGreaterThan(0);
    expect(metrics.every((d) => d.kind === "DigestMetric" && d.outcome === "busy" && d.stimulusId === "busy")).toBe(true);
  });

  it("no span, no metrics", () => {
    const ws = worker();
    taskInState(ws, "x", "flight");
    const instructions = ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "g" }));
    expect(instructions).toEqual([AddKeysMsg({ keys: ["x"], stimulusId: "g" })]);
  });
});

describe("a data store that refuses a value (spill failure)", () => {
  function refusingStore() {
    const store = new Map<string, unknown>();
    store.set = () => {
      throw new Error("cannot pickle");
    };
    return store;
  }

  it("executing → memory becomes error with the event's run id", () => {
    const ws = worker({ data: refusingStore() });
    taskInState(ws, "x", "executing");
    expect(ws.handleStimulus(ExecuteSuccessEvent({ key: "x", runId: 9, value: 1, stimulusId: "done" }))).toEqual([
      match(TaskErredMsg, { key: "x", runId: 9, stimulusId: "done" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("error");
    expect(ws.nbytes).toBe(0);
  });

  it("flight → memory becomes error (test_workerstate_fail_to_pickle_flight)", () => {
    const ws = worker({ data: refusingStore() });
    taskInState(ws, "x", "flight");
    expect(ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: { x: 1 }, stimulusId: "g" }))).toEqual([
      match(TaskErredMsg, { key: "x", runId: -1, stimulusId: "g" }),
    ]);
    expect(ws.tasks.get("x")!.state).toBe("error");
    expect(ws.transferIncomingBytes).toBe(0);
  });
});
