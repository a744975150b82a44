// Span benchmarks (`npm run bench -- spans`, or alone: `node --import tsx --expose-gc bench/spans.ts`).
// Cost per task of the span work a worker does per Execute: a root ["execute", prefix] and
// four children (start/end, attributes, metrics), toRecord(), toDigestMetrics(); beside the
// same tree built with the OpenTelemetry SDK (BasicTracerProvider + SimpleSpanProcessor +
// InMemorySpanExporter), measured in the same run (goal: ≥ 10× cheaper per span). Also the
// cost of AsyncLocalStorage binding: asCurrent / withSpan / meter per task, and the extra
// cost of every `await` once a span is bound.
// Figures are wall-clock nanoseconds (see wallNow). Options: --tasks N (per measurement, default 30,000), --awaits N (default 200,000), --repeat R (default 3; the comparison runs max(3R, 9) alternating rounds of N/3 tasks).
import { pathToFileURL } from "node:url";
import { ROOT_CONTEXT, trace, type Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { meter, Span, toDigestMetrics, withSpan } from "../src/spans/index.js";
import { parseSuiteOptions, runFromCommandLine, type OptionSpecs, type OptionValues } from "./options.js";
import { median, round, jsonLines } from "./support.js";

const emit = jsonLines("spans");

export const OPTIONS = {
  tasks: { kind: "integer", default: 30_000 },
  awaits: { kind: "integer", default: 200_000 },
  repeat: { kind: "integer", default: 3 },
} as const satisfies OptionSpecs;

type Options = OptionValues<typeof OPTIONS>;

export function parse(argv: readonly string[]): Options {
  return parseSuiteOptions("spans", OPTIONS, argv);
}

const CHILDREN = ["memory-read", "executor", "thread-noncpu", "serialize"] as const;
const PREFIXES = ["inc", "add", "sum", "load"] as const;
let sink = 0;




// Timings are wall-clock, each timed batch started after a short pause. No forced
// collection: on Node 20 a `gc()` between batches made the following span code run several
// times slower (measured), which says more about the collector than about the code. The
// machine is shared and noisy: the ratio between implementations is the median of rounds
// that alternate them, so both see the same load.
function wallNow(): number {
  return Number(process.hrtime.bigint());
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Median ns per iteration of `body(i)` over the repeats (after one warm-up pass). */
function timeSync(options: Options, iterations: number, body: (i: number) => void): number {
  for (let i = 0; i < Math.min(iterations, 5_000); i++) body(i);
  const samples: number[] = [];
  for (let r = 0; r < options.repeat; r++) {
    const start = wallNow();
    for (let i = 0; i < iterations; i++) body(i);
    samples.push((wallNow() - start) / iterations);
  }
  return median(samples);
}

async function timeAsync(options: Options, iterations: number, body: (n: number) => Promise<void>, warmUp = true): Promise<number> {
  if (warmUp) await body(Math.min(iterations, 5_000));
  const samples: number[] = [];
  for (let r = 0; r < options.repeat; r++) {
    await settle();
    const start = wallNow();
    await body(iterations);
    samples.push((wallNow() - start) / iterations);
  }
  return median(samples);
}

/** What the worker does per Execute. */
function spanworkTask(i: number): void {
  const root = new Span(["execute", PREFIXES[i & 3]!], { attributes: { key: "k" } }).start();
  for (const name of CHILDREN) {
    const child = root.child(name);
    if (name === "memory-read") child.setAttribute("aggregate", true).addMetric("bytes", 1000).addMetric("count", 1);
    child.end();
  }
  root.setAttribute("outcome", "ok");
  root.end();
  sink += toDigestMetrics(root.toRecord(), { stimulusId: "s" }).length;
}

function otelTask(tracer: Tracer, i: number): void {
  const root = tracer.startSpan(`execute/${PREFIXES[i & 3]!}`, { attributes: { key: "k" } }, ROOT_CONTEXT);
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  for (const name of CHILDREN) {
    const child = tracer.startSpan(name, undefined, parent);
    if (name === "memory-read") child.setAttributes({ aggregate: true, bytes: 1000, count: 1 });
    child.end();
  }
  root.setAttribute("outcome", "ok");
  root.end();
}

async function perTask(options: Options): Promise<void> {
  const spansPerTask = 1 + CHILDREN.length;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("bench");
  // SimpleSpanProcessor exports through promises: drain them (and the exporter) between
  // batches so memory stays flat; the draining is part of the SDK's cost.
  const otelBatch = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      otelTask(tracer, i);
      if ((i & 1023) === 1023) {
        exporter.reset();
        await Promise.resolve();
      }
    }
    exporter.reset();
    await Promise.resolve();
  };
  const oursBatch = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) spanworkTask(i);
  };
  // Rounds alternate the two implementations so that both see the same machine load; the
  // ratio is the median of the per-round ratios.
  const rounds = Math.max(options.repeat * 3, 9);
  const batch = Math.max(1, Math.floor(options.tasks / 3));
  const ours: number[] = [];
  const otel: number[] = [];
  const ratios: number[] = [];
  await oursBatch(5_000);
  await otelBatch(5_000);
  for (let r = 0; r < rounds; r++) {
    const a = await timeAsync({ ...options, repeat: 1 }, batch, oursBatch, false);
    const b = await timeAsync({ ...options, repeat: 1 }, batch, otelBatch, false);
    ours.push(a);
    otel.push(b);
    ratios.push(b / a);
  }
  await provider.shutdown();

  // Components of our per-task cost.
  const build = timeSync(options, options.tasks, (i) => {
    const root = new Span(["execute", PREFIXES[i & 3]!]).start();
    for (const name of CHILDREN) root.child(name).end();
    root.end();
    sink += root.children.length;
  });
  const built = new Span(["execute", "inc"]).start();
  for (const name of CHILDREN) built.child(name, name === "memory-read" ? { attributes: { aggregate: true } } : {}).end();
  built.end();
  const toRecordNs = timeSync(options, options.tasks, () => {
    sink += built.toRecord().children.length;
  });
  const record = built.toRecord();
  const digestNs = timeSync(options, options.tasks, () => {
    sink += toDigestMetrics(record, { stimulusId: "s" }).length;
  });

  const oursNs = median(ours);
  const otelNs = median(otel);
  const ratio = median(ratios);
  const common = { spansPerTask, tasksPerRound: batch, rounds };
  emit({ name: "task", impl: "spanwork", nsPerTask: round(oursNs), nsPerSpan: round(oursNs / spansPerTask), ...common });
  emit({ name: "task", impl: "opentelemetry-sdk", nsPerTask: round(otelNs), nsPerSpan: round(otelNs / spansPerTask), ...common });
  emit({ name: "task-ratio", otelOverSpanwork: round(ratio, 2), goal: 10, met: ratio >= 10, minRatio: round(Math.min(...ratios), 2), maxRatio: round(Math.max(...ratios), 2) });
  emit({ name: "task-parts", impl: "spanwork", buildNs: round(build), toRecordNs: round(toRecordNs), toDigestMetricsNs: round(digestNs) });
}

