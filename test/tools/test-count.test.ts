import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs script without types
import { countResults } from "../../scripts/test-count.mjs";

describe("npm test's summary line", () => {
  it("counts one failing test once, whatever describe blocks hold it", () => {
    // vitest's own figures for one failing test inside two describe blocks
    const report = {
      numPassedTests: 1302,
      numFailedTests: 1,
      numFailedTestSuites: 3,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [
        { status: "failed", assertionResults: [{ status: "passed" }, { status: "failed" }] },
        { status: "passed", assertionResults: [{ status: "passed" }] },
      ],
    };
    expect(countResults(report)).toEqual({ passed: 1302, failed: 1, skipped: 0 });
  });

  it("counts a file that failed before any test ran", () => {
    const report = {
      numPassedTests: 5,
      numFailedTests: 0,
      numFailedTestSuites: 1,
      numPendingTests: 1,
      numTodoTests: 1,
      testResults: [{ status: "failed", assertionResults: [] }, { status: "passed", assertionResults: [{ status: "passed" }] }],
    };
    expect(countResults(report)).toEqual({ passed: 5, failed: 1, skipped: 2 });
  });
});
