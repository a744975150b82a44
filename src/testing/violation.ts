// The error of a property run that broke: what broke (the invariant), on which stimulus,
// the story of the key involved, what led there, and the one line that replays it.
import { InvalidTaskState, InvalidTransition, type Key, type LogEntry, type StateMachineEvent, type WorkerState } from "../state/index.js";
import { formatValue } from "./equality.js";

/** fast-check's coordinates of a counterexample: `fc.assert(property, { seed, path })` replays it. */
export interface ReplayParameters {
  readonly seed: number;
  readonly path: string;
}

export interface ViolationDetails {
  /** The broken invariant or rule, as the check that caught it words it. */
  readonly invariant: string;
  /** The stimulus being handled (formatted), or what the run was doing ("draining"). */
  readonly stimulus: string;
  /** 1-based position of that stimulus in the run. */
  readonly position: number;
  /** The key the invariant is about, when known. */
  readonly key: Key | null;
  /** `ws.story(key)` (the last entries). */
  readonly story: readonly LogEntry[];
  /** What happened before, one line per stimulus (with the instructions it produced). */
  readonly trace: readonly string[];
  /** The events fed, in order, the last one the stimulus that broke the invariant (empty when not known). */
  readonly events: readonly StateMachineEvent[];
  /** A line of code that replays the run without fast-check, when there is one. */
  readonly reproduction: string | null;
  /** The fast-check coordinates, once known (assertStimuli fills them in). */
  readonly replay: ReplayParameters | null;
}

const STORY_LINES = 30;

function describe(details: ViolationDetails): string {
  const lines = [
    `invariant broken at stimulus ${details.position}: ${details.invariant}`,
    `  stimulus: ${details.stimulus}`,
  ];
  if (details.key !== null) {
    const story = details.story;
    lines.push(`  story of ${JSON.stringify(details.key)}${story.length > STORY_LINES ? ` (last ${STORY_LINES} of ${story.length})` : ""}:`);
    if (story.length === 0) lines.push("    (empty)");
    for (const entry of story.slice(-STORY_LINES)) lines.push(`    (${entry.map((field) => formatValue(field)).join(", ")})`);
  }
  if (details.trace.length > 0) {
    lines.push(`  what happened (${details.trace.length} lines):`);
    for (const line of details.trace) lines.push(`    ${line}`);
  }
  if (details.replay !== null) {
    lines.push(`replay: assertStimuli(property, ${formatReplay(details.replay)})`);
    if (details.reproduction !== null) lines.push(`or, without fast-check: ${details.reproduction}`);
  } else if (details.reproduction !== null) {
    lines.push(`replay: ${details.reproduction}`);
  }
  return lines.join("\n");
}

/**
 * `{ seed: 42, path: "3:1:0", endOnFailure: true }`: the parameters, as fast-check prints
 * them, that replay a counterexample in one run (no generation, no further shrinking).
 */
export function formatReplay(replay: ReplayParameters): string {
  return `{ seed: ${replay.seed}, path: ${JSON.stringify(replay.path)}, endOnFailure: true }`;
}

/** A violation has the fields of its details (declaration merging: the constructor copies them). */
export interface StimulusViolation extends ViolationDetails {}

/**
 * A property run that broke. The message names the invariant, the stimulus, the story of
 * the key and the line that replays it; the fields carry the same for tools.
 */
export class StimulusViolation extends Error {
  readonly details: ViolationDetails;

  constructor(details: ViolationDetails, options?: ErrorOptions) {
    super(describe(details), options);
    this.name = "StimulusViolation";
    this.details = details;
    Object.assign(this, details);
  }

  /** The same violation with fast-check's coordinates in its replay line. */
  withReplay(replay: ReplayParameters): StimulusViolation {
    return new StimulusViolation({ ...this.details, replay }, { cause: this.cause });
  }
}

/**
 * The key an error is about: its `key` field, or the first key its message names that the
 * worker knows (as a JSON string or inside a TaskState repr `<TaskState 'k' state>`).
 */
export function keyOfError(ws: WorkerState, error: unknown): Key | null {
  if (error instanceof InvalidTaskState || error instanceof InvalidTransition) return error.key;
  if (error instanceof Error && "key" in error && (typeof error.key === "string" || error.key === null)) return error.key;
  if (!(error instanceof Error)) return null;
  for (const match of error.message.matchAll(/<TaskState '(.*?)' [^>]*>|("(?:[^"\\]|\\.)*")/g)) {
    let key: unknown = match[1];
    if (match[2] !== undefined) {
      try {
        key = JSON.parse(match[2]);
      } catch {
        continue;
      }
    }
    if (typeof key === "string" && (ws.tasks.has(key) || ws.data.has(key))) return key;
  }
  return null;
}
