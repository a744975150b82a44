// Property test: a small scheduler + worker-shell model drives a WorkerState with random
// but plausible stimuli, answering every Execute / GatherDep / RetryBusyWorkerLater it
// emits, and checks `validateState()` and the "one coroutine per key" rule after each one.
// At the end it lets every outstanding coroutine succeed and checks that the worker goes idle.
//
// Plausibility rules (what a real scheduler and shell would never do, so neither do we):
// - done events only for outstanding Execute/GatherDep/RetryBusyWorkerLater instructions,
//   secede at most once per execution;
// - task keys `t*` are computed here and are never dependencies; data keys `d*` are only
//   ever fetched or scattered; the scheduler frees `t*` keys, and drops replicas of `d*`
//   keys only when no task on this worker still needs them (AMM; reference §18.17);
// - a gather fails with a non-network error only when no waiting task depends on its keys
//   (otherwise the dependents would wait forever, reference §18.2 / dask #6705);
// - scatter only to fresh keys or data keys that are released/fetch/missing/memory
//   (scatter onto flight/executing tasks is racy, reference §18.5/§18.6).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  CancelComputeEvent,
  ComputeTaskEvent,
  ExecuteFailureEvent,
  ExecuteSuccessEvent,
  FindMissingEvent,
  FreeKeysEvent,
  GatherDepBusyEvent,
  GatherDepFailureEvent,
  GatherDepNetworkFailureEvent,
  GatherDepSuccessEvent,
  PauseEvent,
  RefreshWhoHasEvent,
  RemoveReplicasEvent,
  RemoveWorkerEvent,
  RescheduleEvent,
  RetryBusyWorkerEvent,
  SecedeEvent,
  StealRequestEvent,
  UnpauseEvent,
  UpdateDataEvent,
  type Instruction,
} from "../../src/state/index.js";
import { LOCAL_ADDRESS, formatInstruction, freshWorkerState, type StateEvent } from "../../src/testing/index.js";

const PEERS = ["127.0.0.1:2", "127.0.0.1:3", "10.0.0.9:1"];
const TASK_KEYS = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
const DATA_KEYS = ["d0", "d1", "d2", "d3", "d4", "d5"];
const SIZES = [1, 100, 4e6, 12e6, 30e6];

/** One random step: which action, plus raw numbers the action turns into choices. */
interface Step {
  action: number;
  a: number;
  b: number;
  c: number;
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  action: fc.nat({ max: 99 }),
  a: fc.nat({ max: 1_000 }),
  b: fc.nat({ max: 1_000 }),
  c: fc.nat({ max: 1_000 }),
});

interface PendingExecute {
  key: string;
  runId: number;
  seceded: boolean;
}

interface PendingGather {
  worker: string;
  keys: readonly string[];
  totalNbytes: number;
}

class ScenarioViolation extends Error {}

/** Transitions ("start->finish") seen by any scenario: proves the generator reaches them. */
const seenTransitions = new Set<string>();

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

function subset<T>(items: readonly T[], n: number, max: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < items.length && out.length < max; i++) {
    if ((n >> i) & 1) out.push(items[i]!);
  }
  return out.length > 0 ? out : [items[n % items.length]!];
}

