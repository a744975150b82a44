import type { Clock } from "../../src/spans/index.js";

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  constructor(public time = 0) {}
  now(): number {
    return this.time;
  }
  advance(seconds: number): number {
    this.time += seconds;
    return this.time;
  }
  set(time: number): number {
    this.time = time;
    return time;
  }
}
