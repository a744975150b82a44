// `assertStimuli`: `fc.assert` for properties built on the kit. fast-check knows the seed
// and shrink path of a counterexample only once the run is over, so this is where they get
// into the error: a StimulusViolation comes back with its replay line filled in, and any
// other failure gets fast-check's report plus the same line.
import type { IAsyncProperty, IProperty, Parameters, RunDetails } from "fast-check";
import { fastCheck } from "./fast-check.js";
import { StimulusViolation, formatReplay } from "./violation.js";

/**
 * Runs `property` like `fc.assert(property, parameters)` and, on failure, throws the
 * shrunk counterexample's error with one line that replays it:
 * `replay: assertStimuli(property, { seed, path, endOnFailure: true })`. Passing those
 * parameters back replays the shrunk case in one run (no generation, no shrinking). An
 * async property returns a promise.
 */
export function assertStimuli<Ts extends [unknown, ...unknown[]]>(property: IProperty<Ts>, parameters?: Parameters<Ts>): void;
export function assertStimuli<Ts extends [unknown, ...unknown[]]>(property: IAsyncProperty<Ts>, parameters?: Parameters<Ts>): Promise<void>;
export function assertStimuli<Ts extends [unknown, ...unknown[]]>(
  property: IProperty<Ts> | IAsyncProperty<Ts>,
  parameters: Parameters<Ts> = {},
): void | Promise<void> {
  const fc = fastCheck("assertStimuli");
  if (property.isAsync()) {
    return fc.check(property as IAsyncProperty<Ts>, parameters).then((details) => throwIfFailed(details));
  }
  throwIfFailed(fc.check(property as IProperty<Ts>, parameters));
}

function throwIfFailed<Ts>(details: RunDetails<Ts>): void {
  if (!details.failed) return;
  const replay = { seed: details.seed, path: details.counterexamplePath ?? "" };
  const error = details.errorInstance;
  if (error instanceof StimulusViolation) throw error.withReplay(replay);
  const fc = fastCheck("assertStimuli");
  const report = fc.defaultReportMessage(details) ?? "property failed";
  // fast-check 4 leaves the error out of its report (it is the cause): say what it was
  const got = error instanceof Error && !report.includes(error.message) ? `\nerror: ${error.message}` : "";
  throw new Error(`${report}${got}\nreplay: assertStimuli(property, ${formatReplay(replay)})`, { cause: error });
}
