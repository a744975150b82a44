// assertStimuli: fc.assert with the replay line in the error, for kit violations, for any
// other failure, and for async properties.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StimulusViolation, arbitraryStimuli, assertStimuli, freshWorkerState, runStimuli } from "../../src/testing/index.js";

const REPLAY_LINE = /^replay: assertStimuli\(property, \{ seed: (-?\d+), path: "([\d:]*)", endOnFailure: true \}\)$/m;

function errorOf(run: () => void): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("the property passed");
}

function replayOf(error: Error): { seed: number; path: string; endOnFailure: true } {
  const match = REPLAY_LINE.exec(error.message);
  if (match === null) throw new Error(`no replay line in:\n${error.message}`);
  return { seed: Number(match[1]), path: match[2] as string, endOnFailure: true };
}

describe("assertStimuli", () => {
  it("passes quietly when the property holds", () => {
    let runs = 0;
    assertStimuli(
      fc.property(arbitraryStimuli({ maxLength: 5 }), (stimuli) => {
        runs++;
        runStimuli(freshWorkerState(), stimuli);
      }),
      { numRuns: 20, seed: 3 },
    );
    expect(runs).toBe(20);
  });

  it("gives a StimulusViolation its replay line, and the line replays it in one run", () => {
    let runs = 0;
    // a custom invariant the generator breaks soon: at most two tasks known at once
    const property = fc.property(arbitraryStimuli(), (stimuli) => {
      runs++;
      runStimuli(freshWorkerState({ nthreads: 4 }), stimuli, {
        validate: (ws) => {
          if (ws.tasks.size > 2) throw new Error(`${ws.tasks.size} tasks known`);
        },
      });
    });
    const failure = errorOf(() => assertStimuli(property, { seed: 11 }));
    expect(failure).toBeInstanceOf(StimulusViolation);
    const violation = failure as StimulusViolation;
    expect(violation.invariant).toBe("3 tasks known");
    expect(violation.replay).toEqual({ seed: 11, path: expect.stringMatching(/^\d+(:\d+)*$/) });
    expect(violation.message).toContain(`or, without fast-check: ${violation.reproduction}`);
    const replay = replayOf(failure);
    expect(replay).toEqual({ ...violation.replay, endOnFailure: true });
    runs = 0;
    const again = errorOf(() => assertStimuli(property, replay));
    expect(runs).toBe(1);
    expect(again.message).toBe(failure.message);
  });

  it("adds the replay line to any other failure, with fast-check's report", () => {
    const property = fc.property(fc.nat(), (n) => n < 50);
    const failure = errorOf(() => assertStimuli(property, { seed: 5 }));
    expect(failure).not.toBeInstanceOf(StimulusViolation);
    expect(failure.message).toMatch(/^Property failed after \d+ tests/);
    expect(failure.message).toMatch(/Counterexample: \[50\]/);
    const replay = replayOf(failure);
    expect(replay.seed).toBe(5);
    const replayed = errorOf(() => assertStimuli(property, replay)).message;
    expect(replayed).toMatch(/Counterexample: \[50\]\nShrunk 0 time\(s\)/);
    expect(REPLAY_LINE.exec(replayed)?.[0]).toBe(REPLAY_LINE.exec(failure.message)?.[0]);
  });

  it("returns a promise for an async property", async () => {
    const property = fc.asyncProperty(fc.nat(), async (n) => {
      await Promise.resolve();
      if (n >= 7) throw new Error(`too big: ${n}`);
    });
    const result = assertStimuli(property, { seed: 2 });
    expect(result).toBeInstanceOf(Promise);
    const failure = await result.then(
      () => {
        throw new Error("passed");
      },
      (error: unknown) => error as Error,
    );
    expect(failure.message).toMatch(/Counterexample: \[7\][\s\S]*\nerror: too big: 7\nreplay: /);
    expect(failure.message).toMatch(REPLAY_LINE);
    await expect(assertStimuli(fc.asyncProperty(fc.nat(), async () => {}), { numRuns: 5 })).resolves.toBeUndefined();
  });
});
