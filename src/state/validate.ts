// Invariants of the worker state (dask's `validate_task`, `validate_state`). Each check
// throws InvalidTaskState naming the task, its state and the broken invariant.
import type { StateCore } from "./core.js";
import { InvalidTaskState } from "./errors.js";
import { WAITING_FOR_DATA } from "./task-states.js";
import { ownValue } from "./records.js";
import { linkCount, linkHas, linksToArray, type Links } from "./links.js";
import type { TaskState } from "./task-state.js";

function isEmpty<T>(links: Links<T>): boolean {
  return linkCount(links) === 0;
}

function check(core: StateCore, ts: TaskState, condition: boolean, invariant: string): void {
  if (!condition) throw new InvalidTaskState(ts.key, ts.toString(), core.story([ts.key]), invariant);
}

function inData(core: StateCore, ts: TaskState): boolean {
  return core.data.has(ts.key) || core.actors.has(ts.key);
}

function noDependentReady(core: StateCore, ts: TaskState): void {
  for (const dependent of linksToArray(ts._dependents)) {
    check(core, ts, !core.ready.has(dependent) && !core.constrained.has(dependent), `dependent ${dependent.key} is ready`);
  }
}

function validateMemory(core: StateCore, ts: TaskState): void {
  check(core, ts, inData(core, ts), "memory task not in data");
  check(core, ts, typeof ts.nbytes === "number" && Number.isFinite(ts.nbytes), "memory task without nbytes");
  check(core, ts, isEmpty(ts._waitingForData), "memory task waiting for data");
}

function validateWaiting(core: StateCore, ts: TaskState): void {
  check(core, ts, !inData(core, ts), "waiting task in data");
  check(core, ts, !ts.done, "waiting task done");
  check(core, ts, core.waiting.has(ts), "waiting task not in `waiting`");
  check(core, ts, !isEmpty(ts._waitingForData), "waiting task with empty waitingForData");
  const notInMemory = new Set<TaskState>();
  for (const dep of linksToArray(ts._dependencies)) if (!inData(core, dep)) notInMemory.add(dep);
  const waitingForData = linksToArray(ts._waitingForData);
  check(
    core,
    ts,
    notInMemory.size === waitingForData.length && waitingForData.every((d) => notInMemory.has(d)),
    "waitingForData differs from the dependencies not in memory",
  );
  noDependentReady(core, ts);
}

function validateMissing(core: StateCore, ts: TaskState): void {
  check(core, ts, !inData(core, ts), "missing task in data");
  check(core, ts, isEmpty(ts._whoHas), "missing task with holders");
  check(core, ts, !ts.done, "missing task done");
  for (const keys of core.hasWhat.values()) check(core, ts, !keys.has(ts.key), "missing task listed in hasWhat");
  check(core, ts, core.missingDepFlight.has(ts), "missing task not in missingDepFlight");
  noDependentReady(core, ts);
}

function validateReady(core: StateCore, ts: TaskState): void {
  const restricted = Object.keys(ts.resourceRestrictions).length > 0;
  if (ts.state === "ready") {
    check(core, ts, !restricted, "ready task with resource restrictions");
    check(core, ts, core.ready.has(ts), "ready task not in the ready heap");
    check(core, ts, !core.constrained.has(ts), "ready task in the constrained heap");
  } else {
    check(core, ts, restricted, "constrained task without resource restrictions");
    check(core, ts, core.constrained.has(ts), "constrained task not in the constrained heap");
    check(core, ts, !core.ready.has(ts), "constrained task in the ready heap");
  }
  check(core, ts, !inData(core, ts), "ready task in data");
  check(core, ts, !ts.done, "ready task done");
  check(core, ts, isEmpty(ts._waitingForData), "ready task waiting for data");
  for (const dep of linksToArray(ts._dependencies)) check(core, ts, inData(core, dep), `dependency ${dep.key} not in memory`);
}

