// Errors with a meaning for the Worker shell: what an executor or a transport throws to
// pick the event the state machine receives.

/**
 * Thrown by a task (or an executor) to give the task back to the scheduler:
 * the Worker answers with a RescheduleEvent instead of a failure.
 */
export class Reschedule extends Error {
  constructor(message = "task asked to be rescheduled") {
    super(message);
    this.name = "Reschedule";
  }
}

/**
 * Thrown by a transport when the peer cannot be reached or the connection dropped: the
 * Worker answers with GatherDepNetworkFailureEvent and the state treats the peer as dead.
 * Any other error thrown by a transport becomes GatherDepFailureEvent.
 */
export class NetworkError extends Error {
  readonly peer: string | undefined;
  constructor(message: string, options: { peer?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "NetworkError";
    this.peer = options.peer;
  }
}

/** The reason given to outstanding work when the worker closes. */
export class WorkerClosedError extends Error {
  constructor(address: string) {
    super(`worker ${address} is closing`);
    this.name = "WorkerClosedError";
  }
}
