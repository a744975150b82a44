// The one option parser of the benchmark suites, on node:util `parseArgs`. Each suite
// declares its options (name, kind, default) once; `parseSuiteOptions` turns argv into
// typed values keyed by the camelCase name (`--w1-n` → `w1N`), or throws a
// `BenchOptionError` naming the option and the bad value. A value is everything after the
// first `=` (`--node-flags=--max-semi-space-size=4` keeps `--max-semi-space-size=4`).
//
// `npm run bench` hands one command line to several suites: `splitSuiteArgs` parses it
// against the union of their options (an option no suite knows is an error) and gives each
// suite only its own.
import { parseArgs } from "node:util";

export type OptionSpec = (
  /** A whole number ≥ `min` (default 1). */
  | { readonly kind: "integer"; readonly default: number; readonly min?: number }
  /** Comma-separated whole numbers ≥ `min` (default 1). */
  | { readonly kind: "integers"; readonly default: readonly number[]; readonly min?: number }
  /** Any text, or one of `choices`; `default` absent = undefined when not given. */
  | { readonly kind: "string"; readonly default?: string; readonly choices?: readonly string[] }
  /** Comma-separated names, each one of `choices` when given. */
  | { readonly kind: "list"; readonly default: readonly string[]; readonly choices?: readonly string[] }
  /** A flag: true when present. */
  | { readonly kind: "boolean" }
) & {
  /** Passed by a suite to its own child processes only: not an option of `npm run bench`. */
  readonly internal?: boolean;
};

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

type ValueOf<S extends OptionSpec> = S extends { kind: "integer" }
  ? number
  : S extends { kind: "integers" }
    ? number[]
    : S extends { kind: "list" }
      ? string[]
      : S extends { kind: "boolean" }
        ? boolean
        : S extends { default: string }
          ? string
          : string | undefined;

export type OptionValues<S extends OptionSpecs> = {
  -readonly [K in keyof S & string as CamelCase<K>]: ValueOf<S[K]>;
};

/** A bad command line: one line naming the option and the problem. */
export class BenchOptionError extends Error {
  override readonly name = "BenchOptionError";
}

function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function parseArgsConfig(specs: OptionSpecs): Record<string, { type: "string" | "boolean" }> {
  const config: Record<string, { type: "string" | "boolean" }> = Object.create(null);
  for (const name of Object.keys(specs)) config[name] = { type: specs[name]!.kind === "boolean" ? "boolean" : "string" };
  return config;
}

function flagList(specs: OptionSpecs): string {
  return Object.keys(specs)
    .map((name) => `--${name}`)
    .join(", ");
}

/** parseArgs with its errors rewritten as one BenchOptionError line. */
function tokenize(suite: string, specs: OptionSpecs, argv: readonly string[]): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args: [...argv], options: parseArgsConfig(specs), strict: true, allowPositionals: false, tokens: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      const option = /'([^']+)'/.exec(message)?.[1] ?? message;
      throw new BenchOptionError(`bench ${suite}: unknown option ${option} (options: ${flagList(specs)})`);
    }
    if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
      const arg = /'([^']+)'/.exec(message)?.[1] ?? message;
      throw new BenchOptionError(`bench ${suite}: unexpected argument ${JSON.stringify(arg)}`);
    }
    // Missing or dash-led values: node's message already names the option.
    throw new BenchOptionError(`bench ${suite}: ${message.split("\n")[0]}`);
  }
}

function integer(suite: string, name: string, raw: string, min: number): number {
  const value = raw.trim() === "" ? NaN : Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new BenchOptionError(`bench ${suite}: --${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function oneOf(suite: string, name: string, raw: string, choices: readonly string[] | undefined): string {
  if (choices !== undefined && !choices.includes(raw)) {
    throw new BenchOptionError(`bench ${suite}: --${name} takes ${choices.join(", ")}, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

function convert(suite: string, name: string, spec: OptionSpec, raw: string | boolean): unknown {
  switch (spec.kind) {
    case "boolean":
      return raw === true;
    case "integer":
      return integer(suite, name, raw as string, spec.min ?? 1);
    case "integers":
      return (raw as string).split(",").map((part) => integer(suite, name, part, spec.min ?? 1));
    case "string":
      return oneOf(suite, name, raw as string, spec.choices);
    case "list": {
      const parts = (raw as string)
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part.length > 0);
      if (parts.length === 0) throw new BenchOptionError(`bench ${suite}: --${name} needs at least one name`);
      return parts.map((part) => oneOf(suite, name, part, spec.choices));
    }
  }
}

function defaultOf(spec: OptionSpec): unknown {
  switch (spec.kind) {
    case "boolean":
      return false;
    case "integers":
    case "list":
      return [...spec.default];
    default:
      return spec.default;
  }
}

/** A suite's options from `argv`: every option known, every value checked, defaults filled. */
export function parseSuiteOptions<S extends OptionSpecs>(suite: string, specs: S, argv: readonly string[]): OptionValues<S> {
  const { values } = tokenize(suite, specs, argv);
  const result: Record<string, unknown> = {};
  for (const name of Object.keys(specs)) {
    const spec = specs[name]!;
    const raw = values[name] as string | boolean | undefined;
    result[camelCase(name)] = raw === undefined ? defaultOf(spec) : convert(suite, name, spec, raw);
  }
  return result as OptionValues<S>;
}

/**
 * One command line for several suites: each suite's own options (as `--name=value`, or
 * `--name` for a flag), in the order given. An option none of them knows is an error, and so
 * is an option two suites spell with different kinds (a flag in one, a value in the other).
 */
export function splitSuiteArgs(suites: Readonly<Record<string, OptionSpecs>>, argv: readonly string[]): Record<string, string[]> {
  const union: Record<string, OptionSpec> = Object.create(null);
  for (const [suite, specs] of Object.entries(suites)) {
    for (const name of Object.keys(specs)) {
      const known = union[name];
      const spec = specs[name]!;
      if (spec.internal === true) continue;
      if (known !== undefined && (known.kind === "boolean") !== (spec.kind === "boolean")) {
        throw new Error(`bench: --${name} is a flag in one suite and takes a value in another (${suite})`);
      }
      union[name] ??= spec;
    }
  }
  const names = Object.keys(suites);
  const { tokens } = tokenize(names.length === 1 ? names[0]! : names.join("/"), union, argv);
  const split: Record<string, string[]> = {};
  for (const [suite, specs] of Object.entries(suites)) {
    const own: string[] = [];
    for (const token of tokens ?? []) {
      if (token.kind !== "option" || !Object.prototype.hasOwnProperty.call(specs, token.name)) continue;
      if (specs[token.name]!.internal === true) continue;
      own.push(token.value === undefined ? `--${token.name}` : `--${token.name}=${token.value}`);
    }
    split[suite] = own;
  }
  return split;
}

/**
 * The `if invoked directly` tail of a suite: runs it, and turns a bad command line into one
 * line on stderr and exit 2 (no stack trace).
 */
export async function runFromCommandLine(run: (argv: string[]) => Promise<void>): Promise<void> {
  try {
    await run(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof BenchOptionError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
