// The async-Worker harness: the Worker under orders chosen by fast-check's scheduler, the
// checks it makes, and what it reports.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arbitraryWorkerScenario,
  assertStimuli,
  runWorkerScenario,
  transitionCoverage,
  type WorkerRun,
  type WorkerScenario,
} from "../../src/testing/index.js";
import { LeakyStore, asyncViolationOf } from "./helpers.js";

const twoTasks: WorkerScenario = {
  messages: [
    { kind: "compute", key: "t0", inputs: [], end: "success", secede: false, nbytes: 1 },
    { kind: "compute", key: "t1", inputs: [{ key: "d0", holders: ["127.0.0.1:2"], nbytes: 1 }], end: "success", secede: false, nbytes: 1 },
  ],
  peers: [{ peer: "127.0.0.1:2", answers: [] }],
};

describe("the Worker under random orders", () => {
  // --- begin docs example ---
  it("the Worker survives any order of peer answers, task completions and cancellations", async () => {
    await assertStimuli(
      fc.asyncProperty(fc.scheduler(), arbitraryWorkerScenario(), async (scheduler, scenario) => {
        await runWorkerScenario(scheduler, scenario, { worker: { nthreads: 2 } });
      }),
      { numRuns: 50, seed: 1 },
    );
  });
  // --- end docs example ---

  it("keeps every check under random orders of peer answers, completions and cancellations", async () => {
    const runs: WorkerRun[] = [];
    await assertStimuli(
      fc.asyncProperty(fc.scheduler(), arbitraryWorkerScenario(), async (scheduler, scenario) => {
        runs.push(await runWorkerScenario(scheduler, scenario));
      }),
      { numRuns: 150, seed: 20_261_201 },
    );
    const coverage = transitionCoverage(runs);
    for (const pair of ["flight->fetch", "flight->missing", "executing->released", "cancelled->memory", "executing->long-running", "executing->rescheduled", "resumed->memory"]) {
      expect(coverage.has(pair), `${pair}\n${coverage}`).toBe(true);
    }
  });

  it("explores different orders of the same scenario", async () => {
    const orders = new Set<string>();
    await assertStimuli(
      fc.asyncProperty(fc.scheduler(), async (scheduler) => {
        const run = await runWorkerScenario(scheduler, twoTasks);
        orders.add(run.messages.filter((m) => m.kind === "TaskFinishedMsg").map((m) => ("key" in m ? m.key : "")).join(","));
      }),
      { numRuns: 40, seed: 3 },
    );
    expect(orders).toEqual(new Set(["t0,t1", "t1,t0"]));
  });

  it("drives the Worker to rest: every task finished, nothing outstanding", async () => {
    await assertStimuli(
      fc.asyncProperty(fc.scheduler(), async (scheduler) => {
        const run = await runWorkerScenario(scheduler, twoTasks);
        expect(run.worker.outstanding).toBe(0);
        expect(run.worker.state.tasks.get("t1")?.state).toBe("memory");
        expect(run.worker.data.get("t0")).toBe("result:t0");
        expect(run.steps).toBeGreaterThanOrEqual(5); // 3 scheduler messages (with the final unpause), a transfer, 2 completions
      }),
      { numRuns: 10, seed: 1 },
    );
  });

  it("finds a broken data store inside the Worker, with a replay line", async () => {
    const property = fc.asyncProperty(fc.scheduler(), arbitraryWorkerScenario(), async (scheduler, scenario) => {
      await runWorkerScenario(scheduler, scenario, { worker: { data: new LeakyStore() } });
    });
    const failure = await asyncViolationOf(() => assertStimuli(property, { seed: 8 }));
    expect(failure.invariant).toMatch(/^invalid worker state: data holds unknown key "t\d"$/);
    expect(failure.key).toMatch(/^t\d$/);
    expect(failure.story.length).toBeGreaterThan(0);
    expect(failure.message).toMatch(/what happened \(\d+ lines\):\n {4}\[1\] scheduler message 1: /);
    expect(failure.replay?.seed).toBe(8);
    const again = await asyncViolationOf(() => assertStimuli(property, { seed: 8, path: failure.replay?.path ?? "", endOnFailure: true }));
    expect(again.message).toBe(failure.message);
  });
});

describe("runWorkerScenario", () => {
  it("runs a custom check after every step and reports its failure", async () => {
    let calls = 0;
    const failure = await asyncViolationOf(() =>
      runWorkerScenario(fc.sample(fc.scheduler(), { numRuns: 1, seed: 1 })[0]!, twoTasks, {
        check: (worker) => {
          calls++;
          if (worker.state.tasks.has("d0")) throw new Error("d0 arrived");
        },
      }),
    );
    expect(calls).toBeGreaterThan(1);
    expect(failure.invariant).toBe("d0 arrived");
  });

  it("gives up on a run that does not come to rest within maxSteps", async () => {
    const failure = await asyncViolationOf(() => runWorkerScenario(fc.sample(fc.scheduler(), { numRuns: 1, seed: 1 })[0]!, twoTasks, { maxSteps: 2 }));
    expect(failure.invariant).toBe("not at rest after 2 steps");
  });
});

describe("arbitraryWorkerScenario", () => {
  it("generates plain data within its universe", () => {
    const scenarios = fc.sample(arbitraryWorkerScenario({ taskKeys: ["a", "b"], dataKeys: ["x"], peers: ["10.0.0.1:1"], maxMessages: 4 }), {
      numRuns: 50,
      seed: 4,
    });
    for (const scenario of scenarios) {
      expect(JSON.parse(JSON.stringify(scenario))).toEqual(scenario);
      expect(scenario.messages.length).toBeLessThanOrEqual(4);
      expect(scenario.peers.map((p) => p.peer)).toEqual(["10.0.0.1:1"]);
      for (const message of scenario.messages) {
        if (message.kind === "compute") {
          expect(["a", "b"]).toContain(message.key);
          for (const input of message.inputs) expect(input.key).toBe("x");
        }
      }
    }
  });

  it("rejects bad options", () => {
    expect(() => arbitraryWorkerScenario({ taskKeys: ["a"], dataKeys: ["a"] })).toThrow(/overlap/);
    expect(() => arbitraryWorkerScenario({ exclude: ["nope" as never] })).toThrow(/unknown message kind "nope"/);
    expect(() => arbitraryWorkerScenario({ exclude: ["compute", "free", "cancel", "steal", "acquire"] })).toThrow(/every message kind but pause/);
  });
});

it("docs/testing.md shows exactly the harness example above", () => {
  const read = (relative: string): string => readFileSync(new URL(relative, import.meta.url), "utf8");
  const source = read("./worker-harness.test.ts");
  const begin = "  // --- begin docs example ---\n";
  const example = source
    .slice(source.indexOf(begin) + begin.length, source.indexOf("  // --- end docs example ---"))
    .split("\n")
    .map((line) => line.slice(2))
    .join("\n")
    .trimEnd();
  expect(read("../../docs/testing.md")).toContain("```ts\n" + example + "\n```");
});
