// runStimuli: steps and literal events, the scheduler/peer model's answers and protocol
// checks, draining, custom invariants, the known dask bugs, and what a violation says.
import { describe, expect, it } from "vitest";
import {
  ComputeTaskEvent,
  ExecuteSuccessEvent,
  GatherDep,
  WorkerState,
  type Instruction,
  type StateMachineEvent,
} from "../../src/state/index.js";
import {
  LOCAL_ADDRESS,
  PEER,
  freshWorkerState,
  runStimuli,
  transitionCoverage,
  type Stimulus,
} from "../../src/testing/index.js";
import { LeakyStore, violationOf } from "./helpers.js";

const compute = (key: string, inputs: Array<[string, string]> = []): Stimulus => ({
  kind: "compute",
  key,
  inputs: inputs.map(([input, peer]) => ({ key: input, holders: [peer], nbytes: 1 })),
  priority: 0,
  restricted: false,
});
const done = (key: string, outcome: "success" | "failure" | "reschedule" | "secede" = "success"): Stimulus => ({
  kind: "execute-done",
  key,
  outcome,
  nbytes: 1,
});

/** A WorkerState whose instructions are rewritten on the way out (a broken state machine). */
class Rewriting extends WorkerState {
  constructor(private readonly rewrite: (instructions: Instruction[]) => Instruction[]) {
    super({ address: LOCAL_ADDRESS, nthreads: 1, validate: true });
  }
  override handleStimulus(...events: StateMachineEvent[]): Instruction[] {
    return this.rewrite(super.handleStimulus(...events));
  }
}