function validateExecuting(core: StateCore, ts: TaskState, as: string): void {
  if (as === "executing") {
    check(core, ts, core.executing.has(ts) && !core.longRunning.has(ts), "executing task not (only) in `executing`");
  } else {
    check(core, ts, core.longRunning.has(ts) && !core.executing.has(ts), "long-running task not (only) in `longRunning`");
  }
  check(core, ts, ts.runSpec !== null && ts.runSpec !== undefined, "running task without runSpec");
  check(core, ts, !core.data.has(ts.key), "running task in data");
  check(core, ts, isEmpty(ts._waitingForData), "running task waiting for data");
  noDependentReady(core, ts);
}

function validateFlight(core: StateCore, ts: TaskState): void {
  check(core, ts, !inData(core, ts), "flight task in data");
  check(core, ts, core.inFlightTasks.has(ts), "flight task not in inFlightTasks");
  check(core, ts, ts.comingFrom !== null, "flight task without comingFrom");
  const keys = ts.comingFrom === null ? undefined : core.inFlightWorkers.get(ts.comingFrom);
  check(core, ts, keys !== undefined && keys.has(ts.key), "flight task not listed in inFlightWorkers[comingFrom]");
  noDependentReady(core, ts);
}

function validateFetch(core: StateCore, ts: TaskState): void {
  check(core, ts, !inData(core, ts), "fetch task in data");
  check(core, ts, !ts.done, "fetch task done");
  check(core, ts, !isEmpty(ts._whoHas), "fetch task without holders");
  for (const worker of linksToArray(ts._whoHas)) {
    check(core, ts, worker !== core.address, "fetch task held by ourselves");
    check(core, ts, core.hasWhat.get(worker)?.has(ts.key) ?? false, `fetch task not in hasWhat[${worker}]`);
    check(core, ts, core.dataNeeded.get(worker)?.has(ts) ?? false, `fetch task not in dataNeeded[${worker}]`);
  }
  noDependentReady(core, ts);
}

function validateReleased(core: StateCore, ts: TaskState): void {
  check(core, ts, !inData(core, ts), "released task in data");
  check(core, ts, ts.previous === null && ts.next === null, "released task with previous/next");
  for (const heap of core.dataNeeded.values()) check(core, ts, !heap.has(ts), "released task in dataNeeded");
  check(core, ts, !core.ready.has(ts) && !core.constrained.has(ts), "released task queued to run");
  check(core, ts, !core.executing.has(ts) && !core.longRunning.has(ts), "released task running");
  check(core, ts, !core.inFlightTasks.has(ts), "released task in flight");
  check(core, ts, !core.missingDepFlight.has(ts), "released task in missingDepFlight");
  check(core, ts, isEmpty(ts._waitingForData), "released task waiting for data");
  check(core, ts, !ts.done, "released task done");
  check(core, ts, ts.exception === null && ts.traceback === null, "released task with an exception");
}

/** Per-task checks (run on every touched task after each stimulus when validating). */
export function validateTask(core: StateCore, ts: TaskState): void {
  switch (ts.state) {
    case "memory":
      return validateMemory(core, ts);
    case "waiting":
      return validateWaiting(core, ts);
    case "missing":
      return validateMissing(core, ts);
    case "ready":
    case "constrained":
      return validateReady(core, ts);
    case "executing":
    case "long-running":
      return validateExecuting(core, ts, ts.state);
    case "flight":
      return validateFlight(core, ts);
    case "fetch":
      return validateFetch(core, ts);
    case "released":
      return validateReleased(core, ts);
    case "cancelled":
      check(core, ts, ts.next === null, "cancelled task with next");
      return validateOutstanding(core, ts);
    case "resumed":
      check(
        core,
        ts,
        ts.previous === "flight" ? ts.next === "waiting" : ts.next === "fetch",
        `resumed(${ts.previous}) with next ${ts.next}`,
      );
      return validateOutstanding(core, ts);
    default:
      return; // error, forgotten: nothing to check
  }
}

