import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { currentSpan, meter, Span, withSpan } from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";

function root(name: string | string[] = "root", clock = new FakeClock()): Span {
  return new Span(name, { clock }).start();
}

describe("currentSpan", () => {
  it("is undefined outside any binding", () => {
    expect(currentSpan()).toBeUndefined();
  });

  it("follows asCurrent through sync and async work and is restored afterwards", async () => {
    const span = root();
    const seen: (Span | undefined)[] = [];
    const result = await span.asCurrent(async () => {
      seen.push(currentSpan());
      await nextTurn();
      seen.push(currentSpan());
      setTimeout(() => seen.push(currentSpan()), 0);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return 42;
    });
    expect(result).toBe(42);
    expect(seen).toEqual([span, span, span]);
    expect(currentSpan()).toBeUndefined();
  });

  it("is undefined once the bound span has ended", () => {
    const span = root();
    span.asCurrent(() => {
      span.end();
      expect(currentSpan()).toBeUndefined();
    });
  });

  it("does not leak between concurrent tasks", async () => {
    const clock = new FakeClock();
    const roots = Array.from({ length: 20 }, (_, i) => new Span(["execute", `t${i}`], { clock }).start());
    await Promise.all(
      roots.map((span, i) =>
        span.asCurrent(async () => {
          for (let step = 0; step < 3; step += 1) {
            await new Promise((resolve) => setTimeout(resolve, (i * 7 + step * 3) % 5));
            expect(currentSpan()).toBe(span);
            await meter(`step${step}`, async () => {
              await nextTurn();
              expect(currentSpan()!.parent).toBe(span);
            });
          }
        }),
      ),
    );
    for (const span of roots) {
      expect(span.children.map((c) => c.name[0])).toEqual(["step0", "step1", "step2"]);
    }
  });
});

describe("meter", () => {
  it("just runs fn when there is no current span", () => {
    expect(meter("x", () => 7)).toBe(7);
  });

  it("times a sync fn in a child of the current span", () => {
    const clock = new FakeClock();
    const span = root(["execute", "inc"], clock);
    const value = span.asCurrent(() =>
      meter("deserialize", () => {
        clock.advance(2);
        expect(currentSpan()!.name).toEqual(["deserialize"]);
        return "v";
      }),
    );
    expect(value).toBe("v");
    const [child] = span.children;
    expect([child!.startTime, child!.endTime]).toEqual([0, 2]);
  });

  it("nests meters", () => {
    const span = root();
    span.asCurrent(() => meter("outer", () => meter("inner", () => undefined)));
    expect(span.children[0]!.children[0]!.path).toEqual(["root", "outer", "inner"]);
  });

  it("ends the child and rethrows when a sync fn throws", () => {
    const clock = new FakeClock();
    const span = root("r", clock);
    expect(() =>
      span.asCurrent(() =>
        meter("boom", () => {
          clock.advance(1);
          throw new Error("task failed");
        }),
      ),
    ).toThrow("task failed");
    expect(span.children[0]!.endTime).toBe(1);
  });

  it("ends the child when an async fn settles, and propagates rejection", async () => {
    const clock = new FakeClock();
    const span = root("r", clock);
    const ok = span.asCurrent(() =>
      meter("network", async () => {
        await nextTurn();
        clock.advance(3);
        return 5;
      }),
    );
    expect(span.children[0]!.isRecording()).toBe(true);
    await expect(ok).resolves.toBe(5);
    expect(span.children[0]!.endTime).toBe(3);

    const failing = span.asCurrent(() =>
      meter("disk-read", async () => {
        await nextTurn();
        clock.advance(1);
        throw new Error("disk gone");
      }),
    );
    await expect(failing).rejects.toThrow("disk gone");
    expect(span.children[1]!.endTime).toBe(4);
  });

  it("passes options such as attributes to the child", () => {
    const span = root();
    span.asCurrent(() => meter("memory-read", () => currentSpan()!.addMetric("bytes", 8), { attributes: { aggregate: true } }));
    expect(span.children[0]!.attributes).toEqual({ aggregate: true });
    expect(span.children[0]!.metrics).toEqual({ bytes: 8 });
  });
});

describe("withSpan", () => {
  it("binds an existing span without starting or ending it", async () => {
    const span = root();
    await withSpan(span, async () => {
      await nextTurn();
      expect(currentSpan()).toBe(span);
    });
    expect(span.isRecording()).toBe(true);
  });

  it("with a name, starts a child of the current span and ends it", () => {
    const span = root();
    span.asCurrent(() =>
      withSpan("serialize", () => {
        expect(currentSpan()!.parent).toBe(span);
      }),
    );
    expect(span.children[0]!.isRecording()).toBe(false);
  });

  it("with a name and no current span, makes a new root", async () => {
    let made: Span | undefined;
    await withSpan(["get-data"], async () => {
      made = currentSpan();
      await nextTurn();
    });
    expect(made!.parent).toBeUndefined();
    expect(made!.isRecording()).toBe(false);
  });
});

describe("dask #7949: roots started inside another span's work", () => {
  it("stay roots and take none of the enclosing span's work", async () => {
    const clock = new FakeClock();
    const finishing = new Span(["execute", "a"], { clock }).start();
    let next: Span | undefined;
    await finishing.asCurrent(async () => {
      // the shell handles the done event and starts the next instruction's root here
      next = new Span(["execute", "b"], { clock }).start();
      await next.asCurrent(async () => {
        await nextTurn();
        await meter("thread-noncpu", () => nextTurn());
      });
    });
    finishing.end();
    next!.end();
    expect(next!.parent).toBeUndefined();
    expect(finishing.children).toEqual([]);
    expect(next!.children.map((c) => c.name)).toEqual([["thread-noncpu"]]);
  });

  it("do not pile up: a chain of 1000 roots each started inside the previous stays flat", async () => {
    const clock = new FakeClock();
    let previous = new Span(["execute", "t0"], { clock }).start();
    for (let i = 1; i < 1000; i += 1) {
      const current: Span = previous.asCurrent(() => new Span(["execute", `t${i}`], { clock }).start());
      previous.end();
      expect(current.parent).toBeUndefined();
      expect(current.path).toHaveLength(2);
      previous = current;
    }
    previous.end();
  });
});
