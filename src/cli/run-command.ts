import { LIMITS } from "../sim/limits.js";
import type { SimOptions } from "../sim/report.js";
import type { CliIo, InterruptSignal } from "./cli-io.js";
import { CliUsageError, IncompleteRunError, InterruptedError } from "./errors.js";
import { createStyle, shouldUseColor } from "./format/color.js";
import { formatBytes } from "./format/units.js";
import { renderHtmlReport } from "./html/report-page.js";
import { checkOutputPath, writeOutputFile } from "./output-files.js";
import { parseBandwidth, parseNetworkModel, parseSeconds, parseWholeNumber } from "./parse-options.js";
import { loadSchedulerModule, parseSchedulerOption } from "./parse-scheduler.js";
import { parseMemoryLimit } from "./parse-size.js";
import { createProgressReporter } from "./progress.js";
import { reportToJson } from "./report-json.js";
import type { SimulatorApi } from "./simulator-api.js";
import { formatSummary } from "./summary.js";
import { packageVersion } from "./version.js";
import { clusterProfileFromArgument, DEFAULT_WORKLOAD, workloadFromArgument } from "./workload-source.js";

/** `spanwork run` options as commander hands them over: raw strings, parsed strictly here. */
export interface RunFlags {
  workers?: string;
  threads?: string;
  memoryLimit?: string;
  seed?: string;
  size?: string;
  network?: string;
  latency?: string;
  bandwidth?: string;
  cluster?: string;
  scheduler?: string;
  json?: string;
  html?: string;
  trace?: string;
  quiet?: boolean;
}


function interrupted(signal: InterruptSignal): InterruptedError {
  return new InterruptedError(signal === "SIGINT" ? 130 : 143, `interrupted (${signal}): the run was stopped and no file was written`);
}

/** Where `--json -` sends the report: stdout, instead of the summary. */
const STDOUT_PATH = "-";

/**
 * The simulation options of `spanwork run`'s flags, each parsed strictly (CliUsageError naming
 * the flag). `spanwork sweep` parses its axis values with it, so every run option is an axis.
 */
export function parseRunOptions(flags: RunFlags): SimOptions {
  const options: SimOptions = {};
  if (flags.workers !== undefined) options.workers = parseWholeNumber(flags.workers, "--workers", 1, LIMITS.workers);
  if (flags.threads !== undefined) options.threads = parseWholeNumber(flags.threads, "--threads", 1, LIMITS.threads);
  if (flags.memoryLimit !== undefined) options.memoryLimit = parseMemoryLimit(flags.memoryLimit);
  if (flags.seed !== undefined) options.seed = parseWholeNumber(flags.seed, "--seed", 0, Number.MAX_SAFE_INTEGER);
  if (flags.size !== undefined) options.size = parseWholeNumber(flags.size, "--size", 1, LIMITS.size);
  if (flags.network !== undefined) options.network = parseNetworkModel(flags.network);
  if (flags.latency !== undefined) options.latency = parseSeconds(flags.latency, "--latency");
  if (flags.bandwidth !== undefined) options.bandwidth = parseBandwidth(flags.bandwidth);
  if (flags.scheduler !== undefined) options.scheduler = parseSchedulerOption(flags.scheduler);
  return options;
}

