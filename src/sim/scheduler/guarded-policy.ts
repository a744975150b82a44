// Every call the core makes into a policy, checked: an answer that is not a running worker,
// QUEUE or NO_WORKER, an offered task that is not queued, or a throw becomes a PolicyError
// naming the policy, the call and the task — recorded at once, so a policy that catches it
// does not get to carry on.
import type { TaskGraph } from "../graph.js";
import type { ClusterState } from "./cluster.js";
import { PolicyError, describeAnswer } from "./policy-error.js";
import { NO_WORKER, QUEUE, type DecisionOrigin, type ProcessingExit, type QueueView, type SchedulerPolicy, type StealOutcome, type Stimulus, type WorkerStatus } from "./policy.js";

/** Built only when a decision fails: a string per decision would cost on every task. */
function decideCall(graph: TaskGraph, task: number, origin: DecisionOrigin): string {
  return `decideWorker(task "${graph.keys[task]}", "${origin}")`;
}

export class GuardedPolicy {
  /** The first failure; once set the core does nothing more. */
  failure: PolicyError | null = null;

  constructor(
    readonly name: string,
    private readonly policy: SchedulerPolicy,
    private readonly graph: TaskGraph,
    private readonly cluster: ClusterState,
  ) {
    if (typeof policy !== "object" || policy === null || typeof policy.decideWorker !== "function") {
      throw new PolicyError(name, "creating the policy", "its factory must return an object with a decideWorker(task, origin) method");
    }
  }

  /** Seconds between balance() calls, or null when the policy does not balance. */
  get balanceInterval(): number | null {
    return this.policy.balance === undefined ? null : (this.policy.balanceInterval ?? 0.1);
  }

  /** Seconds between ReduceReplicas rounds, or null when the policy's scheduler has no active memory manager. */
  get reduceReplicasInterval(): number | null {
    const interval = this.policy.reduceReplicasInterval;
    if (interval === undefined) return null;
    if (typeof interval !== "number" || !(interval > 0)) this.fail("reduceReplicasInterval", `${String(interval)} is not a number of seconds > 0`);
    return Number.isFinite(interval) ? interval : null;
  }

  decideWorker(task: number, origin: DecisionOrigin): number {
    let worker: number;
    try {
      worker = this.policy.decideWorker(task, origin);
    } catch (error) {
      this.fail(decideCall(this.graph, task, origin), error);
    }
    if (worker === QUEUE || worker === NO_WORKER) return worker;
    const workers = this.cluster.workers;
    if (!Number.isInteger(worker) || worker < 0 || worker >= workers.length || workers[worker]!.status !== "running") {
      this.fail(decideCall(this.graph, task, origin), describeAnswer(worker, workers));
    }
    return worker;
  }

  /** Hands each queued task the policy offers after `stimulus` to `place`. */
  releaseQueued(stimulus: Stimulus, queue: QueueView & { has(task: number): boolean }, place: (task: number) => void): void {
    const release = this.policy.releaseQueued;
    if (release === undefined) return;
    try {
      const offered = release.call(this.policy, stimulus, queue);
      // Arrays (what built-in policies return) without an iterator object per call.
      if (Array.isArray(offered)) {
        for (let i = 0; i < offered.length; i++) this.offer(stimulus, offered[i], queue, place);
      } else {
        for (const task of offered) this.offer(stimulus, task, queue, place);
      }
    } catch (error) {
      if (error instanceof PolicyError) throw error;
      this.fail(`releaseQueued("${stimulus}")`, error);
    }
  }

  private offer(stimulus: Stimulus, task: unknown, queue: { has(task: number): boolean }, place: (task: number) => void): void {
    if (typeof task !== "number" || !Number.isInteger(task) || !queue.has(task)) {
      const what = typeof task === "number" && task >= 0 && task < this.graph.size ? `task "${this.graph.keys[task]}", which is not queued` : `${String(task)}, which is not a task id`;
      this.fail(`releaseQueued("${stimulus}")`, `it offered ${what}`);
    }
    place(task);
  }

  balance(): void {
    try {
      this.policy.balance?.();
    } catch (error) {
      if (error instanceof PolicyError) throw error;
      this.fail(`balance() at t=${this.cluster.now}`, error);
    }
  }

  // One method per hook rather than a generic wrapper: they run for every task, and a closure
  // per call would allocate.
  onProcessing(task: number, worker: number): void {
    if (this.policy.onProcessing === undefined) return;
    try {
      this.policy.onProcessing(task, worker);
    } catch (error) {
      this.fail(`onProcessing(task "${this.graph.keys[task]}", ${worker})`, error);
    }
  }

  onLeftProcessing(task: number, worker: number, exit: ProcessingExit): void {
    if (this.policy.onLeftProcessing === undefined) return;
    try {
      this.policy.onLeftProcessing(task, worker, exit);
    } catch (error) {
      this.fail(`onLeftProcessing(task "${this.graph.keys[task]}", ${worker}, "${exit}")`, error);
    }
  }

  onLongRunning(task: number, worker: number): void {
    if (this.policy.onLongRunning === undefined) return;
    try {
      this.policy.onLongRunning(task, worker);
    } catch (error) {
      this.fail(`onLongRunning(task "${this.graph.keys[task]}", ${worker})`, error);
    }
  }

  onWorkerStatus(worker: number, status: WorkerStatus): void {
    if (this.policy.onWorkerStatus === undefined) return;
    try {
      this.policy.onWorkerStatus(worker, status);
    } catch (error) {
      this.fail(`onWorkerStatus(${worker}, "${status}")`, error);
    }
  }

  onStealEnded(task: number, victim: number, thief: number, outcome: StealOutcome): void {
    if (this.policy.onStealEnded === undefined) return;
    try {
      this.policy.onStealEnded(task, victim, thief, outcome);
    } catch (error) {
      this.fail(`onStealEnded(task "${this.graph.keys[task]}", ${victim}, ${thief}, "${outcome}")`, error);
    }
  }

  /** Records and throws the failure of `call` (with `for task "KEY"` when given). */
  fail(call: string, cause: unknown, task?: number): never {
    const where = task === undefined ? call : `${call} for task "${this.graph.keys[task]}"`;
    const error = new PolicyError(this.name, where, cause);
    this.failure ??= error;
    throw error;
  }
}