async function awaitLoop(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await undefined;
}

/** Plain `await` cost, measured before anything in this process binds a span. */
async function plainAwaitCost(options: Options): Promise<number> {
  return timeAsync(options, options.awaits, awaitLoop);
}

async function contextCosts(options: Options, plainAwait: number): Promise<void> {
  // A root that children pile up under would grow without bound: replace it now and then.
  let root = new Span(["execute", "bench"]).start();
  const freshRoot = (i: number): Span => {
    if ((i & 1023) === 0) {
      root.end();
      root = new Span(["execute", "bench"]).start();
    }
    return root;
  };
  const asCurrent = timeSync(options, options.tasks, (i) => {
    freshRoot(i).asCurrent(() => {
      sink += 1;
    });
  });
  const withSpanNs = timeSync(options, options.tasks, (i) => {
    freshRoot(i).asCurrent(() =>
      withSpan("executor", () => {
        sink += 1;
      }),
    );
  });
  const meterNs = timeSync(options, options.tasks, (i) => {
    freshRoot(i).asCurrent(() =>
      meter("executor", () => {
        sink += 1;
      }),
    );
  });
  // Plain awaits again, now that AsyncLocalStorage is enabled, inside and outside a binding.
  const boundAwait = await timeAsync(options, options.awaits, (n) => root.asCurrent(() => awaitLoop(n)));
  const unboundAwait = await timeAsync(options, options.awaits, awaitLoop);
  root.end();

  emit({
    name: "context-bind",
    asCurrentNsPerTask: round(asCurrent),
    withSpanNsPerTask: round(withSpanNs),
    meterNsPerTask: round(meterNs),
    tasks: options.tasks,
    note: "withSpan/meter include asCurrent of the parent, child start/end",
  });
  emit({
    name: "await-overhead",
    plainAwaitNs: round(plainAwait),
    boundAwaitNs: round(boundAwait),
    awaitAfterBindingNs: round(unboundAwait),
    extraNsPerAwait: round(boundAwait - plainAwait),
    awaits: options.awaits,
  });
}

export async function run(argv: string[]): Promise<void> {
  const options = parse(argv);
  // Order matters: once a span is bound, AsyncLocalStorage stays enabled in this process
  // and every promise pays for it, so both the plain await and the per-task comparison
  // (whose OpenTelemetry side runs on promises) come first.
  const plainAwait = await plainAwaitCost(options);
  await perTask(options);
  await contextCosts(options, plainAwait);
  if (sink === -1) console.error("unreachable");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runFromCommandLine(run);
