// Shared by the kit's own tests: catching the violation a run throws, and a broken store.
import { StimulusViolation } from "../../src/testing/index.js";

/** The StimulusViolation `run` throws (any other error is rethrown; no error fails). */
export function violationOf(run: () => unknown): StimulusViolation {
  try {
    run();
  } catch (error) {
    if (error instanceof StimulusViolation) return error;
    throw error;
  }
  throw new Error("no violation");
}

/** The same for a run that returns a promise. */
export async function asyncViolationOf(run: () => Promise<unknown>): Promise<StimulusViolation> {
  try {
    await run();
  } catch (error) {
    if (error instanceof StimulusViolation) return error;
    throw error;
  }
  throw new Error("no violation");
}

/** A data store that never deletes: the simplest bug the kit must find. */
export class LeakyStore extends Map<string, unknown> {
  override delete(): boolean {
    return false;
  }
}
