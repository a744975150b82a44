// transitionCoverage and the TransitionRecorder behind it.
import { describe, expect, it } from "vitest";
import { TRANSITIONS } from "../../src/state/index.js";
import {
  PEER,
  TABLE_TRANSITIONS,
  TransitionRecorder,
  freshWorkerState,
  runStimuli,
  transitionCoverage,
  type Stimulus,
} from "../../src/testing/index.js";

const computeThenFree: Stimulus[] = [
  { kind: "compute", key: "t0", inputs: [], priority: 0, restricted: false },
  { kind: "free", keys: ["t0"] },
  // the scheduler wants it back while the cancelled execution still runs
  { kind: "compute", key: "t0", inputs: [], priority: 0, restricted: false },
  { kind: "execute-done", key: "t0", outcome: "success", nbytes: 1 },
];

describe("transitionCoverage", () => {
  it("knows the 50 pairs of the table", () => {
    expect(TABLE_TRANSITIONS).toHaveLength(50);
    for (const pair of TABLE_TRANSITIONS) {
      const [start, finish] = pair.split("->") as [string, string];
      expect(TRANSITIONS[start]?.[finish], pair).toBeTypeOf("function");
    }
  });

  it("splits the table into reached and never reached, and counts every pair", () => {
    const run = runStimuli(freshWorkerState(), computeThenFree);
    const coverage = transitionCoverage([run]);
    expect(coverage.runs).toBe(1);
    expect([...coverage.reached, ...coverage.never].sort()).toEqual([...TABLE_TRANSITIONS].sort());
    expect(coverage.reached).toEqual(
      expect.arrayContaining(["released->waiting", "waiting->ready", "ready->executing", "executing->released", "cancelled->waiting", "executing->memory"]),
    );
    expect(coverage.never).toContain("flight->memory");
    expect(coverage.counts.get("released->waiting")).toBe(1);
    expect(coverage.has("cancelled->waiting")).toBe(true);
    expect(coverage.unrecorded).toBe(0);
    expect(coverage.toString()).toMatch(/^\d+\/50 transitions of the table reached in 1 runs\nnever reached: .*flight->memory/);
  });

  it("lists the pairs reached via released (not in the table)", () => {
    // AMM asks for a replica of a task that is executing: executing → released → fetch
    const run = runStimuli(freshWorkerState(), [
      { kind: "compute", key: "t0", inputs: [], priority: 0, restricted: false },
      { kind: "acquire", replicas: [{ key: "t0", holders: [PEER], nbytes: 1 }] },
    ]);
    const coverage = transitionCoverage([run]);
    expect(coverage.viaReleased).toEqual(["executing->fetch"]);
    expect(coverage.reached).toEqual(expect.arrayContaining(["executing->released", "cancelled->fetch"]));
  });

  it("sums runs", () => {
    const runs = [runStimuli(freshWorkerState(), computeThenFree), runStimuli(freshWorkerState(), computeThenFree)];
    expect(transitionCoverage(runs).counts.get("released->waiting")).toBe(2);
    expect(transitionCoverage(runs).runs).toBe(2);
  });

  it("says so when the log wrapped before it was read", () => {
    const ws = freshWorkerState({ logLength: 3 });
    const recorder = new TransitionRecorder(ws);
    runStimuli(ws, computeThenFree);
    recorder.collect();
    expect(recorder.unrecordedTransitions).toBeGreaterThan(0);
    const coverage = transitionCoverage([recorder]);
    expect(coverage.unrecorded).toBe(recorder.unrecordedTransitions);
    expect(coverage.toString()).toMatch(/transitions were not recorded/);
  });

  it("reads the log only now and then, yet misses nothing with the default log", () => {
    const ws = freshWorkerState({ nthreads: 2 });
    const stimuli: Stimulus[] = [];
    for (let i = 0; i < 200; i++) {
      stimuli.push({ kind: "compute", key: `t${i % 7}`, inputs: [{ key: `d${i % 5}`, holders: [PEER], nbytes: 1 }], priority: 0, restricted: false });
      stimuli.push({ kind: "gather-done", peer: PEER, outcome: i % 3 === 0 ? "busy" : "success", keep: 0 });
      stimuli.push({ kind: "retry-busy", peer: PEER });
      stimuli.push({ kind: "execute-done", key: `t${i % 7}`, outcome: "success", nbytes: 1 });
      stimuli.push({ kind: "free", keys: [`t${(i + 3) % 7}`] });
    }
    const run = runStimuli(ws, stimuli);
    let counted = 0;
    for (const n of run.transitions.values()) counted += n;
    expect(run.unrecordedTransitions).toBe(0);
    expect(counted).toBe(ws.transitionCounter);
  });
});
