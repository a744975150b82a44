import { compileSpec, SpecError, validateSpec } from "../../src/sim/index.js";

/** Every problem validateSpec and compileSpec find in `input`, as their SpecError lists them; [] when none. */
export function problems(input: unknown): readonly string[] {
  try {
    compileSpec(validateSpec(input), 1);
  } catch (error) {
    if (error instanceof SpecError) return error.issues;
    throw error;
  }
  return [];
}