function validateOutstanding(core: StateCore, ts: TaskState): void {
  if (ts.previous === "executing" || ts.previous === "long-running") {
    validateExecuting(core, ts, ts.previous);
  } else if (ts.previous === "flight") {
    validateFlight(core, ts);
  } else {
    check(core, ts, false, `previous must be executing, long-running or flight, not ${ts.previous}`);
  }
}

function fail(message: string): never {
  throw new Error(`invalid worker state: ${message}`);
}

/** Expected membership of the state collections, from the task states. */
function membershipChecks(core: StateCore): void {
  const runsAs = (ts: TaskState, as: string): boolean =>
    ts.state === as || ((ts.state === "cancelled" || ts.state === "resumed") && ts.previous === as);
  const checkSet = (name: string, members: Iterable<TaskState>, belongs: (ts: TaskState) => boolean): void => {
    for (const ts of members) {
      if (core.tasks.get(ts.key) !== ts) fail(`${name} holds ${ts.toString()}, which is not registered (stale object)`);
      if (!belongs(ts)) fail(`${name} holds ${ts.toString()}`);
    }
  };
  checkSet("missingDepFlight", core.missingDepFlight, (ts) => ts.state === "missing");
  checkSet("ready", core.ready, (ts) => ts.state === "ready");
  checkSet("constrained", core.constrained, (ts) => ts.state === "constrained");
  checkSet("executing", core.executing, (ts) => runsAs(ts, "executing"));
  checkSet("longRunning", core.longRunning, (ts) => runsAs(ts, "long-running"));
  checkSet("inFlightTasks", core.inFlightTasks, (ts) => runsAs(ts, "flight"));
  checkSet("waiting", core.waiting, (ts) => ts.state === "waiting");
  for (const ts of core.tasks.values()) {
    const expect = (name: string, has: boolean, should: boolean): void => {
      if (has !== should) fail(`${ts.toString()} ${should ? "missing from" : "unexpectedly in"} ${name}`);
    };
    expect("missingDepFlight", core.missingDepFlight.has(ts), ts.state === "missing");
    expect("waiting", core.waiting.has(ts), ts.state === "waiting");
    expect("longRunning", core.longRunning.has(ts), runsAs(ts, "long-running"));
    expect("inFlightTasks", core.inFlightTasks.has(ts), runsAs(ts, "flight"));
    if (runsAs(ts, "executing")) expect("executing", core.executing.has(ts), true);
  }
}

