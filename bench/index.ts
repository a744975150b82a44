// `npm run bench [-- NAME… [options]]`: runs the named benchmark suites (all by default).
// Each suite lives in bench/<name>.ts and exports its `OPTIONS` (bench/options.ts) and
// `run(argv: string[]): Promise<void>`, printing one JSON line per measurement on stdout.
// The options are parsed once against every chosen suite's: each suite gets its own, and
// an option none of them knows, or a bad value, is one line on stderr and exit 2.
import { BenchOptionError, runFromCommandLine, splitSuiteArgs, type OptionSpecs } from "./options.js";

const SUITES = ["state", "spans", "spill", "worker", "sim", "sweep"] as const;
type SuiteName = (typeof SUITES)[number];

interface Suite {
  readonly OPTIONS: OptionSpecs;
  run(argv: string[]): Promise<void>;
}

function isSuite(name: string): name is SuiteName {
  return (SUITES as readonly string[]).includes(name);
}

/** Suite names lead the command line; options follow. */
function splitCommandLine(argv: readonly string[]): { suites: SuiteName[]; options: string[] } {
  let i = 0;
  while (i < argv.length && !argv[i]!.startsWith("-")) {
    const name = argv[i]!;
    if (!isSuite(name)) throw new BenchOptionError(`unknown benchmark suite ${JSON.stringify(name)}; choose from ${SUITES.join(", ")}`);
    i++;
  }
  const suites = argv.slice(0, i) as SuiteName[];
  return { suites: suites.length > 0 ? suites : [...SUITES], options: argv.slice(i) };
}

async function main(argv: string[]): Promise<void> {
  const { suites, options } = splitCommandLine(argv);
  const modules: Record<string, Suite> = {};
  for (const name of suites) modules[name] = (await import(`./${name}.ts`)) as Suite;
  const perSuite = splitSuiteArgs(
    Object.fromEntries(suites.map((name) => [name, (modules[name] as Suite).OPTIONS])),
    options,
  );
  for (const name of suites) await (modules[name] as Suite).run(perSuite[name] as string[]);
}

await runFromCommandLine(main);
