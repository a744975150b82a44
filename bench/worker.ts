// Worker benchmarks (`npm run bench -- worker`, or alone:
// `node --import tsx --expose-gc bench/worker.ts`).
// - prometheus: one scrape's text exposition of S fine-metric series, spanwork's own writer
//   versus prom-client (a Registry with Counters set from the same totals), same run.
// - virtual-clock: cost per step of VirtualClock (independent timers; a chain of sleeps).
// - worker-chain: end-to-end cost per task of a simulated Worker running a chain of tasks
//   (ComputeTaskEvent → Execute → SimulatedExecutor → ExecuteSuccessEvent → metrics).
// - worker-shell-overhead: N independent zero-duration tasks on a simulated Worker versus
//   the same events fed to a bare WorkerState (what the shell adds: spans, dispatch,
//   executor, metrics), same run.
// Options: --series N (default 2,000), --steps N (default 100,000), --tasks N (default 5,000), --repeat R (default 5).
import { pathToFileURL } from "node:url";
import { Counter, Registry } from "prom-client";
import { ComputeTaskEvent, ExecuteSuccessEvent, WorkerState, type Instruction } from "../src/state/index.js";
import {
  MetricsStore,
  SimulatedExecutor,
  VirtualClock,
  Worker,
  formatFineMetrics,
  type MetricEntry,
} from "../src/index.js";
import { parseSuiteOptions, runFromCommandLine, type OptionSpecs, type OptionValues } from "./options.js";
import { median, round, collectGarbage, jsonLines } from "./support.js";

const emit = jsonLines("worker");

export const OPTIONS = {
  series: { kind: "integer", default: 2_000 },
  steps: { kind: "integer", default: 100_000 },
  tasks: { kind: "integer", default: 5_000 },
  repeat: { kind: "integer", default: 5 },
} as const satisfies OptionSpecs;

type Options = OptionValues<typeof OPTIONS>;

export function parse(argv: readonly string[]): Options {
  return parseSuiteOptions("worker", OPTIONS, argv);
}

const ACTIVITIES = ["thread-cpu", "thread-noncpu", "other", "disk-read", "disk-write", "serialize", "deserialize", "memory-read"];
const OUTCOMES = ["ok", "failed", "cancelled", "running"];
const UNITS = ["seconds", "bytes", "count"];

function sampleEntries(series: number): MetricEntry[] {
  const store = new MetricsStore();
  for (let i = 0; store.size < series; i++) {
    const prefix = `prefix${Math.floor(i / (ACTIVITIES.length * OUTCOMES.length * UNITS.length))}`;
    const activity = ACTIVITIES[i % ACTIVITIES.length]!;
    const outcome = OUTCOMES[Math.floor(i / ACTIVITIES.length) % OUTCOMES.length]!;
    const unit = UNITS[Math.floor(i / (ACTIVITIES.length * OUTCOMES.length)) % UNITS.length]!;
    store.digest(["execute", prefix, activity, unit], unit === "seconds" ? i * 0.001 : i, outcome);
  }
  return store.totals();
}

async function benchPrometheus(options: Options): Promise<void> {
  const entries = sampleEntries(options.series);
  const ownSamples: number[] = [];
  const promSamples: number[] = [];
  let ownBytes = 0;
  let promBytes = 0;
  for (let r = 0; r < options.repeat + 1; r++) {
    collectGarbage();
    let t0 = performance.now();
    const text = formatFineMetrics(entries);
    let t1 = performance.now();
    if (r > 0) ownSamples.push(t1 - t0);
    ownBytes = text.length;

    collectGarbage();
    t0 = performance.now();
    // What a prom-client exporter does per scrape: set each counter from the cumulative
    // totals, then render the registry.
    const registry = new Registry();
    const counters = new Map<string, Counter<string>>();
    for (const entry of entries) {
      const unit = entry.name[entry.name.length - 1]!;
      const name = `spanwork_fine_${unit}_total`;
      let counter = counters.get(name);
      if (counter === undefined) {
        counter = new Counter({ name, help: `fine metrics in ${unit}`, labelNames: ["context", "prefix", "activity", "outcome"], registers: [registry] });
        counters.set(name, counter);
      }
      counter.inc(
        { context: entry.name[0]!, prefix: entry.name.slice(1, -2).join("/"), activity: entry.name[entry.name.length - 2]!, outcome: entry.outcome },
        entry.value,
      );
    }
    const promText = await registry.metrics();
    t1 = performance.now();
    if (r > 0) promSamples.push(t1 - t0);
    promBytes = promText.length;
  }
  const own = median(ownSamples);
  const prom = median(promSamples);
  emit({ name: "prometheus-own", series: entries.length, ms: round(own, 3), usPerSeries: round((own * 1000) / entries.length, 3), bytes: ownBytes });
  emit({ name: "prometheus-prom-client", series: entries.length, ms: round(prom, 3), usPerSeries: round((prom * 1000) / entries.length, 3), bytes: promBytes });
  emit({ name: "prometheus-ratio", promClientOverOwn: round(prom / own, 2) });
}

