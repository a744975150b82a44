// One task as the worker knows it (dask's TaskState). Identity matters: a forgotten task
// and its re-created namesake are different objects, so every collection holds objects.
//
// Memory: most tasks never need most of their sets (a task without dependencies has no
// `dependencies`, `waitingForData`, …). The public fields are getters that allocate the Set
// on first access; the state machine reads the `_`-prefixed slots directly and treats null
// as empty, so a plain independent task carries no Set at all.
import type { Key, Priority, ResourceMap } from "./events.js";
import type { StartStop } from "./instructions.js";
import { keySplit } from "./key-split.js";
import type { OutstandingState, ResumedTarget, TaskStateName } from "./task-states.js";

/** dask's `distributed.scheduler.default-data-size`: the size assumed when unknown. */
export const DEFAULT_DATA_SIZE = 1024;
/** dask's `RUN_ID_SENTINEL`. */
export const RUN_ID_SENTINEL = -1;

const NO_RESOURCES: ResourceMap = Object.freeze({});
const NO_STARTSTOPS: readonly StartStop[] = Object.freeze([]);

/** Fields that are rarely set; kept out of line so common tasks stay small. */
interface TaskExtras {
  exception: unknown;
  traceback: unknown;
  exceptionText: string;
  tracebackText: string;
  metadata: Record<string, unknown>;
  annotations: Readonly<Record<string, unknown>>;
  spanId: string | null;
  duration: number | null;
}

export class TaskState {
  readonly key: Key;
  readonly prefix: string;
  state: TaskStateName = "released";
  previous: OutstandingState | null = null;
  next: ResumedTarget | null = null;
  priority: Priority | null = null;
  runId: number = RUN_ID_SENTINEL;
  runSpec: unknown = null;
  comingFrom: string | null = null;
  nbytes: number | null = null;
  resourceRestrictions: ResourceMap = NO_RESOURCES;
  done = false;
  /** Type name of the value in memory (dask keeps the Python type). */
  type: string | null = null;

  /** @internal null = empty */
  _dependencies: Set<TaskState> | null = null;
  /** @internal */
  _dependents: Set<TaskState> | null = null;
  /** @internal */
  _waitingForData: Set<TaskState> | null = null;
  /** @internal */
  _waiters: Set<TaskState> | null = null;
  /** @internal */
  _whoHas: Set<string> | null = null;
  /** @internal */
  _startstops: StartStop[] | null = null;
  /** @internal */
  _extras: TaskExtras | null = null;

  constructor(key: Key) {
    this.key = key;
    this.prefix = keySplit(key);
  }

  get dependencies(): Set<TaskState> {
    return (this._dependencies ??= new Set());
  }
  get dependents(): Set<TaskState> {
    return (this._dependents ??= new Set());
  }
  get waitingForData(): Set<TaskState> {
    return (this._waitingForData ??= new Set());
  }
  get waiters(): Set<TaskState> {
    return (this._waiters ??= new Set());
  }
  get whoHas(): Set<string> {
    return (this._whoHas ??= new Set());
  }
  set whoHas(workers: Set<string>) {
    this._whoHas = workers;
  }
  /** Frozen once a message carried it; `addStartstop` copies it then (copy on write). */
  get startstops(): readonly StartStop[] {
    return this._startstops ?? NO_STARTSTOPS;
  }

  /** @internal */
  addStartstop(entry: StartStop): void {
    const current = this._startstops;
    if (current === null) this._startstops = [entry];
    else if (Object.isFrozen(current)) this._startstops = [...current, entry];
    else current.push(entry);
  }

  /** @internal the startstops as an immutable array, for a message */
  frozenStartstops(): readonly StartStop[] {
    const current = this._startstops;
    if (current === null) return NO_STARTSTOPS;
    return Object.freeze(current);
  }

  private extras(): TaskExtras {
    return (this._extras ??= {
      exception: null,
      traceback: null,
      exceptionText: "",
      tracebackText: "",
      metadata: {},
      annotations: {},
      spanId: null,
      duration: null,
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
    return this.extras().metadata;
  }
  get annotations(): Readonly<Record<string, unknown>> {
    return this._extras === null ? {} : this._extras.annotations;
  }
  set annotations(value: Readonly<Record<string, unknown>>) {
    if (this._extras !== null || Object.keys(value).length > 0) this.extras().annotations = value;
  }
  get spanId(): string | null {
    return this._extras === null ? null : this._extras.spanId;
  }
  set spanId(value: string | null) {
    if (value !== null || this._extras !== null) this.extras().spanId = value;
  }
  get duration(): number | null {
    return this._extras === null ? null : this._extras.duration;
  }
  set duration(value: number | null) {
    if (value !== null || this._extras !== null) this.extras().duration = value;
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

/** Null-or-empty test for the lazily allocated sets of TaskState. */
export function isEmpty(set: ReadonlySet<unknown> | null): boolean {
  return set === null || set.size === 0;
}
