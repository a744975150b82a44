// One task as the worker knows it (dask's TaskState). Identity matters: a forgotten task
// and its re-created namesake are different objects, so every collection holds objects.
//
// Memory: a task's relations (dependencies, dependents, waitingForData, waiters, whoHas) are
// stored as `Links` (links.ts): nothing, the one member itself, a small array, or a Set. The
// public fields are getters that turn the relation into a Set the first time they are read
// and hand out that Set, which stays the storage from then on (a live view); the state
// machine reads the `_`-prefixed slots directly.
import type { Key, Priority, ResourceMap } from "./events.js";
import type { StartStop } from "./instructions.js";
import { keySplit } from "./key-split.js";
import { linksOfSet, observedLinks, type Links } from "./links.js";
import { EMPTY_RECORD, newRecord } from "./records.js";
import type { OutstandingState, ResumedTarget, TaskStateName } from "./task-states.js";

/** dask's `distributed.scheduler.default-data-size`: the size assumed when unknown. */
export const DEFAULT_DATA_SIZE = 1024;
/** dask's `RUN_ID_SENTINEL`. */
export const RUN_ID_SENTINEL = -1;

const NO_RESOURCES: ResourceMap = EMPTY_RECORD;
const NO_STARTSTOPS: readonly StartStop[] = Object.freeze([]);

function hasOwnKeys(record: object): boolean {
  for (const _ in record) return true;
  return false;
}

/**
 * The restrictions to store on a task: an empty map becomes one shared frozen object, so a
 * task without restrictions does not keep its event's `{}` alive (~56 bytes a task).
 */
export function storedRestrictions(restrictions: ResourceMap): ResourceMap {
  return hasOwnKeys(restrictions) ? restrictions : NO_RESOURCES;
}

function isStartStopList(value: StartStop | readonly StartStop[]): value is readonly StartStop[] {
  return Array.isArray(value);
}

/** Fields that are rarely set; kept out of line so common tasks stay small. */
interface TaskExtras {
  previous: OutstandingState | null;
  next: ResumedTarget | null;
  exception: unknown;
  traceback: unknown;
  exceptionText: string;
  tracebackText: string;
  metadata: Record<string, unknown> | null;
  annotations: Readonly<Record<string, unknown>>;
  spanId: string | null;
}

export class TaskState {
  readonly key: Key;

  state: TaskStateName = "released";
  priority: Priority | null = null;
  runId: number = RUN_ID_SENTINEL;
  runSpec: unknown = null;
  comingFrom: string | null = null;
  nbytes: number | null = null;
  resourceRestrictions: ResourceMap = NO_RESOURCES;
  done = false;
  /** Type name of the value in memory (dask keeps the Python type). */
  type: string | null = null;

  /** @internal */
  _dependencies: Links<TaskState> = null;
  /** @internal */
  _dependents: Links<TaskState> = null;
  /** @internal */
  _waitingForData: Links<TaskState> = null;
  /** @internal */
  _waiters: Links<TaskState> = null;
  /** @internal */
  _whoHas: Links<string> = null;
  /** @internal one entry is kept as the bare object (most tasks have exactly one) */
  _startstops: StartStop | readonly StartStop[] | null = null;
  /** @internal */
  _extras: TaskExtras | null = null;
  /** @internal the recommendation pending for this task in its WorkerState's main stack */
  _pendingRec: object | null = null;
  /** @internal the ready or constrained queue holding this task (SlotPrioritySet), or null */
  _queue: object | null = null;
  /** @internal */
  _queueSeq = 0;

  constructor(key: Key) {
    this.key = key;
  }

  /** dask's `key_split(key)`; computed on access (rarely read, so not stored per task). */
  get prefix(): string {
    return keySplit(this.key);
  }

  /** Only for cancelled/resumed: the coroutine still outstanding. */
  get previous(): OutstandingState | null {
    return this._extras === null ? null : this._extras.previous;
  }
  set previous(value: OutstandingState | null) {
    if (value !== null || this._extras !== null) this.extras().previous = value;
  }
  /** Only for resumed: where the task goes once the coroutine returns. */
  get next(): ResumedTarget | null {
    return this._extras === null ? null : this._extras.next;
  }
  set next(value: ResumedTarget | null) {
    if (value !== null || this._extras !== null) this.extras().next = value;
  }

