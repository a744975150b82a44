import { Command, CommanderError, Option } from "commander";
import { escapeControlCharacters } from "../util/escape-control.js";
import { processIo, type CliIo } from "./cli-io.js";
import { CliFailure, CliUsageError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, InterruptedError, oneLine } from "./errors.js";
import { listCommand, type ListFlags } from "./list-command.js";
import { DEFAULT_SEED, DEFAULT_THREADS, DEFAULT_WORKERS } from "../sim/defaults.js";
import { DEFAULT_NETWORK_KIND, NETWORK_KINDS } from "../sim/network/registry.js";
import { runCommand, type RunFlags } from "./run-command.js";
import type { SimulatorApi } from "./simulator-api.js";
import { addSweepCommands } from "./sweep-commands.js";
import { runOptionsOf } from "./sweep-plan.js";
import { validateCommand } from "./validate-command.js";
import { packageVersion } from "./version.js";
import { DEFAULT_WORKLOAD } from "./workload-source.js";

export interface MainDependencies {
  io?: Partial<CliIo>;
  /** The simulator to run against; the real one is loaded lazily so `--help` stays instant. */
  simulator?: SimulatorApi;
}

/**
 * The `spanwork` command. Returns the exit code: 0 success, 2 bad input or usage (one line on
 * stderr naming the problem), 1 any other failure, including a run that ends incomplete.
 * With --debug, failures also print their stack trace.
 */
export async function main(argv: string[], dependencies: MainDependencies = {}): Promise<number> {
  const io: CliIo = { ...processIo(), ...dependencies.io };
  const debug = argv.includes("--debug");
  const simulator = async (): Promise<SimulatorApi> => dependencies.simulator ?? (await import("./simulator-adapter.js")).realSimulator();
  const exit = { code: EXIT_OK };
  const program = buildProgram(io, simulator, exit);
  try {
    // `help` of a command there is not is a mistake (commander prints the whole help on stderr)
    if (argv[0] === "help" && argv[1] !== undefined && !argv[1].startsWith("-")) {
      const names = program.commands.map((command) => command.name());
      if (!names.includes(argv[1]) && argv[1] !== "help") throw new CliUsageError(`help: unknown command '${argv[1]}' (commands: ${names.join(", ")})`);
    }
    // Bare `spanwork` is a request for help, not a mistake.
    await program.parseAsync(argv.length === 0 ? ["--help"] : argv, { from: "user" });
    return exit.code;
  } catch (error) {
    return reportFailure(error, io, debug);
  }
}

function buildProgram(io: CliIo, simulator: () => Promise<SimulatorApi>, exit: { code: number }): Command {
  const version = packageVersion();
  const program = new Command("spanwork")
    .description("Simulate dask-style task workers and show where their time, bytes and disk traffic go.")
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own errors (unknown option, missing argument) as one line, like ours.
      outputError: (text, write) => write(`${escapeControlCharacters(oneLine(text))}\n`),
    })
    .showSuggestionAfterError(true)
    .addHelpText(
      "after",
      `
Examples:
  spanwork list
  spanwork run                                   # the ${DEFAULT_WORKLOAD} workload with default settings
  spanwork run shuffle --workers 8 --memory-limit 256MiB --html report.html
  spanwork run shuffle --scheduler dask:stealing=false
  spanwork list schedulers
  spanwork run my-workload.yaml --seed 7 --json report.json --trace trace.json
  spanwork validate my-workload.yaml
  spanwork sweep plan.yaml --out results.jsonl   # many runs over workloads, options and seeds
  spanwork compare results.jsonl --html compare.html

Exit codes: 0 success, 2 bad input or usage, 1 any other failure (including a run that ends incomplete).`,
    );

  const debugOption = (): Option => new Option("--debug", "print stack traces of failures");

  const run = program
    .command("run")
    .description("run a simulated workload and print a summary")
    .argument("[workload]", `a built-in workload name (see \`spanwork list\`) or a JSON/YAML spec file (default: ${DEFAULT_WORKLOAD})`)
    .option("-w, --workers <n>", `number of workers (default: the profile's, else the spec's, else ${DEFAULT_WORKERS})`)
    .option("-t, --threads <n>", `threads per worker (default: the profile's, else the spec's, else ${DEFAULT_THREADS})`)
    .option("-m, --memory-limit <size>", 'memory per worker before spilling, e.g. 2GiB, 500MB, 1.5GB, bytes, or "none"')
    .option("-s, --seed <n>", `random seed (same seed, same run; default ${DEFAULT_SEED})`)
    .option("--size <n>", "size of a built-in workload (what it counts: see `spanwork list`)")
    .option("--network <model>", `network model: ${NETWORK_KINDS.join(", ")} (default: the profile's, else the spec's, else ${DEFAULT_NETWORK_KIND}; see \`spanwork list networks\`)`)
    .option("--scheduler <policy>", "placement policy NAME[:key=value,…] (see `spanwork list schedulers`) or a module path, e.g. dask:stealing=false")
    .option("--latency <seconds>", "network latency of a transfer, e.g. 0.001, 1.14ms")
    .option("--bandwidth <size>", "network bandwidth per worker and direction, per second, e.g. 744MB, 1GiB")
    .option("--cluster <file>", "a cluster profile (JSON/YAML): workers, network, disk, overheads, memory model; `extends: FILE` builds on another")
    .option("--json <file>", 'write the report as JSON ("-" for stdout instead of the summary)')
    .option("--html <file>", "write a self-contained HTML report with charts")
    .option("--trace <file>", "write the spans as a Chrome trace (open in Perfetto)")
    .option("-q, --quiet", "no progress bar and no summary (files are still written, problems still reported)")
    .addOption(debugOption())
    .version(version, "-V, --version", "print the version")
    .action(async (workload: string | undefined, flags: RunFlags) => {
      exit.code = await runCommand(workload, flags, io, simulator);
    });

  program
    .command("list")
    .description("list the built-in workloads (or the network models, or the placement policies), one per line")
    .argument("[what]", "workloads (default), networks or schedulers")
    .option("--schedulers", "list the placement policies and their options (the same as `list schedulers`)")
    .addOption(debugOption())
    .version(version, "-V, --version", "print the version")
    .action(async (what: string | undefined, flags: ListFlags) => {
      exit.code = listCommand(what, io, await simulator(), flags);
    });

  program
    .command("validate")
    .description("check a JSON/YAML workload spec and name every problem with its path")
    .argument("<file>", "the spec file")
    .addOption(debugOption())
    .version(version, "-V, --version", "print the version")
    .action(async (file: string) => {
      exit.code = validateCommand(file, io, await simulator());
    });

  addSweepCommands(program, io, simulator, exit, runOptionsOf(run), debugOption);

  return program;
}

function reportFailure(error: unknown, io: CliIo, debug: boolean): number {
  if (error instanceof CommanderError) {
    // Help asked for and the version are successes (help shown because of a mistake has exit
    // code 1); commander already printed any error message.
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT_OK;
    if (error.code === "commander.help" && error.exitCode === 0) return EXIT_OK;
    return EXIT_USAGE;
  }
  if (error instanceof InterruptedError) {
    io.stderr.write(`${error.message}\n`);
    return error.exitCode;
  }
  const usage = error instanceof CliUsageError;
  const expected = usage || error instanceof CliFailure;
  const message = error instanceof Error ? error.message : String(error);
  const line = expected ? message : `internal error: ${message}${debug ? "" : " (run with --debug for the stack trace)"}`;
  io.stderr.write(`error: ${escapeControlCharacters(oneLine(line))}\n`);
  if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return usage ? EXIT_USAGE : EXIT_FAILURE;
}
