// The figures of the summary line `npm test` prints, from vitest's JSON report: tests passed,
// tests failed, and every test file that failed without a failing test of its own (an import
// or a hook that threw), since such a file ran none of its tests. Vitest's numFailedTestSuites
// is not that: it also counts each describe block around a failed test, so one failing test
// read as "3 failed".
export function countResults(report) {
  let failedFiles = 0;
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed").length;
    if (file.status === "failed" && failedTests === 0) failedFiles++;
  }
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + failedFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}