async function benchClock(options: Options): Promise<void> {
  const independent: number[] = [];
  const chained: number[] = [];
  for (let r = 0; r < options.repeat; r++) {
    collectGarbage();
    const clock = new VirtualClock();
    for (let i = 0; i < options.steps; i++) clock.setTimer((i * 7919) % options.steps, () => undefined);
    let t0 = performance.now();
    await clock.runUntilIdle();
    independent.push(((performance.now() - t0) * 1e6) / options.steps);

    collectGarbage();
    const chain = new VirtualClock();
    t0 = performance.now();
    const sleeper = (async () => {
      for (let i = 0; i < options.steps; i++) await chain.sleep(0.001);
    })();
    await chain.runUntilIdle();
    await sleeper;
    chained.push(((performance.now() - t0) * 1e6) / options.steps);
  }
  emit({ name: "virtual-clock-independent-timers", steps: options.steps, nsPerStep: round(median(independent)) });
  emit({ name: "virtual-clock-chained-sleeps", steps: options.steps, nsPerStep: round(median(chained)) });
}

async function chainOnce(tasks: number): Promise<number> {
  const clock = new VirtualClock();
  const address = "127.0.0.1:1";
  let next = 1;
  const model = { durations: { "thread-cpu": 0.001 }, outputBytes: 8 };
  const worker: Worker = new Worker({
    address,
    clock,
    executor: new SimulatedExecutor(),
    validate: false,
    send: (message) => {
      if (message.kind !== "TaskFinishedMsg" || next >= tasks) return;
      const i = next++;
      queueMicrotask(() =>
        worker.handleStimulus(
          ComputeTaskEvent({ key: `t-${i}`, stimulusId: `c-${i}`, whoHas: { [`t-${i - 1}`]: [address] }, nbytes: { [`t-${i - 1}`]: 8 }, runSpec: model }),
        ),
      );
    },
  });
  const t0 = performance.now();
  worker.handleStimulus(ComputeTaskEvent({ key: "t-0", stimulusId: "c-0", runSpec: model }));
  await clock.runUntilIdle();
  const elapsed = performance.now() - t0;
  if (worker.state.tasks.get(`t-${tasks - 1}`)?.state !== "memory") throw new Error("bench worker: the chain did not finish");
  return (elapsed * 1000) / tasks;
}

async function benchWorkerChain(options: Options): Promise<void> {
  const samples: number[] = [];
  await chainOnce(Math.min(options.tasks, 500));
  for (let r = 0; r < options.repeat; r++) {
    collectGarbage();
    samples.push(await chainOnce(options.tasks));
  }
  emit({ name: "worker-chain", tasks: options.tasks, usPerTask: round(median(samples)) });
}

function bareState(tasks: number): number {
  const ws = new WorkerState({ address: "127.0.0.1:1", nthreads: 4, validate: false });
  const queue: Instruction[] = [];
  const t0 = performance.now();
  for (let i = 0; i < tasks; i++) {
    for (const ins of ws.handleStimulus(ComputeTaskEvent({ key: `t-${i}`, stimulusId: `c-${i}`, priority: [0, i] }))) queue.push(ins);
  }
  for (let head = 0; head < queue.length; head++) {
    const ins = queue[head]!;
    if (ins.kind !== "Execute") continue;
    for (const next of ws.handleStimulus(ExecuteSuccessEvent({ key: ins.key, stimulusId: `e-${ins.key}`, nbytes: 1 }))) queue.push(next);
  }
  return ((performance.now() - t0) * 1000) / tasks;
}

async function shellWorker(tasks: number): Promise<number> {
  const clock = new VirtualClock();
  const worker = new Worker({ address: "127.0.0.1:1", nthreads: 4, clock, executor: new SimulatedExecutor(), validate: false });
  const model = { durations: {}, outputBytes: 1 };
  const t0 = performance.now();
  for (let i = 0; i < tasks; i++) {
    worker.handleStimulus(ComputeTaskEvent({ key: `t-${i}`, stimulusId: `c-${i}`, priority: [0, i], runSpec: model }));
  }
  await clock.runUntilIdle();
  const elapsed = performance.now() - t0;
  if (worker.state.tasks.get(`t-${tasks - 1}`)?.state !== "memory") throw new Error("bench worker: the tasks did not finish");
  return (elapsed * 1000) / tasks;
}

async function benchShellOverhead(options: Options): Promise<void> {
  const bare: number[] = [];
  const shell: number[] = [];
  bareState(Math.min(options.tasks, 1000));
  await shellWorker(Math.min(options.tasks, 1000));
  for (let r = 0; r < options.repeat; r++) {
    collectGarbage();
    bare.push(bareState(options.tasks));
    collectGarbage();
    shell.push(await shellWorker(options.tasks));
  }
  const b = median(bare);
  const w = median(shell);
  emit({ name: "worker-shell-overhead", tasks: options.tasks, bareStateUsPerTask: round(b), workerUsPerTask: round(w), shellUsPerTask: round(w - b) });
}

export async function run(argv: string[]): Promise<void> {
  const options = parse(argv);
  await benchPrometheus(options);
  await benchClock(options);
  await benchWorkerChain(options);
  await benchShellOverhead(options);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runFromCommandLine(run);