/** `loadSimulator` is called only once the options are known to be good, so typos fail fast. */
export async function runCommand(workloadArgument: string | undefined, flags: RunFlags, io: CliIo, loadSimulator: () => Promise<SimulatorApi>): Promise<number> {
  // Everything the user typed is checked before the run, so a typo never costs a long simulation.
  const options = parseRunOptions(flags);
  // A policy module is loaded now, from the working directory, so a bad one fails before the run.
  const module = flags.scheduler === undefined ? null : await loadSchedulerModule(flags.scheduler, io.cwd);
  if (module !== null) options.scheduler = module;
  const jsonToStdout = flags.json === STDOUT_PATH;
  for (const [option, value] of [["--html", flags.html], ["--trace", flags.trace]] as const) {
    if (value === STDOUT_PATH) throw new CliUsageError(`${option}: writing to stdout ("-") is supported for --json only; give a file name`);
  }
  const jsonPath = flags.json !== undefined && !jsonToStdout ? checkOutputPath(flags.json, "--json", io.cwd) : undefined;
  const htmlPath = flags.html !== undefined ? checkOutputPath(flags.html, "--html", io.cwd) : undefined;
  const tracePath = flags.trace !== undefined ? checkOutputPath(flags.trace, "--trace", io.cwd) : undefined;
  const targets = [["--json", jsonPath], ["--html", htmlPath], ["--trace", tracePath]] as const;
  for (const [index, [option, path]] of targets.entries()) {
    const earlier = targets.slice(0, index).find(([, other]) => path !== undefined && other === path);
    if (earlier) throw new CliUsageError(`${option}: same file as ${earlier[0]} ("${path}"); give each output its own file`);
  }
  const simulator = await loadSimulator();
  if (flags.cluster !== undefined) options.cluster = clusterProfileFromArgument(flags.cluster, simulator, io.cwd);
  const workload = workloadFromArgument(workloadArgument ?? DEFAULT_WORKLOAD, simulator, io.cwd, options.seed);
  if (options.size !== undefined && workload.file !== undefined) {
    throw new CliUsageError(`--size: sets the size of a built-in workload; ${workload.file} sets its own task counts (change count in the file)`);
  }

  const progress = createProgressReporter(io.stderr, { enabled: flags.quiet !== true, now: io.now });
  options.collectSpans = tracePath !== undefined;
  options.onProgress = (update) => progress.update(update);
  // Ctrl-C stops the simulation (it yields to the event loop now and then, so the handler runs)
  // and nothing is written: every file is written only after a run that went through.
  const interrupt = new AbortController();
  let interruptedBy: InterruptSignal | null = null;
  const stopListening = io.onInterrupt((signal) => {
    interruptedBy ??= signal;
    interrupt.abort(new Error(`interrupted by ${signal}`));
  });
  options.signal = interrupt.signal;
  let result;
  try {
    result = await simulator.simulate(workload, options);
  } catch (error) {
    if (interruptedBy !== null) throw interrupted(interruptedBy);
    throw error;
  } finally {
    stopListening();
    progress.stop();
  }
  if (interruptedBy !== null) throw interrupted(interruptedBy);
  const { report } = result;

  const written: string[] = [];
  if (jsonPath !== undefined) {
    const json = reportToJson(report);
    writeOutputFile(jsonPath, json, "--json");
    written.push(`wrote ${flags.json} (report JSON, ${formatBytes(Buffer.byteLength(json))})`);
  }
  if (htmlPath !== undefined) {
    const html = renderHtmlReport(report, { generator: `spanwork ${packageVersion()}` });
    writeOutputFile(htmlPath, html, "--html");
    written.push(`wrote ${flags.html} (HTML report, ${formatBytes(Buffer.byteLength(html))})`);
  }
  if (tracePath !== undefined) {
    const trace = `${JSON.stringify(simulator.chromeTrace(result))}\n`;
    writeOutputFile(tracePath, trace, "--trace");
    written.push(`wrote ${flags.trace} (Chrome trace, ${formatBytes(Buffer.byteLength(trace))}; open it in https://ui.perfetto.dev)`);
  }

  if (jsonToStdout) {
    io.stdout.write(reportToJson(report));
  } else if (flags.quiet !== true) {
    const style = createStyle(shouldUseColor(io.stdout, io.env));
    io.stdout.write(formatSummary(report, { style }));
    if (written.length > 0) io.stdout.write(`\n${written.join("\n")}\n`);
  }
  if (!report.complete) throw new IncompleteRunError(`run incomplete: ${report.completion}`);
  return 0;
}
