// The `sweep`, `sweep merge` and `compare` commands as commander defines them, registered on
// the program by main.ts.
import { Command, type Option } from "commander";
import type { CliIo } from "./cli-io.js";
import { compareCommand, type CompareFlags } from "./compare-command.js";
import type { SimulatorApi } from "./simulator-api.js";
import { sweepCommand, sweepMergeCommand, type MergeFlags, type SweepFlags } from "./sweep-command.js";
import type { RunOptionInfo } from "./sweep-plan.js";
import { packageVersion } from "./version.js";

export function addSweepCommands(
  program: Command,
  io: CliIo,
  simulator: () => Promise<SimulatorApi>,
  exit: { code: number },
  runOptions: readonly RunOptionInfo[],
  debugOption: () => Option,
): void {
  const version = packageVersion();
  program.enablePositionalOptions();
  const sweep = program
    .command("sweep")
    .description("run many simulations — workloads × the cross product of a plan's axes × seeds — in parallel, appending one JSON line per run")
    .argument("<plan>", "a YAML/JSON plan: workloads, axes (any spanwork run option), seeds, exclude")
    .option("-o, --out <file>", "the JSON-lines file results are appended to; runs already in it are skipped (resume)")
    .option("-j, --jobs <n>", "worker threads (default: the number of cores)")
    .option("--shard <i/N>", "run only part i of N (a stable split by run key), e.g. for a job array")
    .option("--dry-run", "check the plan and count the runs, without running them")
    .option("-q, --quiet", "no progress and no summary (failures are still recorded)")
    .addOption(debugOption())
    .version(version, "-V, --version", "print the version")
    // `sweep merge … --out F`: options after the subcommand's name are the subcommand's (the
    // program's options are positional too, or it would hand `--out` to sweep itself).
    .enablePositionalOptions()
    .action(async (plan: string, flags: SweepFlags) => {
      exit.code = await sweepCommand(plan, flags, io, { simulator, runOptions });
    });

  sweep
    .command("merge")
    .description("join sweep outputs (shards, machines) into one file: one line per run key, sorted by key")
    .argument("<files...>", "results files (JSON lines)")
    .option("-o, --out <file>", "the merged file (written whole)")
    .addOption(debugOption())
    .version(version, "-V, --version", "print the version")
    .action((files: string[], flags: MergeFlags) => {
      exit.code = sweepMergeCommand(files, flags, io);
    });

  program
    .command("compare")
    .description("compare the configurations of sweep results per workload: makespan over seeds, bytes, utilisation, against a baseline")
    .argument("<results...>", "results files of spanwork sweep (JSON lines)")
    .option("--baseline <axis=value>", 'the baseline configuration, e.g. "scheduler=dask" (default: the first configuration)')
    .option("--html <file>", "write a self-contained HTML page with box plots and fine-metric bars")
    .option("--json <file>", 'write the comparison as JSON ("-" for stdout instead of the tables)')
    .addOption(debugOption())
    .version(version, "-V, --version", "print the version")
    .action((files: string[], flags: CompareFlags) => {
      exit.code = compareCommand(files, flags, io);
    });
}