function runScenario(steps: readonly Step[]): void {
  const ws = freshWorkerState({
    nthreads: 2,
    resources: { R: 1 },
    transferIncomingCountLimit: 2,
    transferIncomingBytesLimit: 50e6,
    transferMessageBytesLimit: 20e6,
  });
  const executes = new Map<string, PendingExecute>();
  const gathers = new Map<string, PendingGather>();
  const retries = new Set<string>();
  const trace: string[] = [];
  let sequence = 0;
  let runId = 0;
  let scattered = 0;

  const send = (event: StateEvent): void => {
    trace.push(describeEvent(event));
    let instructions: Instruction[];
    try {
      instructions = ws.handleStimulus(event);
      ws.validateState();
    } catch (error) {
      throw new ScenarioViolation(`${(error as Error).message}\n\nevents:\n${trace.join("\n")}`, { cause: error });
    }
    for (const instruction of instructions) {
      trace.push(`    → ${formatInstruction(instruction)}`);
      const fail = (why: string): never => {
        throw new ScenarioViolation(`${why}: ${formatInstruction(instruction)}\n\nevents:\n${trace.join("\n")}`);
      };
      if (instruction.stimulusId !== event.stimulusId) fail("instruction carries another stimulus id");
      switch (instruction.kind) {
        case "Execute": {
          if (executes.has(instruction.key)) fail("a second Execute for a key whose execution is outstanding");
          executes.set(instruction.key, { key: instruction.key, runId: ws.tasks.get(instruction.key)!.runId, seceded: false });
          break;
        }
        case "GatherDep": {
          if (instruction.worker === LOCAL_ADDRESS) fail("gather from ourselves");
          if (gathers.has(instruction.worker)) fail("a second GatherDep to a peer with one outstanding");
          for (const other of gathers.values()) {
            if (instruction.toGather.some((k) => other.keys.includes(k))) fail("a key gathered twice at once");
          }
          gathers.set(instruction.worker, { worker: instruction.worker, keys: instruction.toGather, totalNbytes: instruction.totalNbytes });
          break;
        }
        case "RetryBusyWorkerLater":
          retries.add(instruction.worker);
          break;
        default:
          break;
      }
    }
    for (const entry of ws.story(event.stimulusId)) {
      if (entry.length === 7 && typeof entry[1] === "string" && typeof entry[2] === "string") {
        seenTransitions.add(`${entry[1]}->${entry[2]}`);
      }
    }
    if (ws.executingCount > ws.nthreads) {
      throw new ScenarioViolation(`executingCount ${ws.executingCount} > nthreads\n\nevents:\n${trace.join("\n")}`);
    }
  };
  const sid = (label: string) => `${label}-${++sequence}`;
  const holders = (n: number): string[] => subset(PEERS, n, 2);
  const stateOf = (key: string) => ws.tasks.get(key)?.state;

  for (const { action, a, b, c } of steps) {
    if (action < 16) {
      const key = pick(TASK_KEYS, a)!;
      const deps = c % 4 === 0 ? [] : subset(DATA_KEYS, b, 3);
      const whoHas: Record<string, string[]> = {};
      const nbytes: Record<string, number> = {};
      deps.forEach((dep, i) => {
        whoHas[dep] = holders(b + i * 7 + c);
        nbytes[dep] = SIZES[(c + i) % SIZES.length]!;
      });
      send(
        ComputeTaskEvent({
          key,
          runId: ++runId,
          priority: [c % 3],
          whoHas,
          nbytes,
          resourceRestrictions: c % 5 === 0 ? { R: 1 } : {},
          stimulusId: sid("compute"),
        }),
      );
    } else if (action < 34) {
      const pending = pick([...executes.values()], a);
      if (!pending) continue;
      const outcome = b % 10;
      if (outcome < 2 && !pending.seceded) {
        pending.seceded = true;
        send(SecedeEvent({ key: pending.key, computeDuration: 1, stimulusId: sid("secede") }));
        continue;
      }
      executes.delete(pending.key);
      if (outcome < 7) {
        send(ExecuteSuccessEvent({ key: pending.key, runId: pending.runId, value: `v-${pending.key}`, nbytes: SIZES[c % 3]!, stimulusId: sid("done") }));
      } else if (outcome < 9) {
        send(ExecuteFailureEvent({ key: pending.key, runId: pending.runId, exceptionText: "boom", stimulusId: sid("fail") }));
      } else {
        send(RescheduleEvent({ key: pending.key, stimulusId: sid("reschedule") }));
      }
    } else if (action < 52) {
      const pending = pick([...gathers.values()], a);
      if (!pending) continue;
      gathers.delete(pending.worker);
      const outcome = b % 10;
      const base = { worker: pending.worker, totalNbytes: pending.totalNbytes };
      if (outcome < 5) {
        const data: Record<string, unknown> = {};
        for (const key of pending.keys) data[key] = `v-${key}`;
        send(GatherDepSuccessEvent({ ...base, data, stimulusId: sid("gathered") }));
      } else if (outcome < 6) {
        const data: Record<string, unknown> = {};
        pending.keys.forEach((key, i) => {
          if ((c >> i) & 1) data[key] = `v-${key}`;
        });
        send(GatherDepSuccessEvent({ ...base, data, stimulusId: sid("partial") }));
      } else if (outcome < 8) {
        send(GatherDepBusyEvent({ ...base, stimulusId: sid("busy") }));
      } else if (outcome < 9 || hasWaitingDependent(ws, pending.keys)) {
        send(GatherDepNetworkFailureEvent({ ...base, stimulusId: sid("network") }));
      } else {
        send(GatherDepFailureEvent({ ...base, exceptionText: "cannot deserialize", stimulusId: sid("gather-fail") }));
      }
    } else if (action < 57) {
      const worker = pick([...retries], a);
      if (worker === undefined) continue;
      retries.delete(worker);
      send(RetryBusyWorkerEvent({ worker, stimulusId: sid("retry") }));
    } else if (action < 64) {
      const keys = c % 2 === 0 ? [pick(TASK_KEYS, b)!] : subset(DATA_KEYS, b, 2);
      const whoHas: Record<string, string[]> = {};
      const nbytes: Record<string, number> = {};
      keys.forEach((key, i) => {
        whoHas[key] = holders(a + i);
        nbytes[key] = SIZES[(c + i) % SIZES.length]!;
      });
      send(AcquireReplicasEvent({ whoHas, nbytes, stimulusId: sid("acquire") }));
    } else if (action < 69) {
      const keys = subset(DATA_KEYS, b, 3);
      const whoHas: Record<string, string[]> = {};
      keys.forEach((key, i) => {
        const choice = (c + i) % 4;
        whoHas[key] = choice === 0 ? [] : choice === 1 ? [LOCAL_ADDRESS, pick(PEERS, a)!] : holders(a + i);
      });
      send(RefreshWhoHasEvent({ whoHas, stimulusId: sid("refresh") }));
    } else if (action < 76) {
      send(FreeKeysEvent({ keys: subset(TASK_KEYS, b, 2), stimulusId: sid("free") }));
    } else if (action < 79) {
      // the scheduler only drops replicas no task on this worker still needs
      const removable = DATA_KEYS.filter(
        (key) =>
          stateOf(key) === "memory" &&
          [...ws.tasks.get(key)!.dependents].every((dep) => ["memory", "error", "released"].includes(dep.state)),
      );
      if (removable.length === 0) continue;
      send(RemoveReplicasEvent({ keys: subset(removable, b, 2), stimulusId: sid("remove-replicas") }));
    } else if (action < 82) {
      send(StealRequestEvent({ key: pick(TASK_KEYS, a)!, stimulusId: sid("steal") }));
    } else if (action < 85) {
      send(CancelComputeEvent({ key: pick(TASK_KEYS, a)!, stimulusId: sid("cancel") }));
    } else if (action < 89) {
      send(b % 2 === 0 ? PauseEvent({ stimulusId: sid("pause") }) : UnpauseEvent({ stimulusId: sid("unpause") }));
    } else if (action < 93) {
      const candidates = DATA_KEYS.filter((key) => [undefined, "released", "fetch", "missing", "memory"].includes(stateOf(key)));
      const key = b % 2 === 0 ? `s${++scattered}` : pick(candidates, a);
      if (key === undefined) continue;
      send(UpdateDataEvent({ data: { [key]: `scattered-${key}` }, stimulusId: sid("scatter") }));
    } else if (action < 96) {
      send(RemoveWorkerEvent({ worker: pick(PEERS, a)!, stimulusId: sid("remove-worker") }));
    } else {
      send(FindMissingEvent({ stimulusId: sid("find-missing") }));
    }
  }

  // Liveness: let every outstanding coroutine succeed until nothing is pending. The worker
  // must then be idle: nothing running, in flight, queued or half-cancelled; a task may
  // only still wait for a dependency that is missing or erred (dask #6705).
  send(UnpauseEvent({ stimulusId: sid("drain-unpause") }));
  for (let round = 0; executes.size + gathers.size + retries.size > 0; round++) {
    if (round > 200) throw new ScenarioViolation(`no quiescence after 200 drain rounds\n\nevents:\n${trace.join("\n")}`);
    for (const pending of [...executes.values()]) {
      executes.delete(pending.key);
      send(ExecuteSuccessEvent({ key: pending.key, runId: pending.runId, value: 1, stimulusId: sid("drain-done") }));
    }
    for (const pending of [...gathers.values()]) {
      gathers.delete(pending.worker);
      const data: Record<string, unknown> = {};
      for (const key of pending.keys) data[key] = 1;
      send(GatherDepSuccessEvent({ worker: pending.worker, totalNbytes: pending.totalNbytes, data, stimulusId: sid("drain-gathered") }));
    }
    for (const worker of [...retries]) {
      retries.delete(worker);
      send(RetryBusyWorkerEvent({ worker, stimulusId: sid("drain-retry") }));
    }
  }
  const stuck = [...ws.tasks.values()].filter((ts) => {
    if (ts.state === "waiting") {
      return ![...ts.waitingForData].some((dep) => dep.state === "missing" || dep.state === "error");
    }
    return !["memory", "error", "missing", "released"].includes(ts.state);
  });
  if (stuck.length > 0) {
    throw new ScenarioViolation(`not quiescent: ${stuck.map(String).join(", ")}\n\nevents:\n${trace.join("\n")}`);
  }
}

