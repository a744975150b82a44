// Partial matchers for instructions (and events), dask's `Instruction.match(**fields)`.
// They speak the jest/vitest asymmetric-matcher protocol, so they work inside
// `expect(list).toEqual([...])`, and they carry their own `matches()` plus
// `assertInstructions()` for users of node:test, mocha or plain scripts.

import type { Instruction } from "../state/index.js";
import { deepEqual, formatValue, isAsymmetricMatcher } from "./equality.js";

/** Anything built by a spanwork factory: a plain object with a `kind` discriminant. */
export interface Kinded {
  readonly kind: string;
}

/** A factory such as `Execute` or `ComputeTaskEvent`; its function name is its kind. */
export type KindFactory<T extends Kinded> = ((fields: never) => T) & { readonly name: string };

type FieldsOf<T> = { readonly [K in keyof T]?: T[K] | InstructionMatcherLike };
type InstructionMatcherLike = { asymmetricMatch(other: unknown): boolean };

type KindOf<F> = F extends KindFactory<infer T> ? T : never;

export class InstructionMatcher<T extends Kinded = Kinded> {
  /** jest/vitest recognise asymmetric matchers by this tag (for pretty-printing diffs). */
  readonly $$typeof = Symbol.for("jest.asymmetricMatcher");

  constructor(
    readonly kind: string,
    readonly fields: Readonly<Record<string, unknown>>,
  ) {
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) {
        throw new TypeError(`match(${kind}): field "${name}" is undefined; omit it to leave it unchecked`);
      }
    }
  }

  /** True when `actual` has this kind and every listed field deep-equals the expected one. */
  matches(actual: unknown): actual is T {
    return this.mismatches(actual).length === 0;
  }

  /** Human-readable reasons why `actual` does not match (empty when it matches). */
  mismatches(actual: unknown): string[] {
    if (typeof actual !== "object" || actual === null) {
      return [`expected a ${this.kind} instruction, got ${formatValue(actual)}`];
    }
    const record = actual as Record<string, unknown>;
    if (record.kind !== this.kind) {
      return [`kind: expected ${this.kind}, got ${formatValue(record.kind)}`];
    }
    const problems: string[] = [];
    for (const [name, want] of Object.entries(this.fields)) {
      if (!(name in record)) {
        problems.push(`${name}: missing (expected ${formatValue(want)})`);
      } else if (!deepEqual(record[name], want)) {
        problems.push(`${name}: expected ${formatValue(want)}, got ${formatValue(record[name])}`);
      }
    }
    return problems;
  }

  asymmetricMatch(other: unknown): boolean {
    return this.matches(other);
  }

  toString(): string {
    return "InstructionMatcher";
  }

  toAsymmetricMatcher(): string {
    const fields = Object.entries(this.fields).map(([k, v]) => `${k}: ${formatValue(v)}`);
    return `${this.kind}.match({${fields.join(", ")}})`;
  }
}

/**
 * A partial matcher: same `kind`, and the listed fields equal (deeply; nested asymmetric
 * matchers such as `expect.arrayContaining` are honoured). Unlisted fields — including
 * `stimulusId` — are not checked.
 *
 *     expect(instructions).toEqual([match(Execute, { key: "x" })]);
 *     assertInstructions(instructions, [match("Execute", { key: "x" })]);
 */
export function match<F extends KindFactory<Kinded>>(factory: F, fields?: FieldsOf<KindOf<F>>): InstructionMatcher<KindOf<F>>;
export function match<K extends Instruction["kind"]>(
  kind: K,
  fields?: FieldsOf<Extract<Instruction, { kind: K }>>,
): InstructionMatcher<Extract<Instruction, { kind: K }>>;
export function match(kind: string, fields?: Readonly<Record<string, unknown>>): InstructionMatcher;
export function match(
  kindOrFactory: string | KindFactory<Kinded>,
  fields: Readonly<Record<string, unknown>> = {},
): InstructionMatcher {
  const kind = typeof kindOrFactory === "string" ? kindOrFactory : kindOrFactory.name;
  if (!kind) throw new TypeError("match(): the factory has no name; pass the kind as a string");
  return new InstructionMatcher(kind, fields);
}

/** One line per instruction, for diffs: `GatherDep(worker="w", toGather=["x"], …)`. */
export function formatInstruction(instruction: unknown): string {
  if (instruction instanceof InstructionMatcher) return instruction.toAsymmetricMatcher();
  if (isAsymmetricMatcher(instruction)) return formatValue(instruction);
  if (typeof instruction !== "object" || instruction === null) return formatValue(instruction);
  const { kind, ...rest } = instruction as Record<string, unknown>;
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${formatValue(v)}`);
  return `${String(kind)}(${fields.join(", ")})`;
}

/**
 * Throws an Error with a line-by-line diff unless `actual` matches `expected` element for
 * element and in order. Each expected item is a matcher (from `match`), any asymmetric
 * matcher, or a full instruction compared with deep equality.
 */
export function assertInstructions(actual: readonly unknown[], expected: readonly unknown[]): void {
  const length = Math.max(actual.length, expected.length);
  const lines: string[] = [];
  let failed = actual.length !== expected.length;
  for (let i = 0; i < length; i++) {
    const have = actual[i];
    const want = expected[i];
    if (i >= actual.length) {
      lines.push(`  ✗ [${i}] missing; expected ${formatInstruction(want)}`);
      continue;
    }
    if (i >= expected.length) {
      lines.push(`  ✗ [${i}] unexpected ${formatInstruction(have)}`);
      continue;
    }
    const problems =
      want instanceof InstructionMatcher ? want.mismatches(have) : deepEqual(have, want) ? [] : ["not equal"];
    if (problems.length === 0) {
      lines.push(`  ✓ [${i}] ${formatInstruction(have)}`);
    } else {
      failed = true;
      lines.push(`  ✗ [${i}] expected ${formatInstruction(want)}`);
      lines.push(`         got ${formatInstruction(have)}`);
      for (const problem of problems) lines.push(`         - ${problem}`);
    }
  }
  if (failed) {
    throw new Error(
      `instructions do not match (got ${actual.length}, expected ${expected.length}):\n${lines.join("\n")}`,
    );
  }
}
