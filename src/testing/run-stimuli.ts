// `runStimuli`: feeds a generated sequence (or literal events) to a WorkerState through the
// scheduler/peer model, checks `validateState()` and the shell protocol after every
// stimulus, and optionally drains: lets everything outstanding succeed and checks that the
// worker comes to rest. A failure is a StimulusViolation that names the invariant, the
// stimulus, the story of the key and a line that replays the run.
import { EVENT_KINDS, type Instruction, type StateMachineEvent, type WorkerState } from "../state/index.js";
import { TransitionRecorder, type TransitionRecord } from "./coverage.js";
import { formatInstruction } from "./match.js";
import { ModelViolation, SchedulerModel, keyOfEvent } from "./scheduler-model.js";
import type { Stimulus } from "./stimuli.js";
import { StimulusViolation, keyOfError } from "./violation.js";

export interface RunStimuliOptions {
  /**
   * After every stimulus: `true` (default) calls `ws.validateState()`; a function is called
   * after it with the worker and the event (your own invariants: throw to fail); `false`
   * checks only the shell protocol (and whatever the worker's own `validate` option checks).
   */
  validate?: boolean | ((ws: WorkerState, event: StateMachineEvent) => void);
  /**
   * At the end, let every outstanding execution, transfer and busy-peer retry succeed
   * (unpausing first) and check that the worker comes to rest (default true).
   */
  drain?: boolean;
}

export interface StimuliRun extends TransitionRecord {
  /** Every event fed, in order, the drain's included. */
  readonly events: readonly StateMachineEvent[];
  /** Steps of the input that became an event. */
  readonly applied: number;
  /** Steps of the input that did not apply when their turn came (no-ops). */
  readonly skipped: number;
}

const EVENT_KIND_NAMES = new Set<string>(EVENT_KINDS);
const DRAIN_ROUNDS = 200;
const TRACE_LINES = 40;

function isEvent(item: Stimulus | StateMachineEvent): item is StateMachineEvent {
  return EVENT_KIND_NAMES.has(item.kind);
}

/**
 * Feeds `stimuli` — steps from `arbitraryStimuli` and/or events built with the factories —
 * to `ws` in order. Steps become events through a scheduler/peer model that answers the
 * worker's Execute, GatherDep and RetryBusyWorkerLater instructions; literal events are
 * fed as they are (and answer outstanding instructions too). Throws a StimulusViolation on
 * the first broken invariant or protocol rule; returns what ran, with the transitions
 * reached (for `transitionCoverage`).
 */
export function runStimuli(
  ws: WorkerState,
  stimuli: Iterable<Stimulus | StateMachineEvent>,
  options: RunStimuliOptions = {},
): StimuliRun {
  const validate = options.validate ?? true;
  const model = new SchedulerModel(ws);
  const recorder = new TransitionRecorder(ws);
  const consumed: (Stimulus | StateMachineEvent)[] = [];
  const events: StateMachineEvent[] = [];
  const outputs: (readonly Instruction[])[] = [];
  const sources: (Stimulus | null)[] = [];
  let skipped = 0;

  const fail = (error: unknown, stimulus: string): never => {
    throw violation(ws, error, stimulus, events, outputs, sources, consumed);
  };
  const feed = (event: StateMachineEvent, source: Stimulus | null): void => {
    events.push(event);
    sources.push(source);
    try {
      const instructions = ws.handleStimulus(event);
      outputs.push(instructions);
      if (validate !== false) ws.validateState();
      if (typeof validate === "function") validate(ws, event);
      model.observe(event, instructions);
    } catch (error) {
      fail(error, formatInstruction(event));
    }
    recorder.maybeCollect();
  };

  for (const item of stimuli) {
    consumed.push(item);
    if (isEvent(item)) {
      model.answered(item);
      feed(item, null);
      continue;
    }
    const event = model.resolve(item);
    if (event === null) skipped++;
    else feed(event, item);
  }
  const applied = consumed.length - skipped;

  if (options.drain ?? true) {
    feed(model.unpause(), null);
    for (let round = 0; model.outstanding > 0; round++) {
      if (round >= DRAIN_ROUNDS) fail(new Error(`still ${model.outstanding} instructions outstanding after ${DRAIN_ROUNDS} drain rounds`), "draining");
      for (const event of model.drainRound()) feed(event, null);
    }
    const unsettled = model.unsettledTasks();
    if (unsettled.length > 0) {
      fail(new ModelViolation(`not at rest after draining: ${unsettled.map(String).join(", ")}`, unsettled[0]?.key ?? null), "after draining");
    }
  }
  recorder.collect();
  return { events, applied, skipped, transitions: recorder.transitions, unrecordedTransitions: recorder.unrecordedTransitions };
}

function violation(
  ws: WorkerState,
  error: unknown,
  stimulus: string,
  events: readonly StateMachineEvent[],
  outputs: readonly (readonly Instruction[])[],
  sources: readonly (Stimulus | null)[],
  consumed: readonly (Stimulus | StateMachineEvent)[],
): StimulusViolation {
  const invariant = error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error);
  const last = events[events.length - 1];
  const key = keyOfError(ws, error) ?? (last === undefined ? null : keyOfEvent(last));
  const trace: string[] = [];
  const from = Math.max(0, events.length - TRACE_LINES);
  if (from > 0) trace.push(`… ${from} earlier stimuli`);
  for (let i = from; i < events.length; i++) {
    const source = sources[i];
    trace.push(`${i + 1}. ${formatInstruction(events[i])}${source == null ? "" : `  ← ${JSON.stringify(source)}`}`);
    for (const instruction of outputs[i] ?? []) trace.push(`     → ${formatInstruction(instruction)}`);
  }
  return new StimulusViolation(
    {
      invariant,
      stimulus,
      position: events.length,
      key,
      story: key === null ? [] : ws.story(key),
      trace,
      events: [...events],
      reproduction: reproductionOf(consumed),
      replay: null,
    },
    { cause: error },
  );
}

/** `runStimuli(ws, [...])` with the steps consumed so far, when they are plain data. */
function reproductionOf(consumed: readonly (Stimulus | StateMachineEvent)[]): string | null {
  try {
    return `runStimuli(ws, ${JSON.stringify(consumed)})`;
  } catch {
    return null;
  }
}
