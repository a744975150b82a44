// The state benchmark's floors (bench/state-floor.ts) are honest: driven by the same driver
// with the same events, they answer every event with the same instructions as the
// WorkerState, in the same order (compared whole, not only counted), for all three
// workloads; and the suite prints a ratio to the floor for every workload.
import { describe, expect, it, vi } from "vitest";
import type { Instruction, StateMachineEvent } from "../../src/state/index.js";
import { parseOptions, run } from "../../bench/state.js";
import { runChain, runGather, runIndependent, type EngineKind, type RunResult, type StepObserver } from "../../bench/state-workloads.js";

type Workload = (engine: EngineKind, onStep: StepObserver | null) => RunResult;

const WORKLOADS: Record<string, Workload> = {
  w1: (engine, onStep) => runIndependent(60, { engine, onStep, afterCompute: () => {} }),
  // Three peers for twelve dependencies of 4 MB: messages of several keys, queued peers.
  w2: (engine, onStep) => runGather(40, 3, 3, 4_000_000, { engine, onStep, afterCompute: () => {} }),
  w2Default: (engine, onStep) => runGather(120, 4, 8, 1_000_000, { engine, onStep, afterCompute: () => {} }),
  w3: (engine, onStep) => runChain(60, { engine, onStep, afterCompute: () => {} }),
};

/** Every event and its instructions as JSON (metadata objects compare by content). */
function transcript(workload: Workload, engine: EngineKind): { steps: string[]; result: RunResult } {
  const steps: string[] = [];
  const onStep = (event: StateMachineEvent, instructions: readonly Instruction[]): void => {
    steps.push(`${JSON.stringify(event)} -> ${JSON.stringify(instructions)}`);
  };
  return { steps, result: workload(engine, onStep) };
}

describe("bench state floors", () => {
  for (const [name, workload] of Object.entries(WORKLOADS)) {
    it(`${name}: the floor answers the same events with the same instructions`, () => {
      const state = transcript(workload, "state");
      const floor = transcript(workload, "floor");
      expect(floor.steps.length).toBe(state.steps.length);
      for (let i = 0; i < state.steps.length; i++) expect(floor.steps[i], `step ${i}`).toBe(state.steps[i]);
      expect(floor.result.instructions_by_type).toEqual(state.result.instructions_by_type);
      expect(floor.result.events).toBe(state.result.events);
      expect(state.result.transitions).toBeGreaterThan(0);
      expect(floor.result.transitions).toBe(0);
    });
  }

  it("W2 at the default shape issues batched GatherDeps on both engines", () => {
    const result = WORKLOADS["w2Default"]!("floor", null);
    expect(result.extra["gather_keys_max"]).toBeGreaterThan(1);
  });

  it("prints ratio_to_floor for every workload (and not with --engines=state)", async () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      await run(["--in-process", "--w1-n=200", "--w2-n=40", "--w3-n=200", "--repeat=2", "--warmup=0"]);
      await run(["--in-process", "--only=w3", "--w3-n=200", "--repeat=1", "--warmup=0", "--engines=state"]);
    } finally {
      log.mockRestore();
    }
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => r["workload"])).toEqual(["independent", "gather", "chain", "chain"]);
    for (const record of records.slice(0, 3)) {
      expect(record["ratio_to_floor"]).toBeGreaterThan(0);
      expect(record["ratio_to_floor_cpu"]).toBeGreaterThan(0);
      expect(record["floor_events_per_s"]).toBeGreaterThan(0);
    }
    expect(records[3]).not.toHaveProperty("ratio_to_floor");
  });

  it("options: warm-up once by default; --trace and --child run in-process", () => {
    expect(parseOptions([]).warmup).toBe(1);
    expect(parseOptions(["--warmup", "0"]).warmup).toBe(0);
    expect(parseOptions(["--trace"]).inProcess).toBe(true);
    expect(parseOptions(["--child"]).inProcess).toBe(true);
    expect(parseOptions(["--only", "w1,w3"]).only).toEqual(["w1", "w3"]);
    expect(parseOptions([]).engines).toEqual(["state", "floor"]);
    expect(parseOptions(["--engines=floor,state"]).engines).toEqual(["state", "floor"]);
  });
});