  get dependencies(): Set<TaskState> {
    const set = observedLinks(this._dependencies);
    this._dependencies = linksOfSet(set);
    return set;
  }
  get dependents(): Set<TaskState> {
    const set = observedLinks(this._dependents);
    this._dependents = linksOfSet(set);
    return set;
  }
  get waitingForData(): Set<TaskState> {
    const set = observedLinks(this._waitingForData);
    this._waitingForData = linksOfSet(set);
    return set;
  }
  get waiters(): Set<TaskState> {
    const set = observedLinks(this._waiters);
    this._waiters = linksOfSet(set);
    return set;
  }
  get whoHas(): Set<string> {
    const set = observedLinks(this._whoHas);
    this._whoHas = linksOfSet(set);
    return set;
  }
  set whoHas(workers: Set<string>) {
    this._whoHas = linksOfSet(workers);
  }
  get startstops(): readonly StartStop[] {
    const current = this._startstops;
    if (current === null) return NO_STARTSTOPS;
    return isStartStopList(current) ? current : Object.freeze([current]);
  }

  /** Append a `{action, start, stop}` record (the shell adds transfer/disk entries). */
  addStartstop(entry: StartStop): void {
    const current = this._startstops;
    if (current === null) this._startstops = Object.freeze(entry);
    else if (isStartStopList(current)) this._startstops = Object.freeze([...current, Object.freeze(entry)]);
    else this._startstops = Object.freeze([current, Object.freeze(entry)]);
  }

  private extras(): TaskExtras {
    return (this._extras ??= {
      previous: null,
      next: null,
      exception: null,
      traceback: null,
      exceptionText: "",
      tracebackText: "",
      metadata: null,
      annotations: EMPTY_RECORD,
      spanId: null,
    });
  }

  get exception(): unknown {
    return this._extras === null ? null : this._extras.exception;
  }
  set exception(value: unknown) {
    if (value !== null || this._extras !== null) this.extras().exception = value;
  }
  get traceback(): unknown {
    return this._extras === null ? null : this._extras.traceback;
  }
  set traceback(value: unknown) {
    if (value !== null || this._extras !== null) this.extras().traceback = value;
  }
  get exceptionText(): string {
    return this._extras === null ? "" : this._extras.exceptionText;
  }
  set exceptionText(value: string) {
    if (value !== "" || this._extras !== null) this.extras().exceptionText = value;
  }
  get tracebackText(): string {
    return this._extras === null ? "" : this._extras.tracebackText;
  }
  set tracebackText(value: string) {
    if (value !== "" || this._extras !== null) this.extras().tracebackText = value;
  }
  get metadata(): Record<string, unknown> {
    const extras = this.extras();
    return (extras.metadata ??= newRecord());
  }
  get annotations(): Readonly<Record<string, unknown>> {
    return this._extras === null ? EMPTY_RECORD : this._extras.annotations;
  }
  set annotations(value: Readonly<Record<string, unknown>>) {
    if (this._extras !== null || hasOwnKeys(value)) this.extras().annotations = value;
  }
  get spanId(): string | null {
    return this._extras === null ? null : this._extras.spanId;
  }
  set spanId(value: string | null) {
    if (value !== null || this._extras !== null) this.extras().spanId = value;
  }

  /** @internal metadata without allocating it */
  _metadataOrNull(): Record<string, unknown> | null {
    return this._extras === null ? null : this._extras.metadata;
  }

  /** `nbytes`, or dask's default data size (1024) when unknown. */
  getNbytes(): number {
    return this.nbytes ?? DEFAULT_DATA_SIZE;
  }

  /** dask's repr: `<TaskState 'x' cancelled(flight)>`, `<TaskState 'x' resumed(flight->waiting)>`. */
  toString(): string {
    let state: string = this.state;
    if (this.state === "cancelled") state = `cancelled(${this.previous})`;
    else if (this.state === "resumed") state = `resumed(${this.previous}->${this.next})`;
    return `<TaskState ${pyRepr(this.key)} ${state}>`;
  }
}

function pyRepr(text: string): string {
  return text.includes("'") && !text.includes('"') ? `"${text}"` : `'${text.replace(/'/g, "\\'")}'`;
}