function hasWaitingDependent(ws: ReturnType<typeof freshWorkerState>, keys: readonly string[]): boolean {
  return keys.some((key) => {
    const ts = ws.tasks.get(key);
    return ts !== undefined && [...ts.dependents].some((dep) => dep.waitingForData.has(ts));
  });
}

function describeEvent(event: StateEvent): string {
  return formatInstruction(event);
}

// Reached for every seed tried (1–16); rarer corners are pinned by the unit tests.
const MUST_SEE = [
  "cancelled->fetch", "cancelled->long-running", "cancelled->memory", "cancelled->waiting", "executing->fetch",
  "executing->long-running", "executing->rescheduled", "fetch->missing", "flight->missing", "flight->waiting",
  "missing->fetch", "missing->waiting", "resumed->memory", "resumed->released", "waiting->constrained", "error->waiting",
];

const SEED = Number(process.env.SPANWORK_PROPERTY_SEED ?? 20_260_712);

describe("WorkerState under random plausible stimuli", () => {
  it("stays valid and never runs two coroutines for one key", () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { minLength: 20, maxLength: 60 }), (steps) => {
        runScenario(steps);
      }),
      { numRuns: 200, seed: SEED },
    );
    // the generator must keep reaching the interesting corners, or the property is vacuous
    for (const transition of MUST_SEE) expect(seenTransitions, transition).toContain(transition);
  });

  it("replays a fixed scenario: compute with remote inputs, busy peer, cancel, steal, drain", () => {
    // action ranges: <16 compute, <34 execute answer, <52 gather answer, <57 retry busy,
    // <64 acquire, <69 refresh, <76 free, <79 remove replicas, <82 steal, <85 cancel, …
    expect(() =>
      runScenario([
        { action: 0, a: 0, b: 3, c: 1 },
        { action: 1, a: 1, b: 5, c: 2 },
        { action: 40, a: 0, b: 6, c: 0 },
        { action: 20, a: 0, b: 5, c: 0 },
        { action: 70, a: 0, b: 1, c: 0 },
        { action: 80, a: 1, b: 0, c: 0 },
        { action: 53, a: 0, b: 0, c: 0 },
        { action: 40, a: 0, b: 0, c: 0 },
      ]),
    ).not.toThrow();
  });
});
