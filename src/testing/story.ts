// dask's `assert_story`: check that a WorkerState log (or a `story()` slice of it)
// contains the expected entries as an ordered subsequence.

import { deepEqual, formatValue } from "./equality.js";

/** An element of an expected entry: a value (deep-equal) or a predicate on that element. */
export type StoryElementExpectation = unknown | ((element: unknown) => boolean);
export type ExpectedStoryEntry = readonly StoryElementExpectation[];

export interface AssertStoryOptions {
  /** The story must have exactly as many entries as `expected` (default false). */
  strict?: boolean;
}

/**
 * Every log entry ends with `(stimulusId, timestamp)`. An expected entry matches a log entry
 * when it lists all the other elements (the usual form), those plus the stimulus id, or the
 * whole entry; elements are compared with deep equality (a Set equals an array holding the
 * same items, in any order) or, when the expectation is a function, by calling it.
 * Expected entries must appear in order; other entries in between are ignored unless
 * `strict` is set, in which case the story must hold exactly the expected entries.
 */
export function assertStory(
  story: readonly (readonly unknown[])[],
  expected: readonly ExpectedStoryEntry[],
  options: AssertStoryOptions = {},
): void {
  const strict = options.strict ?? false;
  story.forEach((entry, index) => checkWellFormed(entry, index, story));

  const fail = (reason: string): never => {
    throw new Error(
      `assertStory(strict=${strict}) failed: ${reason}\nstory:\n${formatStory(story)}\nexpected:\n${formatStory(expected)}`,
    );
  };
  if (strict && story.length !== expected.length) {
    fail(`the story has ${story.length} entries, expected exactly ${expected.length}`);
  }
  let cursor = 0;
  for (const [expectedIndex, want] of expected.entries()) {
    let found = false;
    while (cursor < story.length) {
      const entry = story[cursor++]!;
      if (entryMatches(entry, want)) {
        found = true;
        break;
      }
      if (strict) {
        fail(`entry ${cursor - 1} ${formatEntry(entry)} does not match expected entry ${expectedIndex} ${formatEntry(want)}`);
      }
    }
    if (!found) fail(`expected entry ${expectedIndex} ${formatEntry(want)} not found (in order)`);
  }
}

function entryMatches(entry: readonly unknown[], want: ExpectedStoryEntry): boolean {
  const acceptedLengths = [entry.length - 2, entry.length - 1, entry.length];
  if (!acceptedLengths.includes(want.length)) return false;
  return want.every((expectation, i) =>
    typeof expectation === "function"
      ? (expectation as (element: unknown) => boolean)(entry[i])
      : deepEqual(entry[i], expectation),
  );
}

function checkWellFormed(entry: readonly unknown[], index: number, story: readonly (readonly unknown[])[]): void {
  const stimulusId = entry[entry.length - 2];
  const timestamp = entry[entry.length - 1];
  if (!Array.isArray(entry) || entry.length <= 2 || typeof stimulusId !== "string" || stimulusId === "" || typeof timestamp !== "number") {
    throw new Error(
      `assertStory: malformed story entry ${index}: ${formatEntry(entry)} ` +
        `(every entry must end with a non-empty stimulusId and a numeric timestamp)\nstory:\n${formatStory(story)}`,
    );
  }
}

function formatEntry(entry: readonly unknown[]): string {
  return `(${entry.map((element) => formatValue(element)).join(", ")})`;
}

export function formatStory(story: readonly (readonly unknown[])[]): string {
  if (story.length === 0) return "  (empty)";
  return story.map((entry) => `  ${formatEntry(entry)}`).join("\n");
}
