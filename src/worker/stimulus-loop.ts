// The worker's stimulus loop: each event goes to the WorkerState under a root span named
// after its cause (span-roots.ts), and the instructions it returns are carried out in
// order — scheduler messages to `send`, async instructions started, metrics digested.
import { bindSync } from "../spans/context.js";
import {
  isSchedulerMessage,
  type Execute,
  type GatherDep,
  type Instruction,
  type RetryBusyWorkerLater,
  type SendMessageToScheduler,
  type StateMachineEvent,
  type WorkerState,
} from "../state/index.js";
import type { WorkerClock } from "./clock.js";
import { exceptionAttributes } from "./failure.js";
import type { PrefixWeights } from "./prefix-split.js";
import type { RootDigester } from "./root-digest.js";
import { LazyRoot, latestChildEnd, stimulusRoot } from "./span-roots.js";
import type { Outcome } from "./types.js";

/** Who carries out the instructions that are not metrics. */
export interface InstructionTargets {
  execute(instruction: Execute): void;
  gather(instruction: GatherDep): void;
  retryLater(instruction: RetryBusyWorkerLater): void;
  send: ((message: SendMessageToScheduler) => void) | undefined;
  /** After the event was handled and its instructions carried out (the thread-time ledger's cue). */
  handled(event: StateMachineEvent): void;
}

function hasKeys(record: Readonly<Record<string, unknown>>): boolean {
  for (const _ in record) return true;
  return false;
}

export class StimulusLoop {
  readonly #address: string;
  readonly #state: WorkerState;
  readonly #clock: WorkerClock;
  readonly #roots: RootDigester;
  readonly #targets: InstructionTargets;
  /** Throws when the worker no longer handles events (closing or closed). */
  readonly #assertOpen: (event: StateMachineEvent) => void;

  constructor(
    address: string,
    state: WorkerState,
    clock: WorkerClock,
    roots: RootDigester,
    targets: InstructionTargets,
    assertOpen: (event: StateMachineEvent) => void,
  ) {
    this.#address = address;
    this.#state = state;
    this.#clock = clock;
    this.#roots = roots;
    this.#targets = targets;
    this.#assertOpen = assertOpen;
  }

  /**
   * One stimulus under a root span named after its cause, so that the spill work of
   * storing values (and the state machine's own time) is charged to it: a done event
   * (`doneEvent`) under its work's root name, any other under ["handle-stimulus", …].
   */
  handle(event: StateMachineEvent, rootName: readonly string[], outcome: Outcome, split: PrefixWeights | null, doneEvent: boolean): void {
    this.#assertOpen(event);
    const start = this.#clock.now();
    // The root exists only if something records under it or handling took time (a root
    // with no children, metrics or duration would be dropped below anyway).
    const lazy = new LazyRoot(rootName, this.#clock, start);
    let instructions: readonly Instruction[];
    let result: Outcome = "failed";
    let failure: unknown;
    try {
      instructions = bindSync(lazy, () => this.#state.handleStimulus(event));
      result = outcome;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const end = this.#clock.now();
      const root = lazy.span ?? (end !== start ? lazy.resolve() : undefined);
      if (root !== undefined) {
        root.setAttribute("outcome", result);
        // a done event's root shares its work's name (its cost is charged there): say what it handled
        if (doneEvent) root.setAttribute("stimulus", stimulusRoot(event.kind)[1] as string);
        if (result === "failed" && failure !== undefined) root.setAttributes(exceptionAttributes(failure));
        // A modelled spill duration may end after now: the root covers it (virtual time does
        // not advance inside a synchronous stimulus).
        root.end(latestChildEnd(root, end));
        if (root.children.length > 0 || root.duration !== 0 || hasKeys(root.metrics)) {
          this.#roots.digestRoot(root, event.stimulusId, split);
          this.#roots.report(root);
        }
      }
    }
    this.#dispatch(instructions, split);
    this.#targets.handled(event);
  }

  #dispatch(instructions: readonly Instruction[], split: PrefixWeights | null): void {
    const targets = this.#targets;
    for (const instruction of instructions) {
      switch (instruction.kind) {
        case "DigestMetric":
          this.#roots.digestMetric(instruction, split);
          break;
        case "Execute":
          targets.execute(instruction);
          break;
        case "GatherDep":
          targets.gather(instruction);
          break;
        case "RetryBusyWorkerLater":
          targets.retryLater(instruction);
          break;
        default:
          if (isSchedulerMessage(instruction)) {
            targets.send?.(instruction);
            break;
          }
          throw new TypeError(
            `worker ${this.#address}: unknown instruction ${JSON.stringify((instruction as { kind?: unknown }).kind)} (stimulus ${String((instruction as { stimulusId?: unknown }).stimulusId)})`,
          );
      }
    }
  }
}
