import { describe, expect, it } from "vitest";
import { Span, currentSpan } from "../../src/spans/index.js";
import { bindSync, hasCurrentSpan, type LazySpan } from "../../src/spans/context.js";
import { FakeClock } from "./fake-clock.js";

class CountingLazy implements LazySpan {
  span: Span | undefined;
  made = 0;
  constructor(private readonly clock: FakeClock) {}
  get resolved(): boolean {
    return this.span !== undefined;
  }
  resolve(): Span {
    if (this.span === undefined) {
      this.made++;
      this.span = new Span("lazy", { clock: this.clock }).start();
    }
    return this.span;
  }
}

describe("synchronous binding (runSync / bindSync)", () => {
  it("binds for the synchronous call only, innermost first, and restores after a throw", async () => {
    const clock = new FakeClock(0);
    const outer = new Span("outer", { clock }).start();
    const inner = new Span("inner", { clock }).start();
    expect(currentSpan()).toBeUndefined();
    let later: Span | undefined | "unset" = "unset";
    outer.runSync(() => {
      expect(currentSpan()).toBe(outer);
      inner.runSync(() => expect(currentSpan()).toBe(inner));
      expect(currentSpan()).toBe(outer);
      void Promise.resolve().then(() => (later = currentSpan()));
    });
    expect(() => inner.runSync(() => { throw new Error("boom"); })).toThrow("boom");
    expect(currentSpan()).toBeUndefined();
    await Promise.resolve();
    // a continuation left behind does not see a synchronous binding
    expect(later).toBeUndefined();
  });

  it("an asCurrent inside a synchronous binding is the innermost binding, also for its async work", async () => {
    const clock = new FakeClock(0);
    const outer = new Span("outer", { clock }).start();
    const bound = new Span("bound", { clock }).start();
    const seen: Array<Span | undefined> = [];
    let done: Promise<void> = Promise.resolve();
    outer.runSync(() => {
      done = bound.asCurrent(async () => {
        seen.push(currentSpan());
        await Promise.resolve();
        seen.push(currentSpan());
      });
      seen.push(currentSpan());
    });
    await done;
    expect(seen).toEqual([bound, outer, bound]);
  });

  it("an ended span is not current", () => {
    const clock = new FakeClock(0);
    const span = new Span("done", { clock }).start();
    span.end();
    span.runSync(() => {
      expect(currentSpan()).toBeUndefined();
      expect(hasCurrentSpan()).toBe(false);
    });
  });

  it("a lazy binding creates its span only when currentSpan() is asked", () => {
    const clock = new FakeClock(5);
    const idle = new CountingLazy(clock);
    bindSync(idle, () => expect(hasCurrentSpan()).toBe(true));
    expect(idle.made).toBe(0);
    const used = new CountingLazy(clock);
    bindSync(used, () => {
      currentSpan()!.child("write").end();
      expect(currentSpan()).toBe(used.span);
    });
    expect(used.made).toBe(1);
    expect(used.span!.children.map((c) => c.name[0])).toEqual(["write"]);
  });
});
