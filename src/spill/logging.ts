/** Where the SpillBuffer reports what it handled instead of throwing. `error` is the cause, when there is one. */
export interface SpillLogger {
  warn(message: string, error?: unknown): void;
  error(message: string, error?: unknown): void;
}

export const consoleLogger: SpillLogger = {
  warn: (message, error) => (error === undefined ? console.warn(message) : console.warn(message, error)),
  error: (message, error) => (error === undefined ? console.error(message) : console.error(message, error)),
};

/** dask's RateLimiterFilter: a message kind is emitted at most once per `intervalSeconds` on `clock`. */
export class RateLimiter {
  private readonly lastEmitted = new Map<string, number>();

  constructor(
    private readonly clock: { now(): number },
    private readonly intervalSeconds = 10,
  ) {}

  allow(kind: string): boolean {
    const now = this.clock.now();
    const last = this.lastEmitted.get(kind);
    if (last !== undefined && now < last + this.intervalSeconds) return false;
    this.lastEmitted.set(kind, now);
    return true;
  }
}