/** Every invariant of the whole state (dask's `validate_state`). */
export function validateState(core: StateCore): void {
  // who_has / has_what mirror each other and never name ourselves
  for (const [worker, keys] of core.hasWhat) {
    if (worker === core.address) fail(`hasWhat lists our own address ${worker}`);
    for (const key of keys) {
      const ts = core.tasks.get(key);
      if (ts === undefined) fail(`hasWhat[${worker}] lists unknown key ${JSON.stringify(key)}`);
      if (!linkHas(ts._whoHas, worker)) fail(`hasWhat[${worker}] lists ${ts.toString()} whose whoHas lacks it`);
    }
  }
  let fetchTasks = 0;
  for (const ts of core.tasks.values()) {
    if (ts.key === undefined || core.tasks.get(ts.key) !== ts) fail(`tasks maps a key to another task`);
    for (const worker of linksToArray(ts._whoHas)) {
      if (worker === core.address) fail(`${ts.toString()} whoHas lists our own address`);
      if (!(core.hasWhat.get(worker)?.has(ts.key) ?? false)) fail(`${ts.toString()} whoHas ${worker} not mirrored in hasWhat`);
    }
    for (const dep of linksToArray(ts._dependencies)) {
      if (core.tasks.get(dep.key) !== dep) fail(`${ts.toString()} depends on unregistered ${dep.toString()}`);
      if (!linkHas(dep._dependents, ts)) fail(`${dep.toString()} does not list dependent ${ts.toString()}`);
    }
    for (const dependent of linksToArray(ts._dependents)) {
      if (core.tasks.get(dependent.key) !== dependent) fail(`${ts.toString()} has unregistered dependent ${dependent.toString()}`);
      if (!linkHas(dependent._dependencies, ts)) fail(`${dependent.toString()} does not list dependency ${ts.toString()}`);
    }
    for (const dep of linksToArray(ts._waitingForData)) {
      if (core.tasks.get(dep.key) !== dep) fail(`${ts.toString()} waits for unregistered ${dep.toString()}`);
      if (!WAITING_FOR_DATA.has(dep.state)) fail(`${ts.toString()} waits for ${dep.toString()}`);
    }
    if (ts.state === "fetch") fetchTasks++;
    validateTask(core, ts);
  }
  const fetchMembers = new Set<TaskState>();
  for (const [worker, heap] of core.dataNeeded) {
    if (heap.size === 0) fail(`dataNeeded[${worker}] is an empty heap`);
    for (const ts of heap) {
      if (core.tasks.get(ts.key) !== ts) fail(`dataNeeded[${worker}] holds stale ${ts.toString()}`);
      if (ts.state !== "fetch") fail(`dataNeeded[${worker}] holds ${ts.toString()}`);
      if (!linkHas(ts._whoHas, worker)) fail(`dataNeeded[${worker}] holds ${ts.toString()} whose whoHas lacks it`);
      fetchMembers.add(ts);
    }
  }
  if (fetchMembers.size !== core.fetchCount) fail(`fetchCount ${core.fetchCount} but ${fetchMembers.size} tasks in dataNeeded`);
  let idleQueued = 0;
  for (const worker of core.dataNeeded.keys()) if (core.isFree(worker)) idleQueued++;
  if (idleQueued !== core.idleQueuedPeers) fail(`idleQueuedPeers is ${core.idleQueuedPeers} but ${idleQueued} queued peers are neither in flight nor busy`);
  // A task's queue slot names ready, constrained or a live dataNeeded heap, or nothing (for
  // those queues the slot is the membership): a slot left pointing at a dropped heap would
  // make `ready.add` refuse the task.
  const queues = new Set<object>([core.ready, core.constrained, ...core.dataNeeded.values()]);
  for (const ts of core.tasks.values()) {
    if (ts._queue !== null && !queues.has(ts._queue)) fail(`${ts.toString()} has a queue slot for a queue that does not hold it`);
  }
  if (fetchTasks !== core.fetchCount) fail(`fetchCount ${core.fetchCount} but ${fetchTasks} tasks in state fetch`);
  membershipChecks(core);

  let nbytes = 0;
  for (const key of core.data.keys()) {
    const ts = core.tasks.get(key);
    if (ts === undefined) fail(`data holds unknown key ${JSON.stringify(key)}`);
    nbytes += ts.nbytes ?? 0;
  }
  for (const key of core.actors.keys()) {
    const ts = core.tasks.get(key);
    if (ts === undefined) fail(`actors holds unknown key ${JSON.stringify(key)}`);
    if (ts.state === "memory") nbytes += ts.nbytes ?? 0;
  }
  if (Math.abs(nbytes - core.nbytes) > 1e-9) fail(`nbytes is ${core.nbytes} but the tasks in memory sum to ${nbytes}`);

  if (core.transitionCounterMax !== false && core.transitionCounter >= core.transitionCounterMax) {
    fail(`transitionCounter ${core.transitionCounter} reached the maximum ${core.transitionCounterMax}`);
  }

  for (const name in core.totalResources) {
    const available = core.availableResources[name] ?? 0;
    if (available < -1e-9) fail(`availableResources.${name} is negative (${available})`);
    let used = 0;
    for (const ts of [...core.executing, ...core.longRunning]) used += ownValue(ts.resourceRestrictions, name) ?? 0;
    if (Math.abs(available + used - (core.totalResources[name] as number)) > 1e-9) {
      fail(`resource ${name}: available ${available} + in use ${used} != total ${core.totalResources[name]}`);
    }
  }
}