describe("runStimuli", () => {
  it("turns steps into events the model can answer, and drains at the end", () => {
    const ws = freshWorkerState();
    const run = runStimuli(ws, [compute("t0", [["d0", PEER]]), { kind: "gather-done", peer: PEER, outcome: "success", keep: 0 }]);
    expect(run.events.map((e) => e.kind)).toEqual(["ComputeTaskEvent", "GatherDepSuccessEvent", "UnpauseEvent", "ExecuteSuccessEvent"]);
    expect(run.applied).toBe(2);
    expect(run.skipped).toBe(0);
    expect(ws.tasks.get("t0")?.state).toBe("memory");
    expect(transitionCoverage([run]).reached).toEqual(expect.arrayContaining(["released->waiting", "flight->memory", "executing->memory"]));
  });

  it("skips steps that do not apply now, and answers the named execution first", () => {
    const ws = freshWorkerState({ nthreads: 2 });
    const run = runStimuli(ws, [done("t0"), compute("t0"), compute("t1"), done("t1", "failure"), done("t7")], { drain: false });
    expect(run.skipped).toBe(1);
    expect(run.events.map((e) => ("key" in e ? `${e.kind}:${e.key}` : e.kind))).toEqual([
      "ComputeTaskEvent:t0",
      "ComputeTaskEvent:t1",
      "ExecuteFailureEvent:t1",
      "ExecuteSuccessEvent:t0", // t7 has no execution: the oldest one is answered
    ]);
  });

  it("takes literal events too, which answer outstanding work like steps do", () => {
    const ws = freshWorkerState();
    const run = runStimuli(ws, [
      ComputeTaskEvent({ key: "x", stimulusId: "literal-compute" }),
      ExecuteSuccessEvent({ key: "x", runId: 0, value: 1, stimulusId: "literal-done" }),
    ]);
    // the drain has nothing left to answer
    expect(run.events.map((e) => e.stimulusId)).toEqual(["literal-compute", "literal-done", "drain-unpause-1"]);
    expect(ws.tasks.get("x")?.state).toBe("memory");
  });

  it("without drain, leaves outstanding work alone", () => {
    const ws = freshWorkerState();
    runStimuli(ws, [compute("t0")], { drain: false });
    expect(ws.tasks.get("t0")?.state).toBe("executing");
  });

  it("catches a second Execute for a key whose execution is outstanding", () => {
    const ws = new Rewriting((out) => out.flatMap((i): Instruction[] => (i.kind === "Execute" ? [i, i] : [i])));
    const failure = violationOf(() => runStimuli(ws, [compute("t0")]));
    expect(failure.invariant).toBe('ModelViolation: a second Execute for "t0" while its execution is outstanding');
    expect(failure.key).toBe("t0");
    expect(failure.position).toBe(1);
  });

  it("catches a GatherDep from the worker itself and a key gathered from two peers", () => {
    const selfGather = new Rewriting((out) => out.map((i) => (i.kind === "GatherDep" ? GatherDep({ ...i, worker: LOCAL_ADDRESS }) : i)));
    expect(violationOf(() => runStimuli(selfGather, [compute("t0", [["d0", PEER]])])).invariant).toMatch(/GatherDep from the worker itself/);
    const twice = new Rewriting((out) =>
      out.flatMap((i): Instruction[] => (i.kind === "GatherDep" ? [i, GatherDep({ ...i, worker: "127.0.0.1:9" })] : [i])),
    );
    expect(violationOf(() => runStimuli(twice, [compute("t0", [["d0", PEER]])])).invariant).toMatch(/"d0" gathered from 127\.0\.0\.1:9 and 127\.0\.0\.1:2 at once/);
  });

  it("catches a worker that does not come to rest once everything was answered", () => {
    // the shell never hears of the Execute, so nobody ever answers it
    const ws = new Rewriting((out) => out.filter((i) => i.kind !== "Execute"));
    const failure = violationOf(() => runStimuli(ws, [compute("t0")]));
    expect(failure.invariant).toMatch(/not at rest after draining: <TaskState 't0' executing>/);
    expect(failure.stimulus).toBe("after draining");
  });

  it("runs a custom invariant after validateState, and reports its failure like any other", () => {
    const seen: string[] = [];
    const failure = violationOf(() =>
      runStimuli(freshWorkerState(), [compute("t0"), done("t0"), compute("t1")], {
        validate: (ws, event) => {
          seen.push(event.kind);
          if (ws.data.size > 0 && event.kind === "ComputeTaskEvent") throw new Error(`compute with data held: "${event.key}"`);
        },
      }),
    );
    expect(seen).toEqual(["ComputeTaskEvent", "ExecuteSuccessEvent", "ComputeTaskEvent"]);
    expect(failure.invariant).toBe('compute with data held: "t1"');
    expect(failure.position).toBe(3);
  });

  it("names the invariant, the stimulus, the story of the key, and a line that replays it", () => {
    const stimuli = [compute("t0"), done("t0"), { kind: "free", keys: ["t0"] } as Stimulus];
    const failure = violationOf(() => runStimuli(freshWorkerState({ data: new LeakyStore() }), stimuli));
    expect(failure.invariant).toBe('invalid worker state: data holds unknown key "t0"');
    expect(failure.stimulus).toBe('FreeKeysEvent(keys=["t0"], stimulusId="free-3")');
    expect(failure.message).toContain('story of "t0":\n    ("t0", "compute-task", "released", "compute-1", 1)');
    expect(failure.message).toContain('3. FreeKeysEvent(keys=["t0"], stimulusId="free-3")  ← {"kind":"free","keys":["t0"]}');
    expect(failure.message).toContain('     → ReleaseWorkerDataMsg(op="release-worker-data", key="t0", stimulusId="free-3")');
    expect(failure.events.map((e) => e.stimulusId)).toEqual(["compute-1", "execute-success-2", "free-3"]);
    expect(failure.reproduction).toBe(`runStimuli(ws, ${JSON.stringify(stimuli)})`);
    expect(failure.message.split("\n").at(-1)).toBe(`replay: ${failure.reproduction}`);
    expect(failure.cause).toBeInstanceOf(Error);
    // the reproduction replays it
    const replayed = violationOf(() => runStimuli(freshWorkerState({ data: new LeakyStore() }), JSON.parse(JSON.stringify(stimuli))));
    expect(replayed.message).toBe(failure.message);
  });

  // The shortest sequence the kit found on which dask 2022.12.1 leaves t0 waiting for a
  // released d0 (reproduced with real dask's WorkerState and these events; docs/testing.md,
  // "Known dask bugs"). Our WorkerState fixes it (test/state/in-flight-dependencies.test.ts).
  const daskBug: Stimulus[] = [
    { kind: "pause", paused: true },
    compute("t2", [["d0", PEER]]),
    { kind: "acquire", replicas: [{ key: "t0", holders: [PEER], nbytes: 1 }] },
    { kind: "pause", paused: false },
    { kind: "free", keys: ["t2"] },
    compute("t0", [["d0", PEER]]),
    { kind: "gather-done", peer: PEER, outcome: "busy", keep: 0 },
  ];

  it("sends the compute that reaches the known dask bug, and the worker stays valid through it", () => {
    const ws = freshWorkerState({ nthreads: 2, transferIncomingCountLimit: 2 });
    const run = runStimuli(ws, daskBug, { drain: false });
    expect(run.skipped).toBe(0);
    expect(ws.tasks.get("t0")?.state).toBe("waiting");
    expect(ws.tasks.get("d0")?.state).toBe("fetch");
    runStimuli(freshWorkerState({ nthreads: 2, transferIncomingCountLimit: 2 }), daskBug);
  });
});
