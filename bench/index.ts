// `npm run bench [-- NAME… [options]]`: runs the named benchmark suites (all by default).
// Each suite lives in bench/<name>.ts and exports `run(argv: string[]): Promise<void>`,
// printing one JSON line per measurement on stdout.
const SUITES = ["state", "spans", "spill", "worker", "sim", "sweep"] as const;
type SuiteName = (typeof SUITES)[number];

function isSuite(name: string): name is SuiteName {
  return (SUITES as readonly string[]).includes(name);
}

const argv = process.argv.slice(2);
const named = argv.filter(isSuite);
const options = argv.filter((a) => !isSuite(a));
const unknown = options.filter((a) => !a.startsWith("-") && !/^\d/.test(a) && !a.includes("="));
if (unknown.length > 0 && named.length === 0) {
  console.error(`unknown benchmark suite ${JSON.stringify(unknown[0])}; choose from ${SUITES.join(", ")}`);
  process.exit(2);
}
for (const name of named.length > 0 ? named : SUITES) {
  const suite = (await import(`./${name}.ts`)) as { run(argv: string[]): Promise<void> };
  await suite.run(options);
}
