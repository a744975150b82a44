// Embedding a real spanwork Worker: run a small graph of JavaScript functions, acting as a
// tiny scheduler ourselves, then print where the time went.
//
//   npx tsx examples/embed-real-worker.ts
import { ComputeTaskEvent, type SendMessageToScheduler } from "../src/state/index.js";
import { RealClock, Worker, taskRef, type RealRunSpec } from "../src/worker/index.js";

const ADDRESS = "127.0.0.1:8786";

// The graph: key → what to run and which keys it reads.
const graph: Record<string, { run: RealRunSpec; deps: string[] }> = {
  "numbers-1": { run: () => Array.from({ length: 200_000 }, (_, i) => i), deps: [] },
  "squares-1": { run: { fn: (xs: number[]) => xs.map((x) => x * x), args: [taskRef("numbers-1")] }, deps: ["numbers-1"] },
  "evens-1": { run: { fn: (xs: number[]) => xs.filter((x) => x % 2 === 0), args: [taskRef("numbers-1")] }, deps: ["numbers-1"] },
  // an async task (e.g. I/O): no CPU split, its own time is thread-noncpu
  "fetch-1": {
    run: async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return "remote payload";
    },
    deps: [],
  },
  "total-1": {
    run: {
      fn: (squares: number[], evens: number[], payload: string) =>
        squares.reduce((a, b) => a + b, 0) + evens.length + payload.length,
      args: [taskRef("squares-1"), taskRef("evens-1"), taskRef("fetch-1")],
    },
    deps: ["squares-1", "evens-1", "fetch-1"],
  },
};

const finished = new Set<string>();
const submitted = new Set<string>();
let failed: string | undefined;

const worker = new Worker({
  address: ADDRESS,
  nthreads: 2,
  clock: new RealClock(),
  memoryLimit: 8e6, // spill beyond 4.8 MB (target = 60 %)
  send: (message: SendMessageToScheduler) => {
    if (message.kind === "TaskFinishedMsg") {
      finished.add(message.key);
      submitReady();
    } else if (message.kind === "TaskErredMsg") {
      failed = `${message.key}: ${message.exceptionText}`;
    }
  },
});

function submitReady(): void {
  let priority = 0;
  for (const [key, { run, deps }] of Object.entries(graph)) {
    if (submitted.has(key) || !deps.every((dep) => finished.has(dep))) continue;
    submitted.add(key);
    const whoHas = Object.fromEntries(deps.map((dep) => [dep, [ADDRESS]]));
    const nbytes = Object.fromEntries(deps.map((dep) => [dep, worker.state.tasks.get(dep)?.nbytes ?? 0]));
    // the worker calls `send` synchronously: feed the next tasks on a later turn
    queueMicrotask(() =>
      worker.handleStimulus(
        ComputeTaskEvent({ key, stimulusId: `compute-${key}`, runSpec: run, whoHas, nbytes, priority: [priority++] }),
      ),
    );
  }
}

submitReady();
// idle() waits for the stimuli fed on microtasks in answer to TaskFinishedMsg, so the whole graph is done
await worker.idle();
if (failed !== undefined) throw new Error(`task failed: ${failed}`);

console.log(`total-1 = ${String(worker.data.get("total-1"))}\n`);
console.log("fine metrics (context / prefix / activity / unit, outcome):");
for (const entry of worker.scrape().sort((a, b) => a.name.join("/").localeCompare(b.name.join("/")))) {
  const value = entry.name.at(-1) === "seconds" ? `${(entry.value * 1000).toFixed(3)} ms` : String(entry.value);
  console.log(`  ${entry.name.join(" / ").padEnd(48)} ${entry.outcome.padEnd(9)} ${value}`);
}
console.log("\nPrometheus (excerpt):");
console.log(
  worker
    .prometheus()
    .split("\n")
    .filter((line) => line.startsWith("spanwork_worker_") || line.includes('prefix="total"'))
    .join("\n"),
);
await worker.close();
worker.spillBuffer?.close();
