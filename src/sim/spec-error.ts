// The error of a spec (or cluster profile) that cannot be used: one line per problem, each
// naming the path of the bad field.
import { escapeControlCharacters } from "../util/escape-control.js";

/** A spec that cannot be used, with one entry per problem ("tasks[2].duration.mean: expected a positive number"). */
export class SpecError extends Error {
  override readonly name = "SpecError";
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    // Keys and names are user text: a NUL or an ESC in them is shown, not sent to the terminal.
    const shown = issues.map(escapeControlCharacters);
    super(shown.length === 1 ? shown[0]! : `${shown.length} problems:\n  ${shown.join("\n  ")}`);
    this.issues = shown;
  }
}
